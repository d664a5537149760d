/**
 * An operator's way out for a group reported corrupt (docs/running-redis.md#when-a-group-is-reported-corrupt):
 * rebuild its derived indexes from the member records, or, when the records themselves are
 * damaged, reset its assignment so every member rejoins.
 */
import type { RepairGroupInput } from '../coordinator-api.js';
import { CoordinatorError } from '../core/errors.js';
import { resetPlan } from '../core/rebuild.js';
import { audit, checkNames, groupNotFound } from './admin.js';
import type { Ctx } from './context.js';
import { REBUILD_ATTEMPTS, rebuildIndexes } from './integrity.js';

/**
 * Repairs a group reported corrupt. `rebuild` restores every derived index from the member
 * records (targets through a new assignment round); it is refused (METADATA_CORRUPT) when the
 * records or the header themselves are damaged. `reset` deletes the group's assignment state and
 * makes every member rejoin at epoch 0, behind a recovery hold of one member lease so no shard is
 * read by two members meanwhile. Audited.
 */
export async function repairGroup(
  ctx: Ctx,
  prefix: string,
  group: string,
  input: RepairGroupInput,
): Promise<void> {
  checkNames(prefix, group);
  const snap = await ctx.store.load(prefix, []);
  if (!snap?.stream.groups.includes(group)) throw groupNotFound(prefix, group);
  if (input.mode === 'rebuild') {
    if (!(await rebuildIndexes(ctx, prefix, group, ALL_DERIVED))) throw groupNotFound(prefix, group);
  } else {
    await resetGroup(ctx, prefix, group);
  }
  audit(ctx, 'group repaired', prefix, group, input, { mode: input.mode });
}

/**
 * What an operator's rebuild restores: every index the records imply exactly. Targets are kept (a
 * lost targets index is found and rebuilt on the next read anyway): clearing them would move
 * shards between healthy members for nothing.
 */
const ALL_DERIVED = ['st', 'o', 'leases', 'tm'];

async function resetGroup(ctx: Ctx, prefix: string, group: string): Promise<void> {
  for (let attempt = 1; attempt <= REBUILD_ATTEMPTS; attempt++) {
    const read = await ctx.store.readGroupRecords(prefix, group);
    if (!read) throw groupNotFound(prefix, group);
    const ops = resetPlan(
      {
        header: read.header,
        members: read.members,
        memberCount: read.members.size + read.unreadable.length,
        highestEpoch: read.highestEpoch,
      },
      ctx.now(),
      ctx.protocol,
    );
    const r = await ctx.store.commit({ prefix, groups: [{ name: group, ops }] });
    ctx.emit({ type: 'commit', ok: r.ok, scope: 'group' });
    if (r.ok) return;
  }
  throw new CoordinatorError(
    'STATE_VERSION_CONFLICT',
    `group "${group}" of stream "${prefix}" kept changing while it was reset`,
  );
}
