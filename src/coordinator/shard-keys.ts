/**
 * Shard keys the coordinator did not create. A scale-out never adopts an existing
 * Redis key as a new shard: a foreign application's `p:3`, or another coordinator namespace's
 * shard on the same Redis, would otherwise be paged through the message routes and later
 * deleted by a scale-in. Which keys are ours needs no extra record: a current shard, or a
 * removed shard not yet RETIRED (its key is deleted only by the retire script, and producers
 * write with NOMKSTREAM, so a retired index comes back only through someone else).
 */
import { CoordinatorError } from '../core/errors.js';
import type { StreamDoc } from '../core/model.js';
import { range } from '../core/stream-state.js';
import { shardKey } from '../store/keys.js';
import type { Ctx } from './context.js';

/** Keys named in a refusal at most (the rest are counted). */
const NAMED_KEYS = 5;

/** Indices `[from, to)` a scale-out makes shards of whose keys are not already ours. */
export function unownedNewShards(stream: StreamDoc, from: number, to: number): number[] {
  const ours = new Set(stream.removedShards.filter((r) => r.state !== 'RETIRED').map((r) => r.shard));
  return range(from, to).filter((i) => !ours.has(i));
}

/**
 * Before a scale-out is committed: every new shard key that is not ours must be absent
 * (one EXISTS pass; a second one only to name the keys found). Skipped when provisioning is
 * off: the operator then creates the shard keys before scaling.
 */
export async function refuseExistingShardKeys(ctx: Ctx, prefix: string, shards: number[]): Promise<void> {
  if (!ctx.config.provisioning || shards.length === 0) return;
  const keys = shards.map((i) => shardKey(prefix, i));
  if ((await ctx.store.countExisting(keys)) === 0) return;
  const counts = await Promise.all(keys.map((k) => ctx.store.countExisting([k])));
  const found = keys.filter((_, i) => counts[i]! > 0);
  throw shardKeyExists(prefix, found.length > 0 ? found : keys, 'already exists');
}

/**
 * Before a PREPARING migration is (re)provisioned: a new shard key that appeared since the
 * decision is adopted only if it carries nothing but this stream's consumer groups (what an
 * earlier, interrupted provisioning attempt left). Read failures are left to provisioning,
 * which never overwrites another type.
 */
export async function refuseForeignShardKeys(
  ctx: Ctx,
  prefix: string,
  stream: StreamDoc,
  shards: number[],
): Promise<void> {
  const store = ctx.store;
  if (!ctx.config.provisioning || shards.length === 0 || !store.readShard) return;
  const readShard = store.readShard.bind(store);
  const managed = new Set(stream.groups);
  const readings = await Promise.all(shards.map((i) => readShard(shardKey(prefix, i))));
  const foreign = shards.filter((_, n) => {
    const r = readings[n]!;
    return r.kind === 'stream' && (r.groups.length === 0 || r.groups.some((g) => !managed.has(g.name)));
  });
  if (foreign.length > 0) {
    throw shardKeyExists(
      prefix,
      foreign.map((i) => shardKey(prefix, i)),
      'exists with consumer groups this stream does not have',
    );
  }
}

function shardKeyExists(prefix: string, keys: string[], what: string): CoordinatorError {
  const named = keys
    .slice(0, NAMED_KEYS)
    .map((k) => `"${k}"`)
    .join(', ');
  const more = keys.length > NAMED_KEYS ? ` and ${keys.length - NAMED_KEYS} more` : '';
  return new CoordinatorError(
    'SHARD_KEY_EXISTS',
    `Redis key ${named}${more} ${what}: the coordinator did not create it and will not adopt it as a shard of stream "${prefix}"; remove it or choose another target shard count`,
  );
}
