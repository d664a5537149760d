/**
 * What one heartbeat sees of its group (docs/protocol.md#redis-key-layout): the group header, the stream's
 * shard sets, the member's own record and target, and for the shards it touches whether another
 * member's holding blocks it. Everything here is O(the member's own shards); nothing iterates
 * the group.
 */

import {
  assignableShards,
  consumableShards,
  type MemberRecord,
  type MetadataCorrection,
  type StreamDoc,
} from './model.js';

/** The group-wide counters and the open correction round (without its acknowledgements). */
export interface GroupHeader {
  groupEpoch: number;
  assignmentEpoch: number;
  metadataVersion: number;
  correction: CorrectionRound | null;
  createdAt: number;
  updatedAt: number;
  /** When the oldest change not yet assigned was made (absent: none, or not recorded). */
  pendingSince?: number;
  /**
   * Until when answers grant only shards the member already reports, after the store saw a
   * restarted Redis whose data may be older than what members were told (absent: never).
   */
  recoveringUntil?: number;
}

/** An open metadata-correction round; its acknowledged members are kept beside it. */
export type CorrectionRound = Omit<MetadataCorrection, 'acknowledgedMembers'>;

/**
 * The stream's shard sets a heartbeat needs, kept as `[0, shardCount)` plus the few extra
 * shards beyond it (sorted), so asking about one shard never costs the whole set.
 */
export interface StreamView {
  shardCount: number;
  /** Removed shards not yet retired: consumable besides `[0, shardCount)` (docs/protocol.md#resharding). */
  extraConsumable: readonly number[];
  /** Removed shards still draining: assignable besides `[0, shardCount)`. */
  extraAssignable: readonly number[];
  /** A migration is active or a removed shard is not yet retired. */
  resharding: boolean;
}

/** True when `s` is consumable. */
export function isConsumable(v: StreamView, s: number): boolean {
  return (s >= 0 && s < v.shardCount) || v.extraConsumable.includes(s);
}

/** True when `s` may be in a target. */
export function isAssignable(v: StreamView, s: number): boolean {
  return (s >= 0 && s < v.shardCount) || v.extraAssignable.includes(s);
}

/** Every assignable shard (for the assignment round, which covers them all). */
export function assignableOf(v: StreamView): number[] {
  const out: number[] = [];
  for (let i = 0; i < v.shardCount; i++) out.push(i);
  for (const s of v.extraAssignable) if (s >= v.shardCount) out.push(s);
  return out;
}

/** One member's view of its group. */
export interface MemberView {
  stream: StreamView;
  header: GroupHeader;
  /** The member's record (leases, heartbeat time and deadline merged in), null when unknown. */
  member: MemberRecord | null;
  /** The member's target shards (sorted). */
  target: readonly number[];
  /**
   * True when another member's holding (current, granted or revoking) of `shard` blocks this
   * member. Defined at least for the member's target and every shard its request names.
   */
  blockedByOther(shard: number): boolean;
  /** The member is in the open round's acknowledged set. */
  acknowledged: boolean;
  /** How many members are live (the pace of a member holding more than its share depends on it). */
  liveMembers: number;
  /**
   * Would the open round be complete with this member's record replaced by `after` and the
   * member acknowledged (`acked`)? Absent when the caller could not tell cheaply: the round is
   * then treated as still open (the Redis path asks again once every live member has
   * acknowledged, docs/protocol.md#concurrency).
   */
  roundComplete?: (after: MemberRecord, acked: boolean) => boolean;
}

/** The stream part of a view, from a stream document. */
export function streamViewOf(stream: StreamDoc): StreamView {
  const beyond = (shards: number[]) => shards.filter((s) => s >= stream.shardCount);
  return {
    shardCount: stream.shardCount,
    extraConsumable: beyond(consumableShards(stream)),
    extraAssignable: beyond(assignableShards(stream)),
    resharding: stream.activeReshardingId !== null || stream.removedShards.some((r) => r.state !== 'RETIRED'),
  };
}
