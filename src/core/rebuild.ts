/**
 * Rebuilding a group's derived indexes from its member records (docs/running-redis.md#when-a-group-is-reported-corrupt).
 * The records are the source of truth; holder statuses, ownership, leases and timers follow from
 * them exactly, as `memberOps` maintains them on every commit. Targets are an assignment round's
 * output: a lost targets index is cleared and a round is made due, whose revoke-before-assign
 * rules then apply as always. Pure: the caller reads, commits the plan, and retries on a conflict.
 */
import { kindsOf, type OwnerKind, type PlanOp, type RecordAt, statusOf } from './commit-plan.js';
import { nextTimerAt } from './maintenance.js';
import type { GroupHeader } from './member-view.js';
import { isLive, type ProtocolConfig } from './model.js';

/** What a rebuild reads: every record with its revision, and what the indexes still hold. */
export interface RebuildInput {
  /** The group header as read; null when it is lost or unreadable. */
  header: GroupHeader | null;
  members: ReadonlyMap<string, RecordAt>;
  /** Members whose stored record does not decode. */
  unreadable: readonly string[];
  /** How many records the header recorded at the last commit (null: none recorded yet). */
  recordedMembers: number | null;
  /** Lease-index scores found (the fast path renews only the index, so it may be ahead of a record). */
  leases: ReadonlyMap<string, number>;
  /** Last heartbeat times found (the fast path writes them too). */
  heartbeats: ReadonlyMap<string, number>;
  /** The lost parts as the read reported them (`st`, `t`, `o`, `leases`, `tm`). */
  lost: readonly string[];
}

/** A rebuild's plan, or why the records themselves cannot be trusted. */
export type RebuildPlan = { ok: true; ops: PlanOp[] } | { ok: false; reason: string };

/**
 * The commit that restores every derived index of a group from its records at `now`. It checks
 * that the records are exactly the ones read (count and revisions), so a member that moved
 * meanwhile makes it fail and the caller reads again.
 */
export function rebuildPlan(
  input: RebuildInput,
  now: number,
  config: Pick<ProtocolConfig, 'memberLeaseTtlMs' | 'staleMemberRetentionMs'>,
): RebuildPlan {
  if (input.header === null) return { ok: false, reason: 'its header is lost or unreadable' };
  if (input.unreadable.length > 0) {
    return { ok: false, reason: `the record of member "${input.unreadable[0]}" is unreadable` };
  }
  if (input.recordedMembers !== null && input.recordedMembers !== input.members.size) {
    return {
      ok: false,
      reason: `its header recorded ${input.recordedMembers} member records and ${input.members.size} are left`,
    };
  }
  const ids = [...input.members.keys()].sort();
  const claimed = new Map<number, { id: string; kind: OwnerKind }>();
  for (const id of ids) {
    for (const [shard, kind] of kindsOf(input.members.get(id)!.record)) {
      const other = claimed.get(shard);
      if (other) {
        return {
          ok: false,
          reason: `members "${other.id}" and "${id}" both hold shard ${shard} in their records`,
        };
      }
      claimed.set(shard, { id, kind });
    }
  }

  const ops: PlanOp[] = [{ k: 'group-exists' }, { k: 'members-are', count: ids.length }];
  for (const id of ids) ops.push({ k: 'record-rev', member: id, rev: input.members.get(id)!.rev });
  for (const index of ['status', 'owners', 'leases', 'timers', 'fast'] as const) {
    ops.push({ k: 'wipe-index', index });
  }
  for (const id of ids) {
    const r = input.members.get(id)!.record;
    ops.push({ k: 'status', member: id, status: statusOf(r) });
    if (isLive(r.state)) {
      // Never shorter than any renewal the index or the heartbeat log shows.
      const beat = input.heartbeats.get(id);
      const lease = Math.max(
        r.memberLeaseExpiresAt,
        input.leases.get(id) ?? Number.NEGATIVE_INFINITY,
        beat === undefined ? Number.NEGATIVE_INFINITY : beat + config.memberLeaseTtlMs,
      );
      ops.push({ k: 'lease', member: id, at: lease });
    }
    const timer = nextTimerAt(r, config);
    if (timer !== null) ops.push({ k: 'timer', member: id, at: timer });
  }
  for (const [shard, { id, kind }] of [...claimed].sort((a, b) => a[0] - b[0])) {
    ops.push({ k: 'owner', shard, owner: { memberId: id, kind } });
  }
  // Heartbeat times and progress only inform: an unreadable log is dropped and written again.
  if (input.lost.includes('live')) ops.push({ k: 'wipe-index', index: 'live' });
  if (input.lost.includes('t')) {
    ops.push({ k: 'wipe-index', index: 'targets' }, { k: 'bump', group: 1, metadata: 0, at: now });
  }
  ops.push({ k: 'touch', at: now });
  return { ok: true, ops };
}

/**
 * An operator's reset of a group whose records cannot be trusted: every key of the group is
 * deleted and a new header is written whose epochs are above any the remaining records, the old
 * header or the stream's record of the highest group epoch show (epochs never go backwards), with a recovery hold of one member lease. Members are
 * answered UNKNOWN_MEMBER_ID and rejoin at epoch 0; while the hold lasts no member is granted a
 * shard it does not report, so a shard read before the reset stays blocked until its reader has
 * heard of the reset or its lease has run out (revoke-before-assign).
 */
export function resetPlan(
  input: Pick<RebuildInput, 'header' | 'members'> & { memberCount: number; highestEpoch: number },
  now: number,
  config: Pick<ProtocolConfig, 'memberLeaseTtlMs'>,
): PlanOp[] {
  const records = [...input.members.values()].map((m) => m.record);
  const epoch = Math.max(
    input.highestEpoch,
    input.header?.groupEpoch ?? 0,
    input.header?.assignmentEpoch ?? 0,
    ...records.map((r) => Math.max(r.memberEpoch, r.previousEpoch ?? 0)),
  );
  const version = Math.max(input.header?.metadataVersion ?? 0, ...records.map((r) => r.metadataVersion));
  return [
    { k: 'members-are', count: input.memberCount },
    {
      k: 'reset-group',
      groupEpoch: epoch + 1,
      metadataVersion: version + 1,
      createdAt: input.header?.createdAt ?? now,
      at: now,
      holdUntil: now + config.memberLeaseTtlMs,
    },
  ];
}
