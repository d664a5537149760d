/**
 * The offsets reset (docs/operating.md#replaying-or-skipping-records): moves a consumer group's
 * last-delivered-id on some or all shards of its stream — to the start, to the end, to a time or
 * to an id — as `kafka-consumer-groups --reset-offsets` moves a Kafka group's offsets.
 *
 * Every refusal comes before any write: an unknown stream or group, a shard the stream does not
 * have, a live member (its consumers would go on reading from where they were), a shard whose
 * key or Redis group is missing, an id past a shard's last. A dry run reads only; a reset runs
 * under the stream's mutex, so no scale or delete moves the shards meanwhile, and writes one
 * `XGROUP SETID` per shard that moves (with the group's read count, so Redis keeps its lag).
 * Counts are bounded per range (`COUNT_LIMIT`); past it they are lower bounds and say so.
 */
import type { OffsetsReset, OffsetsResetInput, ShardReset } from '../coordinator-api.js';
import { own } from '../core/dict.js';
import { CoordinatorError, isCoordinatorError } from '../core/errors.js';
import { observedAt } from '../core/group-view.js';
import { consumableShards, isLive } from '../core/model.js';
import {
  type Counted,
  compareIds,
  newPosition,
  type ResetTarget,
  recordsAfter,
  recordsBetween,
  type StreamEnds,
  shardMove,
  timestampBound,
} from '../core/offsets-reset-plan.js';
import { runCritical } from '../store/critical-section.js';
import type { GroupPositions } from '../store/group-positions.js';
import { shardKey } from '../store/keys.js';
import type { StreamSnapshot } from '../store/store.js';
import { audit, checkNames, groupNotFound, inBatches } from './admin.js';
import { type Ctx, criticalOptions } from './context.js';
import { withIntactGroup } from './integrity.js';

/** Records one count walks at most (about 100 short calls); past it the count is a lower bound. */
const COUNT_LIMIT = 1_000_000;
/** Shards read at once. */
const READ_CONCURRENCY = 8;
/** Members or shards named in a refusal at most. */
const NAMED = 5;

/** A shard's plan: what the answer shows, and the read count to set with the new id. */
interface PlannedShard extends ShardReset {
  entriesRead: number | null;
}

/** `POST /admin/streams/{p}/groups/{g}/offsets/reset`. */
export function resetOffsets(
  ctx: Ctx,
  prefix: string,
  group: string,
  input: OffsetsResetInput,
): Promise<OffsetsReset> {
  checkNames(prefix, group);
  const positions = ctx.store.positions;
  if (!positions) {
    throw new CoordinatorError('REDIS_NOT_CONFIGURED', 'this coordinator cannot move consumer groups');
  }
  const now = ctx.now();
  const plan = (s: StreamSnapshot | null) => planReset(positions, s, prefix, group, input, now);
  return withIntactGroup(ctx, prefix, group, async () => {
    if (input.dryRun) {
      const shards = await plan(await ctx.store.load(prefix, [group]));
      return { target: input.target, dryRun: true, shards: strip(shards) };
    }
    const opts = criticalOptions(ctx, ctx.config.lockWaitMs);
    const shards = await runCritical(ctx.store, prefix, [group], opts, async (s) => {
      const planned = await plan(s);
      await apply(ctx, positions, prefix, group, input, planned);
      return { result: planned };
    });
    audit(ctx, 'offsets reset', prefix, group, input, {
      ...input.target,
      shards: shards.map((p) => p.shard),
      moved: shards.filter((p) => compareIds(p.before, p.after) !== 0).map((p) => p.shard),
      skippedRecords: sum(shards, 'skippedRecords'),
      replayedRecords: sum(shards, 'replayedRecords'),
    });
    return { target: input.target, dryRun: false, shards: strip(shards) };
  });
}

/** Checks the request against the stream and the group, then reads and plans every shard. */
async function planReset(
  positions: GroupPositions,
  s: StreamSnapshot | null,
  prefix: string,
  group: string,
  input: OffsetsResetInput,
  now: number,
): Promise<PlannedShard[]> {
  if (!s) throw new CoordinatorError('STREAM_NOT_FOUND', `stream "${prefix}" not found`);
  const doc = own(s.groups, group);
  if (!doc) throw groupNotFound(prefix, group);
  const consumable = consumableShards(s.stream);
  const shards = input.shards === null ? consumable : [...new Set(input.shards)].sort((a, b) => a - b);
  const foreign = shards.filter((i) => !consumable.includes(i));
  if (foreign.length > 0) {
    throw new CoordinatorError(
      'INVALID_REQUEST',
      `shards: not a consumable shard of stream "${prefix}": ${named(foreign.map(String))} (it has ${consumable.length}: ${named(consumable.map(String))}); nothing was moved`,
    );
  }
  const live = Object.values(observedAt(doc, now).members).filter((m) => isLive(m.state));
  if (live.length > 0) {
    throw new CoordinatorError(
      'GROUP_HAS_ACTIVE_MEMBERS',
      `group "${group}" of stream "${prefix}" has ${live.length} live member(s) (${named(live.map((m) => m.memberId))}): stop its consumers and let their leases end before resetting offsets; nothing was moved`,
    );
  }
  const planned = new Array<PlannedShard>(shards.length);
  await inBatches(
    shards.map((shard, i) => async () => {
      planned[i] = await planShard(positions, prefix, group, shard, input.target);
    }),
    READ_CONCURRENCY,
  );
  return planned;
}

