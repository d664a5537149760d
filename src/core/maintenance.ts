/**
 * Time-driven transitions of individual members (docs/protocol.md#revoke-before-assign, docs/protocol.md#leaving, docs/protocol.md#blocking-fences): lease expiry,
 * the lapse of blocking fences, rebalance-timeout fencing and pruning. Decided per member from
 * that member's record and target only, so the Redis path runs them for the few members its
 * time indexes name as due (O(log N + k)), and the whole-group composition for every member.
 */
import { fencedMember } from './member-heartbeat.js';
import { isLive, type MemberRecord, type ProtocolConfig } from './model.js';
import { minus, union } from './shard-set.js';

/**
 * One member the maintenance pass looks at, with the target it has now. The Redis path reads
 * both through getters that record what the pass consults, so its commit checks exactly that
 * (`read-set.ts`): a pass must consult them here, not through copies made beforehand.
 */
export interface DueMember {
  readonly member: MemberRecord;
  readonly target: readonly number[];
}

/** What one maintenance pass decided. */
export interface MaintenanceOutcome {
  /** Records that changed, by member id. */
  changed: Map<string, MemberRecord>;
  /** Members to delete (pruned). */
  pruned: string[];
  /** `groupEpoch + 1, metadataVersion + 1` bumps (one for expiries, one for timeout fences). */
  bumps: number;
  /** `metadataVersion + 1` bumps without a group-epoch bump (pruning). */
  metadataBumps: number;
}

/** Shards a member still has to give up: `(current ∪ revoking) − target` (docs/protocol.md#revoke-before-assign). */
function releaseOf(m: MemberRecord, target: readonly number[]): number[] {
  if (m.currentAssignment.length === 0 && m.revoking.length === 0) return [];
  return minus(union(m.currentAssignment, m.revoking), target);
}

/** True when a member record may be pruned once its retention has passed (docs/protocol.md#leaving). */
function prunable(m: MemberRecord): boolean {
  if (m.state === 'EXPIRED') return true;
  // A blocking fence is pruned only after its lease lapsed (its holdings must stay visible).
  if (m.state === 'FENCED') return m.fence !== 'BLOCKING';
  return m.state === 'LEAVING' && m.currentAssignment.length === 0 && m.revoking.length === 0;
}

/** The moment a prunable member is deleted. */
function pruneAt(m: MemberRecord, config: Pick<ProtocolConfig, 'staleMemberRetentionMs'>): number {
  return m.lastHeartbeatAt + config.staleMemberRetentionMs;
}

/**
 * The next moment time alone changes this member (besides a live member's lease, which the
 * lease index tracks, and the rebalance deadline, which the deadline index tracks): the lapse
 * of a blocking fence or the prune time. Null when none.
 */
export function nextTimerAt(
  m: MemberRecord,
  config: Pick<ProtocolConfig, 'staleMemberRetentionMs'>,
): number | null {
  if (m.state === 'FENCED' && m.fence === 'BLOCKING') return m.memberLeaseExpiresAt + 1;
  return prunable(m) ? pruneAt(m, config) : null;
}

/** Members whose rebalance deadline is tracked: ACTIVE/STARTING/LEAVING. */
export function tracksDeadline(m: MemberRecord): boolean {
  return isLive(m.state) || m.state === 'LEAVING';
}

/**
 * One maintenance pass at `now` over `due` members, in the order of docs/protocol.md#processing-order and
 * docs/protocol.md#rebalance-timeout: expiry of live members whose lease passed (`memberEpoch + 1`) and the lapse of blocking
 * fences (holdings released) — one bump for all; then rebalance-timeout fences of members whose
 * deadline has come and who still hold shards outside their target (RELEASED, as the reference)
 * — one bump for all; then pruning (`metadataVersion + 1`). `groupEpoch` is the group's before
 * this pass. Deadlines of members in `skipDeadline` are left to their own heartbeat.
 */
export function maintain(
  due: readonly DueMember[],
  groupEpoch: number,
  now: number,
  config: ProtocolConfig,
  skipDeadline: ReadonlySet<string> = new Set(),
): MaintenanceOutcome {
  const out: MaintenanceOutcome = { changed: new Map(), pruned: [], bumps: 0, metadataBumps: 0 };
  const current = (d: DueMember) => out.changed.get(d.member.memberId) ?? d.member;

  let expiredAny = false;
  for (const d of due) {
    const m = d.member;
    if (now <= m.memberLeaseExpiresAt) continue;
    if (isLive(m.state)) {
      out.changed.set(m.memberId, {
        ...m,
        state: 'EXPIRED',
        memberEpoch: m.memberEpoch + 1,
        previousEpoch: null,
        rebalanceDeadlineAt: null,
      });
      expiredAny = true;
    } else if (m.state === 'FENCED' && m.fence === 'BLOCKING') {
      out.changed.set(m.memberId, {
        ...m,
        fence: 'RELEASED',
        currentAssignment: [],
        grantedAssignment: [],
        revoking: [],
      });
      expiredAny = true;
    }
  }
  let epoch = groupEpoch;
  if (expiredAny) {
    out.bumps++;
    epoch++;
  }

  let fencedAny = false;
  for (const d of due) {
    const m = current(d);
    if (skipDeadline.has(m.memberId) || !tracksDeadline(m) || m.rebalanceDeadlineAt === null) continue;
    if (releaseOf(m, d.target).length === 0) {
      out.changed.set(m.memberId, { ...m, rebalanceDeadlineAt: null });
    } else if (now >= m.rebalanceDeadlineAt) {
      out.changed.set(m.memberId, fencedMember(m, epoch, 'RELEASED'));
      fencedAny = true;
    }
  }
  if (fencedAny) out.bumps++;

  for (const d of due) {
    const m = current(d);
    if (prunable(m) && now >= pruneAt(m, config)) {
      out.pruned.push(m.memberId);
      out.changed.delete(m.memberId);
    }
  }
  if (out.pruned.length > 0) out.metadataBumps++;
  return out;
}
