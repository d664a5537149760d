/**
 * What the coordinator does when a read finds that a group lost part of its Redis state
 * (docs/running-redis.md#when-a-group-is-reported-corrupt): nothing is decided on that read; the
 * derived indexes are rebuilt from the member records in one checked commit, logged once and
 * reported as an event (metrics count it), and the use-case runs again on the rebuilt state. A
 * group whose records or header are lost stays refused (METADATA_CORRUPT) until an operator
 * repairs it; other groups are not affected.
 */
import { CoordinatorError } from '../core/errors.js';
import { rebuildPlan } from '../core/rebuild.js';
import { damageOf } from '../store/damage.js';
import type { StreamSnapshot } from '../store/store.js';
import type { Ctx } from './context.js';

/** Commits a rebuild tries before giving up (each failure means a member moved meanwhile). */
export const REBUILD_ATTEMPTS = 4;
/** Rebuilds one use-case runs before it fails closed (one per damaged group it reads). */
const MAX_REBUILDS = 4;

/**
 * Runs `use` for group `group` of stream `prefix` (null: any group of it); when it fails because
 * the group lost a derived index, rebuilds the indexes and runs it again. Any other failure, and damage that
 * cannot be rebuilt, is rethrown (fail closed).
 */
export async function withIntactGroup<T>(
  ctx: Ctx,
  prefix: string,
  group: string | null,
  use: () => Promise<T>,
): Promise<T> {
  for (let rebuilt = 0; ; rebuilt++) {
    try {
      return await use();
    } catch (err) {
      const damage = damageOf(err);
      if (!damage || (group !== null && damage.consumerGroup !== group)) throw err;
      if (!damage.rebuildable) {
        report(ctx, prefix, damage.consumerGroup, damage.lost, false);
        throw err;
      }
      if (rebuilt === MAX_REBUILDS) throw err;
      await rebuildIndexes(ctx, prefix, damage.consumerGroup, damage.lost);
    }
  }
}

/** `store.load`, rebuilding first any requested group that lost a derived index. */
export function loadIntact(
  ctx: Ctx,
  prefix: string,
  groups: string[] | 'all',
): Promise<StreamSnapshot | null> {
  return withIntactGroup(ctx, prefix, null, () => ctx.store.load(prefix, groups));
}

/**
 * Rebuilds the derived indexes of a group from its member records. Throws METADATA_CORRUPT when
 * the records themselves cannot be trusted; returns false when the group is gone.
 */
export async function rebuildIndexes(
  ctx: Ctx,
  prefix: string,
  group: string,
  lost: readonly string[],
): Promise<boolean> {
  for (let attempt = 1; attempt <= REBUILD_ATTEMPTS; attempt++) {
    const read = await ctx.store.readGroupRecords(prefix, group);
    if (!read) return false;
    const plan = rebuildPlan({ ...read, lost }, ctx.now(), ctx.protocol);
    if (!plan.ok) {
      report(ctx, prefix, group, lost, false);
      throw new CoordinatorError(
        'METADATA_CORRUPT',
        `group "${group}" of stream "${prefix}" cannot be rebuilt from its member records: ${plan.reason}; reset the group (repair with mode "reset", docs/running-redis.md#when-a-group-is-reported-corrupt)`,
        { details: { consumerGroup: group, lostKeys: [...lost], rebuildable: false } },
      );
    }
    const r = await ctx.store.commit({ prefix, groups: [{ name: group, ops: plan.ops }] });
    ctx.emit({ type: 'commit', ok: r.ok, scope: 'group' });
    if (r.ok) {
      report(ctx, prefix, group, lost, true);
      return true;
    }
  }
  throw new CoordinatorError(
    'STATE_VERSION_CONFLICT',
    `group "${group}" of stream "${prefix}" kept changing while its indexes were rebuilt`,
  );
}

function report(ctx: Ctx, prefix: string, group: string, lost: readonly string[], rebuilt: boolean): void {
  ctx.log(
    rebuilt ? 'warn' : 'error',
    rebuilt
      ? 'group lost part of its Redis state; its indexes were rebuilt from the member records'
      : 'group lost part of its Redis state that cannot be rebuilt; it is refused until repaired',
    { streamPrefix: prefix, consumerGroup: group, lostKeys: lost.join(',') },
  );
  ctx.emit({ type: 'integrity', streamPrefix: prefix, consumerGroup: group, lost: [...lost], rebuilt });
}
