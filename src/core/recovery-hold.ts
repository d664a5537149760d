/**
 * The recovery hold after a Redis restart. Redis restarted from an older snapshot or
 * AOF, or a failover to a lagging replica, can hand the coordinator data older than what
 * members were told: a shard the lost writes had moved to member A may look free, or still be
 * member B's. Granting it now could let two members read it at once. So for one member lease
 * after the store notices another Redis run (`GroupHeader.recoveringUntil`), an answer grants
 * only shards the member already reports owning; the rest stay pending. By the end of the hold
 * every member from before the restart has either heartbeated (and been told its epoch is not
 * one the store issued, so it dropped everything) or let its own lease run out and stopped.
 */
import type { HeartbeatOutput } from './heartbeat-types.js';
import type { GroupHeader } from './member-view.js';
import { sortedShards } from './shard-set.js';

/** True while the group's recovery hold lasts at `now`. */
export function isHeld(header: GroupHeader, now: number): boolean {
  return header.recoveringUntil !== undefined && now < header.recoveringUntil;
}

/**
 * `response` with every assigned shard the member does not report in `owned` moved to pending.
 * Rejections and empty grants are returned as they are.
 */
export function holdNewGrants(response: HeartbeatOutput, owned: readonly number[]): HeartbeatOutput {
  if (response.assignedShards.length === 0) return response;
  const mine = new Set(owned);
  const keep = response.assignedShards.filter((s) => mine.has(s));
  if (keep.length === response.assignedShards.length) return response;
  const held = response.assignedShards.filter((s) => !mine.has(s));
  return {
    ...response,
    assignedShards: keep,
    pendingShards: sortedShards([...response.pendingShards, ...held]),
  };
}

/** `response` under the hold of `header` at `now` (unchanged when the group is not held). */
export function underHold(
  response: HeartbeatOutput,
  header: GroupHeader,
  owned: readonly number[],
  now: number,
): HeartbeatOutput {
  return isHeld(header, now) ? holdNewGrants(response, owned) : response;
}
