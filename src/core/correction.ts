/**
 * Completion of a metadata-correction round (docs/protocol.md#metadata-correction-rounds): every participant has caught up
 * and no revoke is outstanding. Needs the whole group, so the Redis path asks only once every
 * live member has acknowledged; opening, widening and acknowledging happen per member in
 * `member-heartbeat.ts`.
 */

import { withEntry } from './dict.js';
import { blockedFor, holderIndex, membersInOrder } from './group.js';
import { type GroupDoc, isLive, type MemberRecord } from './model.js';

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

/** `roundComplete` with `after` in place of its stored record and, when `acked`, acknowledged. */
export function roundCompleteWith(g: GroupDoc, after: MemberRecord, acked: boolean): boolean {
  const round = g.metadataCorrection;
  if (!round) return false;
  const acks = acked
    ? [...new Set([...round.acknowledgedMembers, after.memberId])]
    : round.acknowledgedMembers;
  return roundComplete({
    ...g,
    members: withEntry(g.members, after.memberId, after),
    metadataCorrection: { ...round, acknowledgedMembers: acks },
  });
}
