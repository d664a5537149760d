/**
 * Commit planning: turns a decision into the per-record writes of the split layout
 * (docs/protocol.md#redis-key-layout) and the compare-and-set checks that make it safe without a stream mutex. Pure and
 * table-tested; the store only serialises these operations into one Lua script call. A plan's
 * checks come from what its decision read (`read-set.ts`); the checks here are those of the
 * writes themselves: the revision a record write replaces, the entries a member takes over.
 *
 * Besides the member records, the layout keeps three indexes the planner maintains:
 * - ownership: shard → the member holding it and how (current > revoking > granted);
 * - holder status: member → whether its holdings block others (A live, L leaving, B blocking
 *   fence, X none);
 * - time indexes: live leases, rebalance deadlines, and one timer per member for a blocking
 *   fence's lapse or the prune time.
 */
import { holdings } from './group.js';
import type { HeartbeatOutput } from './heartbeat-types.js';
import { nextTimerAt } from './maintenance.js';
import type { CorrectionRound } from './member-view.js';
import { isLive, type MemberRecord, type ShardProgress } from './model.js';

/** How a member holds a shard. */
export type OwnerKind = 'c' | 'g' | 'r';

/** One ownership-index entry. */
export interface OwnerEntry {
  memberId: string;
  kind: OwnerKind;
}

/** Whether a member's holdings block others (docs/protocol.md#blocking-fences): A live, L leaving, B blocking fence, X none. */
export type HolderStatus = 'A' | 'L' | 'B' | 'X';

/** The holder status a record implies. */
export function statusOf(m: MemberRecord): HolderStatus {
  if (isLive(m.state)) return 'A';
  if (m.state === 'LEAVING') return 'L';
  if (m.state === 'FENCED' && m.fence === 'BLOCKING') return 'B';
  return 'X';
}

/** True when a holder with this status blocks other members. */
export function statusBlocks(status: HolderStatus | null): boolean {
  return status === 'A' || status === 'L' || status === 'B';
}

/** How `m` holds each of its shards (current wins over revoking, revoking over granted). */
export function kindsOf(m: MemberRecord | null): Map<number, OwnerKind> {
  const out = new Map<number, OwnerKind>();
  if (!m) return out;
  for (const s of m.grantedAssignment) out.set(s, 'g');
  for (const s of m.revoking) out.set(s, 'r');
  for (const s of m.currentAssignment) out.set(s, 'c');
  return out;
}

/** A stored record with the revision its compare-and-set checks. */
export interface RecordAt {
  rev: number;
  record: MemberRecord;
}