/** Reads one shard and decides where the group goes on it, counting what the stream's ends do not tell. */
async function planShard(
  positions: GroupPositions,
  prefix: string,
  group: string,
  shard: number,
  target: ResetTarget,
): Promise<PlannedShard> {
  const streamKey = shardKey(prefix, shard);
  const read = await positions.read(streamKey, group);
  if (!read.stream) {
    throw new CoordinatorError(
      'GROUP_NOT_FOUND',
      `shard ${shard} of stream "${prefix}" has no stream at "${streamKey}"; nothing was moved`,
    );
  }
  if (!read.group) {
    throw new CoordinatorError(
      'GROUP_NOT_FOUND',
      `consumer group "${group}" is not on "${streamKey}" (shard ${shard}) in Redis; nothing was moved`,
    );
  }
  const ends: StreamEnds = {
    length: read.stream.length,
    firstRecordId: read.stream.firstRecordId,
    lastRecordId: read.stream.lastRecordId,
    lastGeneratedId: read.stream.lastGeneratedId ?? read.stream.lastRecordId ?? '0-0',
    entriesAdded: read.stream.entriesAdded,
  };
  const before = read.group.lastDeliveredId ?? '0-0';
  const position = newPosition(target, ends, await lastBefore(positions, streamKey, ends, target));
  if ('refused' in position) {
    throw new CoordinatorError(
      'INVALID_REQUEST',
      `${position.refused} on shard ${shard} ("${streamKey}"); nothing was moved`,
    );
  }
  const after = position.id;
  const [low, high] = compareIds(before, after) <= 0 ? [before, after] : [after, before];
  // Both counts stop at the last id read with the ends: records written meanwhile change neither.
  const between =
    known(recordsBetween(ends, low, high)) ?? (await positions.count(streamKey, low, high, COUNT_LIMIT));
  const behind =
    known(recordsAfter(ends, after)) ??
    (await positions.count(streamKey, after, ends.lastGeneratedId, COUNT_LIMIT));
  return {
    shard,
    streamKey,
    before,
    after,
    pendingCount: read.group.pending,
    ...shardMove(ends, before, after, between, behind),
  };
}

/** For a timestamp target, the newest record before it among those read with the ends. */
async function lastBefore(
  positions: GroupPositions,
  streamKey: string,
  ends: StreamEnds,
  target: ResetTarget,
): Promise<string | null> {
  if (target.to !== 'timestamp') return null;
  const bound = timestampBound(target.timestamp);
  // A time after every record read: the newest record (what is written later is delivered).
  if (compareIds(bound, ends.lastGeneratedId) > 0) return ends.lastRecordId;
  return positions.lastBefore(streamKey, bound);
}

/**
 * One `XGROUP SETID` per shard that moves, in shard order. A failure part-way is logged with the
 * shards already moved and answered with them: the same request again finishes the job (a moved
 * shard is where it was asked to be and is not written again).
 */
async function apply(
  ctx: Ctx,
  positions: GroupPositions,
  prefix: string,
  group: string,
  input: OffsetsResetInput,
  planned: readonly PlannedShard[],
): Promise<void> {
  const moved: number[] = [];
  for (const p of planned) {
    if (compareIds(p.before, p.after) === 0) continue;
    try {
      await positions.set(p.streamKey, group, p.after, p.entriesRead);
    } catch (err) {
      const done = moved.length > 0 ? `shard(s) ${moved.join(', ')} moved already` : 'no shard moved';
      audit(ctx, 'offsets reset failed part-way', prefix, group, input, {
        ...input.target,
        moved,
        failedShard: p.shard,
      });
      if (!isCoordinatorError(err)) throw err;
      throw new CoordinatorError(
        err.code,
        `${err.message}; ${done}, shard ${p.shard} not: repeat the request to finish`,
        { cause: err },
      );
    }
    moved.push(p.shard);
  }
}

/** A count the stream's ends answered. */
function known(count: number | null): Counted | null {
  return count === null ? null : { count, complete: true };
}

/** The plan as the answer shows it. */
function strip(planned: readonly PlannedShard[]): ShardReset[] {
  return planned.map(({ entriesRead: _, ...shown }) => shown);
}

function sum(shards: readonly ShardReset[], field: 'skippedRecords' | 'replayedRecords'): number {
  return shards.reduce((n, s) => n + s[field], 0);
}

function named(items: readonly string[]): string {
  const more = items.length > NAMED ? ` and ${items.length - NAMED} more` : '';
  return `${items.slice(0, NAMED).join(', ')}${more}`;
}
