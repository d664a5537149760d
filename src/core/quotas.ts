/**
 * Quotas: how many streams a namespace, groups a stream and live members a
 * group may have. Each refusal is a 409 naming the setting, decided before anything is written;
 * 0 means no limit. The checks that must hold against concurrent requests are repeated where
 * the write happens (the streams index script, the group's commit), so these decide the answer
 * and those keep the bound.
 */
import { CoordinatorError } from './errors.js';

/** True when `count` more would go beyond `limit` (0 = no limit). */
export function atLimit(count: number, limit: number): boolean {
  return limit > 0 && count >= limit;
}

/** 409 STREAM_LIMIT_REACHED: the namespace already has `limit` streams. */
export function streamLimitReached(prefix: string, limit: number): CoordinatorError {
  return new CoordinatorError(
    'STREAM_LIMIT_REACHED',
    `stream "${prefix}" was not created: this coordinator already has ${limit} streams (COORDINATOR_MAX_STREAMS); delete one or raise the limit`,
  );
}

/** Throws GROUP_LIMIT_REACHED when a stream with `groups` may not get another group. */
export function refuseGroupBeyondLimit(prefix: string, group: string, groups: number, limit: number): void {
  if (!atLimit(groups, limit)) return;
  throw new CoordinatorError(
    'GROUP_LIMIT_REACHED',
    `group "${group}" was not created: stream "${prefix}" already has ${groups} groups (COORDINATOR_MAX_GROUPS_PER_STREAM is ${limit})`,
  );
}

/**
 * Throws MEMBER_LIMIT_REACHED when a heartbeat that would make `memberId` live (a join or rejoin)
 * finds `liveMembers` at the limit already. Members that are live are never refused by it.
 */
export function refuseJoinBeyondLimit(
  joins: boolean,
  memberId: string,
  liveMembers: number,
  limit: number,
): void {
  if (!joins || !atLimit(liveMembers, limit)) return;
  throw new CoordinatorError(
    'MEMBER_LIMIT_REACHED',
    `member ${memberId} was not admitted: the group already has ${liveMembers} live members (COORDINATOR_MAX_MEMBERS_PER_GROUP is ${limit}); it may join once one leaves or expires`,
  );
}
