/**
 * Time-driven group maintenance (PROTOCOL §3.7, §3.9, SPEC §8.3): lease expiry, the lapse of
 * blocking fences, rebalance deadlines and timeout fencing, pruning. Runs at the start of
 * every heartbeat and from the sweep.
 */
import {
  bumpBoth,
  cloneGroup,
  fenceDraft,
  membersInOrder,
  reconcileDraft,
  releaseHoldings,
  toRelease,
  tracksDeadline,
} from './group.js';
import { sameGroup } from './group-equality.js';
import { type GroupDoc, isLive, type MemberRecord, type ProtocolConfig, type StreamDoc } from './model.js';

/** True when a and b differ at most in liveness fields (memberLeaseExpiresAt, lastHeartbeatAt, shardProgress, updatedAt of group). */
export { durablyEqual } from './group-equality.js';

/** Lease expiry (§3.9), rebalance-timeout deadlines and fencing (§3.7), pruning, blocking-fence lease lapse, reconcile if needed. Returns the same object reference if nothing changed. */
export function housekeepGroup(args: {
  stream: StreamDoc;
  group: GroupDoc;
  config: ProtocolConfig;
  now: number;
}): GroupDoc {
  const { stream, group, config, now } = args;
  const draft = cloneGroup(group);
  expireDraft(stream, draft, config, now);
  enforceTimeoutsDraft(stream, draft, config, now);
  pruneDraft(draft, config, now);
  if (sameGroup(draft, group)) return group;
  draft.updatedAt = now;
  return draft;
}

/** Re-run the target assignment + group state for the stream's current assignable set (used after shard-count changes); bumps nothing. */
export function reconcileGroup(
  stream: StreamDoc,
  group: GroupDoc,
  config: ProtocolConfig,
  now: number,
): GroupDoc {
  const draft = cloneGroup(group);
  settleDraft(stream, draft, config, now);
  if (sameGroup(draft, group)) return group;
  draft.updatedAt = now;
  return draft;
}

/** Members that are live (ACTIVE/STARTING) in `before` and EXPIRED in `after`, with the lease `before` had. */
export function newlyExpired(
  before: GroupDoc,
  after: GroupDoc,
): Array<{ memberId: string; observedLeaseExpiresAt: number }> {
  return membersInOrder(before)
    .filter((b) => isLive(b.state) && after.members[b.memberId]?.state === 'EXPIRED')
    .map((b) => ({ memberId: b.memberId, observedLeaseExpiresAt: b.memberLeaseExpiresAt }));
}

/**
 * Step 4 of PROTOCOL §3.3 on a draft: expiry, blocking-fence lapse (one bump for both, then
 * reconcile) and pruning. Rebalance timeouts are left to step 9, after the member's report.
 */
export function maintainDraft(stream: StreamDoc, draft: GroupDoc, config: ProtocolConfig, now: number): void {
  expireDraft(stream, draft, config, now);
  pruneDraft(draft, config, now);
}

/**
 * Expires live members whose lease passed (`memberEpoch + 1`, current kept for diagnostics)
 * and ends blocking fences whose lease passed (holdings released). One bump per pass.
 */
function expireDraft(stream: StreamDoc, draft: GroupDoc, config: ProtocolConfig, now: number): void {
  let changed = false;
  for (const m of Object.values(draft.members)) {
    if (now <= m.memberLeaseExpiresAt) continue;
    if (isLive(m.state)) {
      m.state = 'EXPIRED';
      m.memberEpoch += 1;
      m.previousEpoch = null;
      m.rebalanceDeadlineAt = null;
      changed = true;
    } else if (m.state === 'FENCED' && m.fence === 'BLOCKING') {
      m.fence = 'RELEASED';
      releaseHoldings(m);
      changed = true;
    }
  }
  if (!changed) return;
  bumpBoth(draft);
  settleDraft(stream, draft, config, now);
}

/**
 * Rebalance timeouts (PROTOCOL §3.7): sets or clears deadlines and fences (RELEASED, as the
 * reference) every member whose deadline has come; one bump per pass, then reconcile.
 * Returns the ids fenced.
 */
export function enforceTimeoutsDraft(
  stream: StreamDoc,
  draft: GroupDoc,
  config: ProtocolConfig,
  now: number,
): string[] {
  const fenced = refreshDeadlines(draft, config, now, true);
  if (fenced.length > 0) {
    bumpBoth(draft);
    settleDraft(stream, draft, config, now);
  }
  return fenced;
}

/** Reconcile, then set or clear rebalance deadlines for the new targets (no fencing). */
export function settleDraft(stream: StreamDoc, draft: GroupDoc, config: ProtocolConfig, now: number): void {
  reconcileDraft(stream, draft);
  refreshDeadlines(draft, config, now, false);
}

/** Sets a deadline once for members with shards to release, clears it otherwise; fences at the deadline when asked. */
function refreshDeadlines(draft: GroupDoc, config: ProtocolConfig, now: number, fence: boolean): string[] {
  const fenced: string[] = [];
  // Each member is judged on its own; fence epochs use the group epoch before this pass's bump.
  for (const m of Object.values(draft.members)) {
    if (!tracksDeadline(m)) continue;
    if (toRelease(draft, m).length === 0) {
      m.rebalanceDeadlineAt = null;
    } else if (m.rebalanceDeadlineAt === null) {
      m.rebalanceDeadlineAt = now + config.rebalanceTimeoutMs;
    } else if (fence && now >= m.rebalanceDeadlineAt) {
      fenceDraft(draft, m.memberId, 'RELEASED');
      fenced.push(m.memberId);
    }
  }
  return fenced;
}

/** True when a member record may be pruned once its retention has passed (PROTOCOL §3.9). */
export function prunable(m: MemberRecord): boolean {
  if (m.state === 'EXPIRED') return true;
  // A blocking fence is pruned only after its lease lapsed (its holdings must stay visible).
  if (m.state === 'FENCED') return m.fence !== 'BLOCKING';
  return m.state === 'LEAVING' && m.currentAssignment.length === 0 && m.revoking.length === 0;
}

/** The moment a prunable member is deleted. */
export function pruneAt(m: MemberRecord, config: ProtocolConfig): number {
  return m.lastHeartbeatAt + config.staleMemberRetentionMs;
}

/** Deletes stale terminal members; `metadataVersion + 1` per pass (no group-epoch bump). */
function pruneDraft(draft: GroupDoc, config: ProtocolConfig, now: number): void {
  let pruned = false;
  for (const m of Object.values(draft.members)) {
    if (prunable(m) && now >= pruneAt(m, config)) {
      delete draft.members[m.memberId];
      delete draft.targetAssignments[m.memberId];
      pruned = true;
    }
  }
  if (pruned) draft.metadataVersion += 1;
}
