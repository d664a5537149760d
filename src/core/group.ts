/**
 * Group-level building blocks shared by heartbeat processing and housekeeping: who holds
 * which shard, what blocks whom, reconcile (targets + group state) and counter bumps.
 *
 * Functions taking a `draft` mutate it; callers pass a private copy (`cloneGroup`), never a
 * document they were given.
 */

import { dict, own } from './dict.js';
import { type GroupDoc, type GroupState, isLive, type MemberRecord } from './model.js';
import { compareIds, sameShards, union } from './shard-set.js';

/** New group doc at creation: groupEpoch 1, metadataVersion 1, assignmentEpoch 1, state EMPTY, no members. */
export function newGroupDoc(streamPrefix: string, consumerGroup: string, now: number): GroupDoc {
  return {
    streamPrefix,
    consumerGroup,
    groupEpoch: 1,
    assignmentEpoch: 1,
    metadataVersion: 1,
    state: 'EMPTY',
    targetAssignments: dict(),
    members: dict(),
    metadataCorrection: null,
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * A private copy to mutate: every object and array the core ever changes in place is copied
 * (cheaper than `structuredClone` for large groups; leaf arrays are replaced, never edited).
 */
export function cloneGroup(g: GroupDoc): GroupDoc {
  const members = dict<MemberRecord>();
  for (const [id, m] of Object.entries(g.members)) {
    members[id] = {
      ...m,
      currentAssignment: [...m.currentAssignment],
      grantedAssignment: [...m.grantedAssignment],
      revoking: [...m.revoking],
      shardProgress: m.shardProgress.map((p) => ({ ...p })),
    };
  }
  const targetAssignments = dict<number[]>();
  for (const [id, t] of Object.entries(g.targetAssignments)) targetAssignments[id] = [...t];
  const round = g.metadataCorrection;
  return {
    ...g,
    members,
    targetAssignments,
    metadataCorrection: round && { ...round, acknowledgedMembers: [...round.acknowledgedMembers] },
  };
}

/**
 * True when the member's holdings block other members: live or LEAVING members
 * (docs/protocol.md#revoke-before-assign), and members fenced for an ownership violation until their lease
 * ends (docs/protocol.md#blocking-fences).
 */
export function blocksOthers(m: MemberRecord): boolean {
  return isLive(m.state) || m.state === 'LEAVING' || (m.state === 'FENCED' && m.fence === 'BLOCKING');
}

/**
 * Everything a member may be reading: reported current, granted by our last answer, and
 * reported non-terminally revoking. Granted counts because an answer we sent may already
 * be acted on before the member reports it.
 */
export function holdings(m: MemberRecord): number[] {
  return union(m.currentAssignment, m.grantedAssignment, m.revoking);
}

/** Members in id order. */
export function membersInOrder(g: GroupDoc): MemberRecord[] {
  return Object.values(g.members).sort((a, b) => compareIds(a.memberId, b.memberId));
}

/** Blocking holders of each shard (member ids), built once per decision. */
export type HolderIndex = Map<number, string[]>;

/** Indexes every blocking member's holdings by shard. */
export function holderIndex(g: GroupDoc): HolderIndex {
  const index: HolderIndex = new Map();
  for (const m of Object.values(g.members)) {
    if (!blocksOthers(m)) continue;
    for (const list of [m.currentAssignment, m.grantedAssignment, m.revoking]) {
      for (const s of list) {
        const ids = index.get(s);
        if (!ids) index.set(s, [m.memberId]);
        else if (ids[ids.length - 1] !== m.memberId) ids.push(m.memberId);
      }
    }
  }
  return index;
}

/** True when a member other than `memberId` holds `shard`. */
function heldByOther(index: HolderIndex, shard: number, memberId: string): boolean {
  return (index.get(shard) ?? []).some((id) => id !== memberId);
}

/** The member's target shards (sorted; empty when it has none). */
function targetOf(g: GroupDoc, memberId: string): number[] {
  return own(g.targetAssignments, memberId) ?? [];
}

/** B of docs/protocol.md#assignment-view: the member's target shards still held by another member. */
export function blockedFor(g: GroupDoc, memberId: string, index: HolderIndex = holderIndex(g)): number[] {
  return targetOf(g, memberId).filter((s) => heldByOther(index, s, memberId));
}

/** Group state of docs/protocol.md#group-states for the current targets and holdings. */
export function groupStateOf(g: GroupDoc): GroupState {
  const live = Object.values(g.members).filter((m) => isLive(m.state));
  if (live.length === 0) return 'EMPTY';
  const index = holderIndex(g);
  for (const m of live) {
    const blocked = blockedFor(g, m.memberId, index);
    if (blocked.length > 0) return 'RECONCILING';
    if (!sameShards(m.currentAssignment, targetOf(g, m.memberId))) return 'RECONCILING';
  }
  return 'STABLE';
}
