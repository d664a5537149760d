/**
 * The assignment round (docs/protocol.md#sticky-assignment): new sticky, balanced targets
 * for the live members over the assignable shards, `assignmentEpoch := groupEpoch`, and the
 * rebalance deadlines of members that now hold shards outside their target (docs/protocol.md#revoke-before-assign).
 * It runs only when membership or the assignable set changed (the group epoch moved past the
 * assignment epoch), never per heartbeat, and its result names only the targets that changed.
 */
import { targetAssignment } from './assignment.js';
import type { ProtocolConfig } from './model.js';
import { minus, sameShards } from './shard-set.js';

/** What a round needs to know about the group. */
export interface AssignmentInput {
  /** ACTIVE members whose lease has not run out (any order). */
  live: readonly string[];
  /**
   * When a live member's next heartbeat is due, on any scale (lower = sooner; equal = member
   * id decides), or absent: moves then go by member id (docs/protocol.md#sticky-assignment).
   */
  dueRank?: (memberId: string) => number;
  /** Shards targets may contain (sorted). */
  assignable: readonly number[];
  /** Stored targets by member (members that are no longer live included). */
  previous: ReadonlyMap<string, readonly number[]>;
  /** Shards a live member holds as current or revoking (what it would have to release). */
  held(memberId: string): readonly number[];
  /** A live member's rebalance deadline (null = none). */
  deadline(memberId: string): number | null;
  groupEpoch: number;
}

/** A round's result (maps in member id order: large groups have thousands of members). */
export interface AssignmentRound {
  /** Every live member's new target. */
  targets: Map<string, number[]>;
  /** Targets to write (changed or new). */
  changed: Map<string, number[]>;
  /** Members whose stored target is dropped (no longer live). */
  removed: string[];
  assignmentEpoch: number;
  /** Rebalance deadlines to set (a time) or clear (null), by member. */
  deadlines: Map<string, number | null>;
}

/** Runs one assignment round at `now`. */
export function assignmentRound(
  input: AssignmentInput,
  config: ProtocolConfig,
  now: number,
): AssignmentRound {
  const targets = targetAssignment(
    input.live,
    input.assignable,
    (id) => input.previous.get(id),
    input.dueRank,
  );
  const changed = new Map<string, number[]>();
  const deadlines = new Map<string, number | null>();
  for (const [id, t] of targets) {
    const before = input.previous.get(id);
    if (!before || !sameShards(before, t)) changed.set(id, t);
    const release = minus(input.held(id), t);
    const deadline = input.deadline(id);
    if (release.length === 0 && deadline !== null) deadlines.set(id, null);
    else if (release.length > 0 && deadline === null) deadlines.set(id, now + config.rebalanceTimeoutMs);
  }
  const removed = [...input.previous.keys()].filter((id) => !targets.has(id));
  return { targets, changed, removed, assignmentEpoch: input.groupEpoch, deadlines };
}
