/**
 * Support for the one-round-trip steady-state heartbeat (SPEC §6): the text a request must
 * match, the fingerprint of a member's next steady request, and how long answers stay valid.
 *
 * The store replays a recorded answer only while (1) the request's key equals the recorded
 * key, (2) the group document is unchanged since the fingerprint was written, (3) `now` is
 * within `fastPathUntil`, and (4) no live member's lease has passed. Under those conditions
 * the full path would have changed nothing but liveness fields and answered the same.
 */
import { deepEqual } from './equal.js';
import { membersInOrder } from './group.js';
import { processHeartbeat } from './heartbeat.js';
import type { HeartbeatInput, HeartbeatOutput } from './heartbeat-types.js';
import { durablyEqual } from './housekeeping.js';
import { prunable, pruneAt, releaseOf, tracksDeadline } from './maintenance.js';
import type { GroupDoc, ProtocolConfig, StreamDoc } from './model.js';
import { sortedShards } from './shard-set.js';

/** Canonical text of everything in a heartbeat that the fast path must match: memberId, epoch, metadataVersion, protocolVersion, memberName, capacity, sorted owned shards, revoking reports, progress shard set (shard+streamKey). NOT requestId, NOT progress ids/counts. */
export function heartbeatKey(request: HeartbeatInput): string {
  const revoking = [...request.revokingShards]
    .map((r) => [r.shard, r.state, r.inFlight, r.ackedAt] as const)
    .sort((a, b) => a[0] - b[0] || cmp(a[1], b[1]) || a[2] - b[2] || cmp(a[3] ?? '', b[3] ?? ''));
  const progress = [
    ...new Map(request.shardProgress.map((p) => [`${p.shard}\u0000${p.streamKey}`, p])).values(),
  ]
    .map((p) => [p.shard, p.streamKey] as const)
    .sort((a, b) => a[0] - b[0] || cmp(a[1], b[1]));
  return JSON.stringify([
    'hb1',
    request.pathMemberId,
    request.memberId,
    request.memberEpoch,
    request.metadataVersion,
    request.protocolVersion,
    request.memberName,
    request.runtimeMaxConcurrency,
    request.availableConcurrency,
    sortedShards(request.ownedShards),
    revoking,
    progress,
  ]);
}

/** After a full-path heartbeat produced (group, response) for request: if the member's NEXT steady request (epoch = response.memberEpoch, metadataVersion = response.metadataVersion, ownedShards = response.assignedShards, no revoking reports, same name/capacity/progress shard set restricted to assigned) would be a no-op (durablyEqual state and identical response when processed at `now`), return its key and the response to replay; else null. Only for status OK. */
export function steadyFingerprint(args: {
  stream: StreamDoc;
  group: GroupDoc;
  request: HeartbeatInput;
  response: HeartbeatOutput;
  config: ProtocolConfig;
  now: number;
}): { key: string; response: HeartbeatOutput } | null {
  const { stream, group, request, response, config, now } = args;
  if (response.status !== 'OK' || response.memberEpoch <= 0) return null;
  const assigned = new Set(response.assignedShards);
  const next: HeartbeatInput = {
    ...request,
    memberEpoch: response.memberEpoch,
    metadataVersion: response.metadataVersion,
    ownedShards: [...response.assignedShards],
    revokingShards: [],
    shardProgress: request.shardProgress.filter((p) => assigned.has(p.shard)),
  };
  const replay = processHeartbeat({ stream, group, request: next, config, now });
  if (!replay.group || !durablyEqual(group, replay.group)) return null;
  if (!deepEqual(replay.response, response)) return null;
  return { key: heartbeatKey(next), response: replay.response };
}

/**
 * Until when (epoch ms) fast-path answers for this group stay valid at the latest: 0 if a
 * metadata-correction round is open, stream.activeReshardingId is set or a removed shard is not
 * yet retired; else the earliest
 * future moment housekeeping could change the group (rebalance deadlines, prune times,
 * blocking-fence lease ends, …); Number.MAX_SAFE_INTEGER if none. Live members' own lease
 * expiries are NOT included (the store checks those separately). Inclusive: an answer is
 * valid while `now <= fastPathUntil` (a store comparing `now < fastPathUntil` is 1 ms stricter).
 */
export function fastPathUntil(stream: StreamDoc, group: GroupDoc, config: ProtocolConfig): number {
  if (group.metadataCorrection !== null || stream.activeReshardingId !== null) return 0;
  // Removed shards still draining (e.g. after a scale-out rollback): heartbeats do the lazy pass.
  if (stream.removedShards.some((r) => r.state !== 'RETIRED')) return 0;
  let until = Number.MAX_SAFE_INTEGER;
  for (const m of membersInOrder(group)) {
    if (tracksDeadline(m)) {
      const mustRelease = releaseOf(m, group.targetAssignments[m.memberId] ?? []).length > 0;
      // A deadline that the next pass would set or clear: the group is not settled.
      if (mustRelease !== (m.rebalanceDeadlineAt !== null)) return 0;
      // Fenced when now >= deadline.
      if (m.rebalanceDeadlineAt !== null) until = Math.min(until, m.rebalanceDeadlineAt - 1);
    }
    // A blocking fence lapses when now > lease.
    if (m.state === 'FENCED' && m.fence === 'BLOCKING') until = Math.min(until, m.memberLeaseExpiresAt);
    // Pruned when now >= lastHeartbeatAt + retention.
    if (prunable(m)) until = Math.min(until, pruneAt(m, config) - 1);
  }
  return Math.max(0, until);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
