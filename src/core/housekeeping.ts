/**
 * Whole-group housekeeping on group documents, for the two decisions that take a whole group:
 * deleting a group (which members are still active) and the stream-wide resharding commits
 * (every group's targets over the new shard sets). It runs the member-level maintenance of
 * `maintenance.ts` over every member and the assignment round of `assignment-round.ts`; the
 * heartbeat path runs the same functions on the members its indexes name as due.
 */
import { assignmentRound } from './assignment-round.js';
import { dict, own } from './dict.js';
import { cloneGroup, groupStateOf, membersInOrder } from './group.js';
import { durablyEqual, sameGroup } from './group-equality.js';
import { maintain } from './maintenance.js';
import { assignableOf, type StreamView, streamViewOf } from './member-view.js';
import { type GroupDoc, isLive, type ProtocolConfig, type StreamDoc } from './model.js';
import { union } from './shard-set.js';

/** Lease expiry, rebalance-timeout fencing, pruning, blocking-fence lease lapse, and the assignment round they call for. Returns the same object reference if nothing changed. */
export function housekeepGroup(args: {
  stream: StreamDoc;
  group: GroupDoc;
  config: ProtocolConfig;
  now: number;
}): GroupDoc {
  const { stream, group, config, now } = args;
  const draft = cloneGroup(group);
  maintainGroupDraft(streamViewOf(stream), draft, config, now);
  return finishGroup(draft, group, now);
}

/**
 * `draft` with its derived state set; `original` itself when nothing changed at all, else the
 * draft with `updatedAt` moved when it changed durably.
 */
function finishGroup(draft: GroupDoc, original: GroupDoc, now: number): GroupDoc {
  draft.state = groupStateOf(draft);
  if (sameGroup(draft, original)) return original;
  if (!durablyEqual(draft, original)) draft.updatedAt = now;
  return draft;
}

/**
 * One maintenance pass over every member of `draft` (expiry, fence lapse, rebalance-timeout
 * fences except for `skipDeadline`, pruning), then the assignment round if the pass (or an
 * earlier change) left one due.
 */
function maintainGroupDraft(
  sv: StreamView,
  draft: GroupDoc,
  config: ProtocolConfig,
  now: number,
  skipDeadline: ReadonlySet<string> = new Set(),
): void {
  const due = membersInOrder(draft).map((member) => ({
    member,
    target: own(draft.targetAssignments, member.memberId) ?? [],
  }));
  const out = maintain(due, draft.groupEpoch, now, config, skipDeadline);
  for (const [id, m] of out.changed) draft.members[id] = m;
  for (const id of out.pruned) {
    delete draft.members[id];
    delete draft.targetAssignments[id];
  }
  draft.groupEpoch += out.bumps;
  draft.metadataVersion += out.bumps + out.metadataBumps;
  if (draft.assignmentEpoch < draft.groupEpoch) recomputeDraft(sv, draft, config, now);
}

/** The assignment round on a whole-group draft: targets, `assignmentEpoch := groupEpoch`, deadlines. */
function recomputeDraft(sv: StreamView, draft: GroupDoc, config: ProtocolConfig, now: number): void {
  const live = Object.values(draft.members)
    .filter((m) => isLive(m.state))
    .map((m) => m.memberId);
  const round = assignmentRound(
    {
      live,
      assignable: assignableOf(sv),
      previous: new Map(Object.entries(draft.targetAssignments)),
      held: (id) => {
        const m = own(draft.members, id)!;
        return union(m.currentAssignment, m.revoking);
      },
      deadline: (id) => own(draft.members, id)?.rebalanceDeadlineAt ?? null,
      groupEpoch: draft.groupEpoch,
    },
    config,
    now,
  );
  draft.targetAssignments = dict(round.targets);
  draft.assignmentEpoch = round.assignmentEpoch;
  for (const [id, at] of round.deadlines) {
    const m = own(draft.members, id);
    if (m) draft.members[id] = { ...m, rebalanceDeadlineAt: at };
  }
}

/** Reconcile then refresh deadlines, on a draft (used after stream-wide bumps). */
export function settleDraft(stream: StreamDoc, draft: GroupDoc, config: ProtocolConfig, now: number): void {
  recomputeDraft(streamViewOf(stream), draft, config, now);
}
