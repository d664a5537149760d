/**
 * `DELETE /streams/{p}`: the stream, every group's coordination metadata, and the
 * shard keys the coordinator created — so the same name can be created again (until now only
 * `redis-cli DEL` freed it: deleting the last group left the keys behind).
 *
 * Without `force` nothing is lost: it is refused while a group has a live member (409
 * GROUP_HAS_ACTIVE_MEMBERS) or while a shard holds an entry some group has not read and
 * acknowledged (409 STREAM_NOT_DRAINED; each key is re-checked and deleted in one script, so a
 * late XADD keeps it). With `force` the shard keys go whatever they hold. A key that is not a
 * stream is never touched, and with provisioning off the operator owns the keys: none is deleted.
 *
 * Each shard key goes with what is kept beside it in its slot: the fenced-ack tokens and the
 * idempotency incarnation (in the same script when forced, right after the retire script
 * otherwise). A stream created again under the same name then meets no token epoch of the old
 * one, and the old markers are named after an incarnation nothing asks for any more (they expire
 * with their TTL). With provisioning off only the tokens go: the shard streams stay, and the
 * markers still describe records they hold.
 *
 * Keys are deleted before the metadata, under the stream's mutex: a failure part-way leaves the
 * stream in place with fewer keys, and the same request again finishes the job.
 */
import type { DeleteStreamInput, StreamDeletion } from '../coordinator-api.js';
import { drainVerdict, type RetireOutcome } from '../core/drain-evidence.js';
import { CoordinatorError } from '../core/errors.js';
import { observedAt } from '../core/group-view.js';
import { consumableShards, isLive, type StreamDoc } from '../core/model.js';
import { runCritical } from '../store/critical-section.js';
import { shardKey } from '../store/keys.js';
import type { ShardDeletion, StreamSnapshot } from '../store/store.js';
import { audit, checkPrefix, inBatches } from './admin.js';
import { type Ctx, criticalOptions } from './context.js';
import { retireShardClean } from './shard-cleanup.js';

/** Keys named in a refusal at most. */
const NAMED = 5;
/** Shard-key scripts in flight at once. */
const DELETE_CONCURRENCY = 16;

/** `DELETE /streams/{p}`. */
export async function deleteStream(
  ctx: Ctx,
  prefix: string,
  input: DeleteStreamInput,
): Promise<StreamDeletion> {
  checkPrefix(prefix);
  const result = await runCritical(
    ctx.store,
    prefix,
    'all',
    criticalOptions(ctx, ctx.config.lockWaitMs),
    async (s) => {
      if (!s) throw new CoordinatorError('STREAM_NOT_FOUND', `stream "${prefix}" not found`);
      if (!input.force) refuseLiveMembers(s, prefix, ctx.now());
      const keys = await deleteShardKeys(ctx, s.stream, input.force);
      const groups = [...s.stream.groups];
      return {
        commit: { stream: null, groups: groups.map((name) => ({ name, delete: true, ops: [] })) },
        result: { streamPrefix: prefix, deletedGroups: groups, ...keys },
      };
    },
  );
  audit(ctx, 'stream deleted', prefix, '*', input, {
    force: input.force,
    deletedShardKeys: result.deletedShardKeys.length,
    keptShardKeys: result.keptShardKeys.length,
  });
  return result;
}

function refuseLiveMembers(s: StreamSnapshot, prefix: string, now: number): void {
  const live: string[] = [];
  for (const name of s.stream.groups) {
    const group = s.groups[name];
    if (!group) continue;
    const seen = observedAt(group, now);
    for (const m of Object.values(seen.members)) if (isLive(m.state)) live.push(`${name}/${m.memberId}`);
  }
  if (live.length === 0) return;
  throw new CoordinatorError(
    'GROUP_HAS_ACTIVE_MEMBERS',
    `stream "${prefix}" has ${live.length} live member(s) (${named(live)}); pass force=true to delete anyway`,
  );
}

/** Deletes the stream's shard keys (current shards and removed ones not yet retired). */
async function deleteShardKeys(
  ctx: Ctx,
  stream: StreamDoc,
  force: boolean,
): Promise<Pick<StreamDeletion, 'deletedShardKeys' | 'keptShardKeys'>> {
  const keys = consumableShards(stream).map((i) => shardKey(stream.streamPrefix, i));
  const store = ctx.store;
  if (!ctx.config.provisioning) {
    // The keys stay, but their fenced-ack tokens carry epochs of groups that are going away.
    const clear = store.clearShardKeys?.bind(store);
    if (clear) {
      await inBatches(
        keys.map((key) => () => clear(key, true)),
        DELETE_CONCURRENCY,
      );
    }
    const reason = 'provisioning is off (COORDINATOR_PROVISIONING=false): the operator owns the shard keys';
    return { deletedShardKeys: [], keptShardKeys: keys.map((streamKey) => ({ streamKey, reason })) };
  }
  const remove = store.deleteShard?.bind(store);
  if (!store.retireShard || !store.clearShardKeys || !remove)
    throw new CoordinatorError('REDIS_NOT_CONFIGURED', 'this store cannot delete shard keys');
  // One script per key, a bounded number at once; outcomes kept in shard order.
  const outcomes = new Array<KeyOutcome>(keys.length);
  await inBatches(
    keys.map((key, i) => async () => {
      outcomes[i] = force
        ? forced(key, await remove(key))
        : retired(key, await retireShardClean(store, key, stream.groups), stream.groups);
    }),
    DELETE_CONCURRENCY,
  );
  const deleted = outcomes.filter((o) => o.kind === 'deleted').map((o) => o.key);
  const kept = outcomes.flatMap((o) => (o.kind === 'kept' ? [{ streamKey: o.key, reason: o.reason }] : []));
  const refused = outcomes.flatMap((o) => (o.kind === 'refused' ? [`"${o.key}": ${o.reason}`] : []));
  if (refused.length > 0) {
    throw new CoordinatorError(
      'STREAM_NOT_DRAINED',
      `stream "${stream.streamPrefix}" still holds entries not every group has read and acknowledged: ${named(refused)}; nothing was lost (${deleted.length} drained shard key(s) deleted, the stream is kept); consume them first or pass force=true`,
    );
  }
  return { deletedShardKeys: deleted, keptShardKeys: kept };
}

/** What happened to one shard key. */
type KeyOutcome =
  | { kind: 'deleted' | 'absent'; key: string }
  | { kind: 'kept' | 'refused'; key: string; reason: string };

function forced(key: string, done: ShardDeletion): KeyOutcome {
  if (done === 'not-a-stream') return { kind: 'kept', key, reason: 'not a stream: not ours to delete' };
  return { kind: done, key };
}

function retired(key: string, outcome: RetireOutcome, groups: readonly string[]): KeyOutcome {
  if (outcome.kind === 'deleted' || outcome.kind === 'absent') return { kind: outcome.kind, key };
  if (outcome.kind === 'refused')
    return { kind: 'refused', key, reason: drainVerdict(outcome.reading, groups).reason };
  throw new CoordinatorError('REDIS_UNAVAILABLE', `could not delete shard key "${key}"; retry the request`);
}

function named(items: readonly string[]): string {
  const more = items.length > NAMED ? ` and ${items.length - NAMED} more` : '';
  return `${items.slice(0, NAMED).join(', ')}${more}`;
}
