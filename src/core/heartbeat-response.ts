/**
 * Heartbeat answer shapes (PROTOCOL §3.2) and assignment views (§3.6).
 */
import { blockedFor, targetOf } from './group.js';
import type { HeartbeatInput, HeartbeatOutput } from './heartbeat-types.js';
import type { GroupDoc, HeartbeatStatus } from './model.js';
import { intersect, minus } from './shard-set.js';

/** Rejected answer: the request's epoch, zero group epochs and versions, empty assignment. */
export function rejected(
  status: 'UNSUPPORTED_PROTOCOL' | 'INVALID_REQUEST' | 'UNKNOWN_MEMBER_ID',
  request: HeartbeatInput,
): HeartbeatOutput {
  return {
    status,
    memberId: request.memberId,
    memberEpoch: request.memberEpoch,
    groupEpoch: 0,
    assignmentEpoch: 0,
    metadataVersion: 0,
    assignedShards: [],
    pendingShards: [],
    assignmentMetadataVersion: 0,
  };
}

/** A group-scoped answer with the group's current epochs and version. */
export function answer(
  status: HeartbeatStatus,
  g: GroupDoc,
  memberId: string,
  memberEpoch: number,
  view: AssignmentView = { assigned: [], pending: [] },
): HeartbeatOutput {
  return {
    status,
    memberId,
    memberEpoch,
    groupEpoch: g.groupEpoch,
    assignmentEpoch: g.assignmentEpoch,
    metadataVersion: g.metadataVersion,
    assignedShards: view.assigned,
    pendingShards: view.pending,
    assignmentMetadataVersion: g.metadataVersion,
  };
}

/** Fenced answer: the member's stored epoch, current group epochs, empty assignment. */
export function fenced(g: GroupDoc, memberId: string): HeartbeatOutput {
  return answer('FENCED_MEMBER_EPOCH', g, memberId, g.members[memberId]?.memberEpoch ?? 0);
}

/** Assigned and pending shards of one answer. */
export interface AssignmentView {
  assigned: number[];
  pending: number[];
}

/**
 * The view of PROTOCOL §3.6 for `status`, recorded as the member's grant. `keep` is the set
 * the member may keep under SYNC_METADATA (its report) or REVOKE_PENDING (its current set);
 * OK grants the whole unblocked target.
 */
export function grantView(
  draft: GroupDoc,
  memberId: string,
  status: 'OK' | 'SYNC_METADATA' | 'REVOKE_PENDING',
  keep: number[] = [],
): AssignmentView {
  const target = targetOf(draft, memberId);
  const free = minus(target, blockedFor(draft, memberId));
  const assigned = status === 'OK' ? free : intersect(keep, free);
  const member = draft.members[memberId];
  if (member) member.grantedAssignment = assigned;
  return { assigned, pending: minus(target, assigned) };
}
