/**
 * The shape of heartbeat answers (docs/protocol.md#assignment-view): the assignment view a decision grants, and
 * group-scoped or rejected answers. Pure; used by `member-heartbeat.ts` and `pacing.ts`.
 */
import type { HeartbeatInput, HeartbeatOutput } from './heartbeat-types.js';
import { type GroupHeader, isAssignable, type MemberView } from './member-view.js';
import type { GroupDoc, MemberRecord } from './model.js';
import { intersect, minus, sortedShards } from './shard-set.js';

/** Assigned and pending shards of one answer. */
export interface AssignmentView {
  assigned: number[];
  pending: number[];
}

/**
 * The view of docs/protocol.md#assignment-view for `status`, recorded as the member's grant (`member` is the
 * decision's own copy). `keep` is the set the member may keep under SYNC_METADATA (its report)
 * or REVOKE_PENDING (its current set); OK grants the whole unblocked assignable target.
 */
export function grant(
  view: MemberView,
  status: 'OK' | 'SYNC_METADATA' | 'REVOKE_PENDING',
  keep: readonly number[],
  member: MemberRecord,
): AssignmentView {
  const target = view.target.filter((s) => isAssignable(view.stream, s));
  const free = target.filter((s) => !view.blockedByOther(s));
  const assigned = status === 'OK' ? sortedShards(free) : intersect(keep, free);
  member.grantedAssignment = assigned;
  return { assigned, pending: minus(target, assigned) };
}

export function grantNothing(member: MemberRecord): AssignmentView {
  member.grantedAssignment = [];
  return { assigned: [], pending: [] };
}

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

/** A group-scoped answer with the header's epochs and version. */
export function answer(
  status: HeartbeatOutput['status'],
  h: GroupHeader,
  memberId: string,
  memberEpoch: number,
  shown: AssignmentView = { assigned: [], pending: [] },
): HeartbeatOutput {
  return {
    status,
    memberId,
    memberEpoch,
    groupEpoch: h.groupEpoch,
    assignmentEpoch: h.assignmentEpoch,
    metadataVersion: h.metadataVersion,
    assignedShards: shown.assigned,
    pendingShards: shown.pending,
    assignmentMetadataVersion: h.metadataVersion,
  };
}

/** `response` carrying the group's epochs and version as they are now. */
export function withEpochsOf(
  response: HeartbeatOutput,
  g: Pick<GroupDoc, 'groupEpoch' | 'assignmentEpoch' | 'metadataVersion'>,
): HeartbeatOutput {
  return {
    ...response,
    groupEpoch: g.groupEpoch,
    assignmentEpoch: g.assignmentEpoch,
    metadataVersion: g.metadataVersion,
    assignmentMetadataVersion: g.metadataVersion,
  };
}
