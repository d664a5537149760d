/**
 * Read-only views of a group for monitoring (docs/protocol.md#streams-and-groups, docs/protocol.md#monitoring-views).
 */

import { dict, own } from './dict.js';
import { blocksOthers, groupStateOf, holdings, membersInOrder } from './group.js';
import {
  assignableShards,
  consumableShards,
  type GroupDoc,
  type GroupState,
  isLive,
  type MemberRecord,
  type StreamDoc,
} from './model.js';
import { compareIds } from './shard-set.js';

/** docs/protocol.md#monitoring-views assignments `invariantViolations` texts, using the consumable set instead of "readable" (docs/protocol.md#resharding). Also report a shard held (current/granted/revoking) by two live members. */
export function invariantViolations(stream: StreamDoc, group: GroupDoc): string[] {
  const out: string[] = [];
  const targetOwners = new Map<number, string[]>();
  for (const id of Object.keys(group.targetAssignments).sort(compareIds)) {
    if (!own(group.members, id)) out.push(`target assignment references unknown member ${id}`);
    for (const s of own(group.targetAssignments, id) ?? [])
      targetOwners.set(s, [...(targetOwners.get(s) ?? []), id]);
  }

  // Removed shards with drain evidence are consumable but deliberately in no target (docs/protocol.md#resharding),
  // so "no target owner" is checked over the assignable part of the consumable set.
  const someActive = Object.values(group.members).some((m) => m.state === 'ACTIVE');
  if (someActive) {
    for (const s of assignableShards(stream)) {
      if (!targetOwners.has(s)) out.push(`readable shard ${shardText(s)} has no target owner`);
    }
  }
  const consumable = new Set(consumableShards(stream));
  for (const [s, owners] of [...targetOwners].sort((a, b) => a[0] - b[0])) {
    if (owners.length > 1 && consumable.has(s)) {
      out.push(`readable shard ${shardText(s)} has duplicate target owners [${owners.join(', ')}]`);
    }
  }

  if (group.state !== 'EMPTY' && group.assignmentEpoch !== group.groupEpoch) {
    out.push(`assignmentEpoch ${group.assignmentEpoch} does not match groupEpoch ${group.groupEpoch}`);
  }

  const holders = new Map<number, string[]>();
  for (const m of membersInOrder(group)) {
    if (!blocksOthers(m)) continue;
    for (const s of holdings(m)) holders.set(s, [...(holders.get(s) ?? []), m.memberId]);
  }
  for (const [s, ids] of [...holders].sort((a, b) => a[0] - b[0])) {
    if (ids.length > 1) out.push(`shard ${shardText(s)} is held by more than one member [${ids.join(', ')}]`);
  }
  return out;
}

/** targetAssignmentSummary / currentAssignmentSummary of GroupResponse (docs/protocol.md#streams-and-groups). */
export function assignmentSummaries(group: GroupDoc): {
  target: Record<string, number>;
  current: Record<string, number>;
} {
  const target = dict<number>();
  const current = dict<number>();
  for (const m of membersInOrder(group)) {
    if (isLive(m.state)) target[m.memberId] = own(group.targetAssignments, m.memberId)?.length ?? 0;
    if ((isLive(m.state) || m.state === 'LEAVING') && m.currentAssignment.length > 0) {
      current[m.memberId] = m.currentAssignment.length;
    }
  }
  return { target, current };
}

/**
 * The group as it stands at `now` for readers: a live member whose lease has lapsed is shown
 * EXPIRED (as the next sweep will record it; on Workers that sweep may be a minute away), so no
 * view lists it as a current owner or counts it live. Its record — epoch, last assignment,
 * progress — stays as history. Nothing is written; `group` itself when no lease has lapsed.
 */
export function observedAt(group: GroupDoc, now: number): GroupDoc {
  const lapsed = Object.values(group.members).filter((m) => isLive(m.state) && now > m.memberLeaseExpiresAt);
  if (lapsed.length === 0) return group;
  const members = Object.assign(dict<MemberRecord>(), group.members);
  for (const m of lapsed) members[m.memberId] = { ...m, state: 'EXPIRED', rebalanceDeadlineAt: null };
  const seen = { ...group, members };
  return { ...seen, state: groupStateOf(seen) };
}

/** The reference's rendering of a shard in operator texts. */
function shardText(shard: number): string {
  return `ShardId(shardIndex=${shard})`;
}

/**
 * The group's state as monitoring reports it: never STABLE while a consumable shard of `stream`
 * is read by no live member or by two (which a group that lost part of its Redis state could
 * otherwise look like); such a group reads RECONCILING until it has converged again.
 */
export function reportedState(
  stream: Pick<StreamDoc, 'shardCount' | 'removedShards'>,
  group: GroupDoc,
): GroupState {
  if (group.state !== 'STABLE') return group.state;
  const readers = new Map<number, number>();
  for (const m of Object.values(group.members)) {
    if (!isLive(m.state)) continue;
    for (const s of m.currentAssignment) readers.set(s, (readers.get(s) ?? 0) + 1);
  }
  return consumableShards(stream).every((s) => readers.get(s) === 1) ? 'STABLE' : 'RECONCILING';
}
