/**
 * A member's view (`MemberView`) built from a whole group document, for unit tests of the pure
 * heartbeat decision: production builds the view from the store's per-member read instead.
 */
import { own } from '../../src/core/dict.js';
import { blocksOthers, holdings } from '../../src/core/group.js';
import type { GroupHeader, MemberView, StreamView } from '../../src/core/member-view.js';
import { type GroupDoc, isLive } from '../../src/core/model.js';

/** The header part of a group document. */
function headerOf(g: GroupDoc): GroupHeader {
  const c = g.metadataCorrection;
  return {
    groupEpoch: g.groupEpoch,
    assignmentEpoch: g.assignmentEpoch,
    metadataVersion: g.metadataVersion,
    correction: c && {
      targetMetadataVersion: c.targetMetadataVersion,
      observedMetadataVersion: c.observedMetadataVersion,
      requestedAt: c.requestedAt,
      updatedAt: c.updatedAt,
    },
    createdAt: g.createdAt,
    updatedAt: g.updatedAt,
  };
}

/** Blocking holders of each shard in a whole group document (member ids). */
function blockingHolders(g: GroupDoc): Map<number, string[]> {
  const index = new Map<number, string[]>();
  for (const m of Object.values(g.members)) {
    if (!blocksOthers(m)) continue;
    for (const s of holdings(m)) {
      const ids = index.get(s);
      if (ids) ids.push(m.memberId);
      else index.set(s, [m.memberId]);
    }
  }
  return index;
}

/** The view of member `memberId` in a whole group document (what the pure composition uses). */
export function viewFromGroup(
  stream: StreamView,
  g: GroupDoc,
  memberId: string,
  roundComplete?: MemberView['roundComplete'],
): MemberView {
  const index = blockingHolders(g);
  const view: MemberView = {
    stream,
    header: headerOf(g),
    member: own(g.members, memberId) ?? null,
    target: own(g.targetAssignments, memberId) ?? [],
    blockedByOther: (s) => (index.get(s) ?? []).some((id) => id !== memberId),
    acknowledged: g.metadataCorrection?.acknowledgedMembers.includes(memberId) ?? false,
    liveMembers: Object.values(g.members).filter((m) => isLive(m.state)).length,
  };
  if (roundComplete) view.roundComplete = roundComplete;
  return view;
}
