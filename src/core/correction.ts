/**
 * Metadata-correction rounds (PROTOCOL §3.8): opened when a member proves the stored
 * `metadataVersion` went backwards, closed once every participant has caught up and no
 * revoke is outstanding.
 */
import { blockedFor, holderIndex, membersInOrder } from './group.js';
import type { HeartbeatInput } from './heartbeat-types.js';
import { type GroupDoc, isLive, type MemberRecord } from './model.js';

/** Step 5 of PROTOCOL §3.3: does this known, non-fenced/expired member take the SYNC_METADATA path? */
export function takesSyncPath(g: GroupDoc, member: MemberRecord, request: HeartbeatInput): boolean {
  if (member.state === 'FENCED' || member.state === 'EXPIRED') return false;
  if (request.metadataVersion > g.metadataVersion) return true;
  return g.metadataCorrection !== null && request.metadataVersion !== g.metadataVersion;
}

/** Records a report of a newer version: opens a fresh round (or widens the open one). */
export function noteNewerVersionDraft(draft: GroupDoc, observed: number, now: number): void {
  const round = draft.metadataCorrection;
  if (round && round.targetMetadataVersion === draft.metadataVersion) {
    round.observedMetadataVersion = Math.max(round.observedMetadataVersion, observed);
    round.updatedAt = now;
    return;
  }
  draft.metadataCorrection = {
    targetMetadataVersion: draft.metadataVersion,
    observedMetadataVersion: observed,
    requestedAt: now,
    updatedAt: now,
    acknowledgedMembers: [],
  };
}

/**
 * On the normal path: discards a round the stored version has moved past, else acknowledges
 * the member when it reports the target version and closes the round when it is done.
 */
export function settleRoundDraft(
  draft: GroupDoc,
  memberId: string,
  reportedVersion: number,
  now: number,
): void {
  const round = draft.metadataCorrection;
  if (!round) return;
  if (draft.metadataVersion !== round.targetMetadataVersion) {
    draft.metadataCorrection = null;
    return;
  }
  if (reportedVersion === round.targetMetadataVersion && !round.acknowledgedMembers.includes(memberId)) {
    round.acknowledgedMembers = [...round.acknowledgedMembers, memberId].sort();
    round.updatedAt = now;
  }
  if (roundComplete(draft)) draft.metadataCorrection = null;
}

/**
 * Every participant (live members, and LEAVING members still holding or revoking shards) has
 * acknowledged, nobody is revoking, and no target member waits for a blocked shard.
 */
function roundComplete(g: GroupDoc): boolean {
  const acked = new Set(g.metadataCorrection?.acknowledgedMembers ?? []);
  const index = holderIndex(g);
  for (const m of membersInOrder(g)) {
    const leavingHolder = m.state === 'LEAVING' && (m.currentAssignment.length > 0 || m.revoking.length > 0);
    if ((isLive(m.state) || leavingHolder) && !acked.has(m.memberId)) return false;
    if ((isLive(m.state) || m.state === 'LEAVING') && m.revoking.length > 0) return false;
    if (isLive(m.state) && blockedFor(g, m.memberId, index).length > 0) return false;
  }
  return true;
}
