/**
 * Server-paced convergence. Two things decide how soon a group converges after its
 * membership moves, and how hard its members hit the coordinators meanwhile:
 *
 * - **When the assignment round runs.** A change into a settled group is assigned at once. A
 *   change while another is still unassigned (a storm of joins, a rolling restart) is coalesced:
 *   the round waits until membership has been quiet for a short while, or until the oldest
 *   unassigned change has waited a longer bound — Kafka's `group.initial.rebalance.delay.ms` and
 *   KIP-848's `group.consumer.assignment.interval.ms`, applied only under churn. One round then
 *   places a thousand joiners instead of moving shards between them a dozen times.
 * - **When a member comes back.** A member with work in progress (pending shards, shards to give
 *   up, more than its fair share of a growing group) is answered with a short interval; a member
 *   without a target comes back when the round is due, at its own place in the queue of changes
 *   the round takes in, so the answers a round makes possible arrive spread out, not at once.
 */
import type { AssignmentView } from './heartbeat-answer.js';
import type { GroupHeader, MemberView } from './member-view.js';
import type { ProtocolConfig } from './model.js';

/** The longest a member with work in progress waits, however long the steady interval is. */
const PACED_MAX_MS = 500;

/**
 * The short interval a member with work in progress is asked to come back after: a sixth of the
 * interval, at least 100 ms and at most 500 ms, so an operator who lengthens the steady interval
 * to save requests does not slow a move (docs/protocol.md#paced-intervals).
 */
export function pacedIntervalMs(config: Pick<ProtocolConfig, 'heartbeatIntervalMs'>): number {
  const i = config.heartbeatIntervalMs;
  return Math.max(Math.min(100, i), Math.min(PACED_MAX_MS, Math.round(i / 6)));
}

/** How long membership must stay quiet before a coalesced round runs (a twelfth of the interval). */
export function assignmentQuietMs(config: ProtocolConfig): number {
  return Math.max(10, Math.round(config.heartbeatIntervalMs / 12));
}

/** The longest an unassigned change waits while membership keeps moving (a third of the interval). */
export function assignmentMaxDelayMs(config: ProtocolConfig): number {
  return Math.max(assignmentQuietMs(config), Math.round(config.heartbeatIntervalMs / 3));
}

/** Spacing of the members a round assigns, per change it takes in (ms). */
const SPREAD_MS_PER_CHANGE = 2;

/**
 * Live members from which a group's changes are coalesced. Below, a round costs about a
 * millisecond and a join moves a few shards: each change is assigned at once (as the reference
 * does), which converges a small group fastest.
 */
export const COALESCE_FROM_MEMBERS = 256;

/**
 * When the round for the group's unassigned changes is due: in a group of `liveMembers` at
 * least `COALESCE_FROM_MEMBERS`, once membership has been quiet for `assignmentQuietMs` since
 * the last change or `assignmentMaxDelayMs` after the oldest one; in a smaller group, at once.
 * Null when nothing is unassigned.
 */
export function roundDueAt(h: GroupHeader, config: ProtocolConfig, liveMembers: number): number | null {
  if (h.assignmentEpoch >= h.groupEpoch) return null;
  const oldest = h.pendingSince ?? h.updatedAt;
  if (liveMembers < COALESCE_FROM_MEMBERS) return oldest;
  return Math.min(h.updatedAt + assignmentQuietMs(config), oldest + assignmentMaxDelayMs(config));
}

/**
 * The header right after a change committed at `now` onto the one read (`after` holds the
 * epochs the commit returned): the change is the oldest unassigned one unless one was pending.
 */
export function headerAfterChange(
  read: GroupHeader,
  after: { groupEpoch: number; assignmentEpoch: number; metadataVersion: number },
  now: number,
): GroupHeader {
  const pending = read.assignmentEpoch < read.groupEpoch ? read.pendingSince : undefined;
  return { ...read, ...after, updatedAt: now, pendingSince: pending ?? now };
}

/**
 * Whether a change committed at `now` onto the header `read` is assigned at once: the group had
 * nothing unassigned (the change leads), or the coalesced round is due.
 */
export function assignsAtOnce(
  read: GroupHeader,
  config: ProtocolConfig,
  liveMembers: number,
  now: number,
): boolean {
  if (read.assignmentEpoch >= read.groupEpoch) return true;
  const due = roundDueAt(read, config, liveMembers);
  return due !== null && now >= due;
}

/**
 * How long a member without a target (epoch `memberEpoch`) waits before coming back: until the
 * round is due plus its place among the changes the round takes in (its epoch is the group
 * epoch its join made), never under a twentieth of the interval nor over the interval.
 * `liveMembers` counts the group's live members as read (the joiner included or not).
 */
export function roundWaitMs(
  h: GroupHeader,
  memberEpoch: number,
  config: ProtocolConfig,
  liveMembers: number,
  now: number,
): number {
  const interval = config.heartbeatIntervalMs;
  const due = roundDueAt(h, config, liveMembers) ?? now;
  const place = Math.max(0, memberEpoch - h.assignmentEpoch - 1);
  const at = due + Math.min(interval, place * SPREAD_MS_PER_CHANGE);
  return Math.min(interval, Math.max(Math.round(interval / 20), at - now));
}

/**
 * The interval a member is answered with (undefined = the configured one): a member that waits
 * for a shard (pending), must give shards up (it reported shards it is no longer assigned), or
 * holds more than a fair share of the group's shards while others are live (a group that is
 * growing: the next round takes some away, and other members wait for them) comes back after
 * `pacedIntervalMs`; one without a target while a round is pending comes back per `roundWaitMs`.
 */
export function pacedInterval(
  config: ProtocolConfig,
  view: MemberView,
  shown: AssignmentView,
  reported: readonly number[],
  now: number,
): number | undefined {
  if (view.target.length === 0 && view.header.assignmentEpoch < view.header.groupEpoch) {
    return roundWaitMs(
      view.header,
      view.member?.memberEpoch ?? view.header.groupEpoch,
      config,
      view.liveMembers,
      now,
    );
  }
  const assigned = new Set(shown.assigned);
  const mustDrop = reported.some((s) => !assigned.has(s));
  const live = Math.max(1, view.liveMembers);
  const fairShare = Math.ceil((view.stream.shardCount + view.stream.extraAssignable.length) / live);
  const overShare = live > 1 && shown.assigned.length > fairShare;
  return shown.pending.length > 0 || mustDrop || overShare ? pacedIntervalMs(config) : undefined;
}