/** One operation of a group commit: checks first (all must hold), then writes. */
export type PlanOp =
  | { k: 'group-exists' }
  | { k: 'record-rev'; member: string; rev: number | null }
  /** The member's stored target; with `emptyIfAbsent`, an absent one counts as empty (a read that could not tell them apart). */
  | { k: 'target-is'; member: string; target: readonly number[] | null; emptyIfAbsent?: boolean }
  /** The member's rebalance deadline in the deadline index (null = none). */
  | { k: 'deadline-is'; member: string; at: number | null }
  /** The member's holder status (null = none stored). */
  | { k: 'status-is'; member: string; status: HolderStatus | null }
  | { k: 'owner-is'; shard: number; owner: OwnerEntry | null }
  | { k: 'owner-mine'; shard: number; member: string }
  | { k: 'lease-at-most'; member: string; lease: number }
  /** The member is in the lease index, or fewer than `count` members are (a join within the quota). */
  | { k: 'live-below'; member: string; count: number }
  | { k: 'round-is'; round: CorrectionRound | null }
  | { k: 'token-is'; token: string }
  /** The group holds exactly `count` member records (with `record-rev` of each: exactly those). */
  | { k: 'members-are'; count: number }
  /**
   * Deletes every key of the group and writes a new header: epochs as given (assignment epoch =
   * group epoch), and a recovery hold until `holdUntil` (an operator's reset).
   */
  | {
      k: 'reset-group';
      groupEpoch: number;
      metadataVersion: number;
      createdAt: number;
      at: number;
      holdUntil: number;
    }
  /** Deletes one derived index of the group whole (a rebuild, which then writes it again). */
  | { k: 'wipe-index'; index: DerivedIndex }
  | { k: 'record'; member: string; rev: number; record: MemberRecord }
  /** A joiner's record whose epoch becomes max(floor, the group epoch after this commit's bump). */
  | { k: 'joined-record'; member: string; rev: number; record: MemberRecord; floor: number }
  | { k: 'delete-member'; member: string }
  | { k: 'status'; member: string; status: HolderStatus }
  | { k: 'target'; member: string; target: readonly number[] }
  | { k: 'delete-target'; member: string }
  | { k: 'owner'; shard: number; owner: OwnerEntry }
  | { k: 'release-owner'; shard: number; member: string }
  /** `renewal`: the member was live and its lease does not move earlier (no new time-driven work). */
  | { k: 'lease'; member: string; at: number; renewal?: true }
  | { k: 'drop-lease'; member: string }
  | { k: 'live'; member: string; at: number; progress: readonly ShardProgress[] | null }
  | { k: 'deadline'; member: string; at: number; ifAbsent: boolean }
  | { k: 'drop-deadline'; member: string }
  | { k: 'timer'; member: string; at: number }
  | { k: 'drop-timer'; member: string }
  /**
   * Bumps the group epoch and metadata version; a group bump at `at` also records `at` as the
   * time the oldest change not yet assigned was made, unless one is pending already.
   */
  | { k: 'bump'; group: number; metadata: number; at: number }
  /** The epoch an assignment round assigned; changes made since (epoch still behind) count from `at`. */
  | { k: 'assignment-epoch'; value: number; at: number }
  | { k: 'round'; round: CorrectionRound | null; freshAcks: boolean }
  | { k: 'ack'; member: string }
  | { k: 'touch'; at: number }
  | { k: 'fingerprint'; member: string; fingerprint: Fingerprint }
  /**
   * Releases the assignment lock held with `token` (0 ms) or keeps it for `ms` more (a
   * cooldown); with `unlessMovedFrom`, releases it only if the group epoch is still that.
   */
  | { k: 'release-lock'; token: string; ms: number; unlessMovedFrom?: number };

/** The indexes derived from the member records (and the group's targets, which a round derives). */
export type DerivedIndex = 'status' | 'targets' | 'owners' | 'leases' | 'live' | 'timers' | 'fast';

/** What a fast-path answer is valid against (everything it depends on), and the answer. */
export interface Fingerprint {
  groupEpoch: number;
  assignmentEpoch: number;
  metadataVersion: number;
  streamRev: number;
  memberRev: number;
  target: readonly number[];
  /** `heartbeatKey` of the steady request. */
  key: string;
  /** Each pending shard's blocker as read: the ownership entry and its holder's status. */
  waits: ReadonlyArray<{ shard: number; owner: OwnerEntry; status: HolderStatus }>;
  response: HeartbeatOutput;
}

/** Options of `memberOps`. */
export interface MemberOpsOptions {
  /** The record is a joiner's: its epoch is taken from the group epoch after the commit (this floor at least). */
  joinedFloor?: number;
  /** Ownership entries as read, for the shards the decision looked at. */
  owners: ReadonlyMap<number, OwnerEntry | null>;
  staleMemberRetentionMs: number;
  /** Maintain the ownership index for this member. @default true */
  ownership?: boolean;
}

/**
 * The writes taking member `id` from `before` to `after` (null = delete), with the checks that
 * keep them safe: the record's revision, and for every shard it starts to hold, the ownership
 * entry it saw (or that the entry is its own).
 */
export function memberOps(
  id: string,
  before: RecordAt | null,
  after: MemberRecord | null,
  opts: MemberOpsOptions,
): PlanOp[] {
  const ops: PlanOp[] = [{ k: 'record-rev', member: id, rev: before?.rev ?? null }];
  const b = before?.record ?? null;
  if (after === null) {
    ops.push({ k: 'delete-member', member: id });
    for (const s of b ? holdings(b) : []) ops.push({ k: 'release-owner', shard: s, member: id });
    return ops;
  }
  const rev = (before?.rev ?? 0) + 1;
  ops.push(
    opts.joinedFloor === undefined
      ? { k: 'record', member: id, rev, record: after }
      : {
          k: 'joined-record',
          member: id,
          rev,
          record: { ...after, memberEpoch: 0 },
          floor: opts.joinedFloor,
        },
  );
  const status = statusOf(after);
  if (!b || statusOf(b) !== status) ops.push({ k: 'status', member: id, status });

  if (isLive(after.state)) {
    if (!b || !isLive(b.state)) ops.push({ k: 'lease', member: id, at: after.memberLeaseExpiresAt });
    else if (b.memberLeaseExpiresAt !== after.memberLeaseExpiresAt) {
      const at = after.memberLeaseExpiresAt;
      ops.push(
        at > b.memberLeaseExpiresAt
          ? { k: 'lease', member: id, at, renewal: true }
          : { k: 'lease', member: id, at },
      );
    }
  } else if (b && isLive(b.state)) {
    ops.push({ k: 'drop-lease', member: id });
  }
  if (!b || b.lastHeartbeatAt !== after.lastHeartbeatAt || b.shardProgress !== after.shardProgress) {
    const progress = b && b.shardProgress === after.shardProgress ? null : after.shardProgress;
    ops.push({ k: 'live', member: id, at: after.lastHeartbeatAt, progress });
  }

  const retention = { staleMemberRetentionMs: opts.staleMemberRetentionMs };
  const timer = nextTimerAt(after, retention);
  const timerBefore = b ? nextTimerAt(b, retention) : null;
  if (timer !== timerBefore) {
    ops.push(timer === null ? { k: 'drop-timer', member: id } : { k: 'timer', member: id, at: timer });
  }
  const deadline = after.rebalanceDeadlineAt;
  const deadlineBefore = b?.rebalanceDeadlineAt ?? null;
  if (deadline !== deadlineBefore) {
    ops.push(
      deadline === null
        ? { k: 'drop-deadline', member: id }
        : { k: 'deadline', member: id, at: deadline, ifAbsent: deadlineBefore === null },
    );
  }

  if (opts.ownership === false) return ops;
  const kindsBefore = kindsOf(b);
  const kindsAfter = kindsOf(after);
  for (const [s, kind] of kindsAfter) {
    const seen = opts.owners.get(s);
    const mine = seen !== undefined && seen !== null && seen.memberId === id && seen.kind === kind;
    if (mine) continue;
    if (seen === undefined && kindsBefore.get(s) === kind) continue;
    ops.push(
      seen === undefined
        ? { k: 'owner-mine', shard: s, member: id }
        : { k: 'owner-is', shard: s, owner: seen },
    );
    ops.push({ k: 'owner', shard: s, owner: { memberId: id, kind } });
  }
  for (const s of kindsBefore.keys()) {
    if (!kindsAfter.has(s)) ops.push({ k: 'release-owner', shard: s, member: id });
  }
  return ops;
}

/** Puts checks before writes (the script runs them in that order anyway; this keeps plans readable). */
export function ordered(ops: readonly PlanOp[]): PlanOp[] {
  const isCheck = (op: PlanOp) =>
    op.k === 'group-exists' ||
    op.k === 'record-rev' ||
    op.k === 'target-is' ||
    op.k === 'deadline-is' ||
    op.k === 'status-is' ||
    op.k === 'owner-is' ||
    op.k === 'owner-mine' ||
    op.k === 'lease-at-most' ||
    op.k === 'live-below' ||
    op.k === 'round-is' ||
    op.k === 'token-is' ||
    op.k === 'members-are';
  return [...ops.filter(isCheck), ...ops.filter((op) => !isCheck(op))];
}
