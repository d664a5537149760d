/**
 * Support for the one-round-trip steady-state heartbeat (docs/protocol.md#concurrency): the text a request must
 * match, and whether an answer may be replayed for the member's next steady request.
 *
 * The store replays a recorded answer only while (1) the request's key equals the recorded key,
 * (2) the group's epochs and version, the stream revision, the member's record revision and its
 * target are those the answer was recorded against, (3) each pending shard is still held by the
 * same member with the same holder status, (4) no correction round is open, and (5) no lease,
 * rebalance deadline or timer of the group is due. Under those conditions the full path would
 * change nothing but liveness fields and answer the same: which of the member's target shards
 * another member blocks can only change through one of the recorded parts (a shard it was
 * granted is held by nobody else; a pending shard's blocker is recorded). So a member waiting
 * for a shard polls cheaply until its holder lets go.
 */
import { deepEqual } from './equal.js';
import type { HeartbeatInput, HeartbeatOutput } from './heartbeat-types.js';
import { decideHeartbeat, type MemberDecision, normalizeProgress } from './member-heartbeat.js';
import type { MemberView } from './member-view.js';
import { type MemberRecord, PROTOCOL_VERSION, type ProtocolConfig } from './model.js';
import { sortedShards } from './shard-set.js';

/**
 * Canonical text of everything in a heartbeat that the fast path must match: memberId, epoch,
 * metadataVersion, protocolVersion, memberName, capacity, sorted owned shards, revoking reports,
 * progress shard set (shard+streamKey) and the instance id (so another process sharing the
 * member id never matches and the full path refuses it). NOT requestId, NOT progress ids/counts.
 */
export function heartbeatKey(request: HeartbeatInput): string {
  const revoking =
    request.revokingShards.length === 0
      ? []
      : [...request.revokingShards]
          .map((r) => [r.shard, r.state, r.inFlight, r.ackedAt] as const)
          .sort((a, b) => a[0] - b[0] || cmp(a[1], b[1]) || a[2] - b[2] || cmp(a[3] ?? '', b[3] ?? ''));
  const progress =
    request.shardProgress.length === 0
      ? []
      : [...new Map(request.shardProgress.map((p) => [`${p.shard}\u0000${p.streamKey}`, p])).values()]
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
    request.memberInstanceId ?? null,
  ]);
}

/**
 * After a full-path decision on `view` for `request`: when the member's NEXT steady request
 * (epoch and version from the answer, owning exactly what it was assigned, no revoking reports,
 * the same name, capacity and progress shards) would change nothing durable and be answered the
 * same, that request's key and the answer to replay; else null. Only for OK answers of a
 * settled group (no bump, no correction round, no resharding, no assignment round due); the
 * caller records the blockers of the answer's pending shards with it.
 */
export function steadyAnswer(
  view: MemberView,
  request: HeartbeatInput,
  decision: MemberDecision,
  config: ProtocolConfig,
  now: number,
): { key: string; response: HeartbeatOutput } | null {
  const { response } = decision;
  if (response.status !== 'OK' || response.memberEpoch <= 0 || decision.bumps > 0) return null;
  if (decision.round !== undefined || decision.acknowledge || view.header.correction !== null) return null;
  if (view.stream.resharding || view.header.assignmentEpoch < view.header.groupEpoch) return null;
  const member = decision.member ?? view.member;
  if (!member) return null;
  const assigned = new Set(response.assignedShards);
  const next: HeartbeatInput = {
    ...request,
    memberEpoch: response.memberEpoch,
    metadataVersion: response.metadataVersion,
    ownedShards: [...response.assignedShards],
    revokingShards: [],
    shardProgress: request.shardProgress.filter((p) => assigned.has(p.shard)),
  };
  const replay = decideHeartbeat({ ...view, member }, next, config, now);
  if (replay.bumps > 0 || replay.round !== undefined || replay.acknowledge || replay.joined) return null;
  if (replay.member && !sameExceptLiveness(replay.member, member)) return null;
  if (!deepEqual(replay.response, response)) return null;
  return { key: heartbeatKey(next), response };
}

const LIVENESS: ReadonlySet<string> = new Set(['memberLeaseExpiresAt', 'lastHeartbeatAt', 'shardProgress']);

/** True when two records differ at most in liveness fields. */
function sameExceptLiveness(a: MemberRecord, b: MemberRecord): boolean {
  const ra = a as unknown as Record<string, unknown>;
  const rb = b as unknown as Record<string, unknown>;
  for (const k of new Set([...Object.keys(ra), ...Object.keys(rb)])) {
    if (!LIVENESS.has(k) && !deepEqual(ra[k], rb[k])) return false;
  }
  return true;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Whether `input` is a heartbeat of this protocol version for the member its path names. */
export function wellFormed(input: HeartbeatInput): boolean {
  return input.protocolVersion === PROTOCOL_VERSION && input.memberId === input.pathMemberId;
}

/**
 * The progress JSON the fast path stores, as the full path records it: one row per shard, so
 * repeated rows cannot make a member's stored progress larger than its shards.
 */
export function progressOf(input: HeartbeatInput): string {
  return JSON.stringify(normalizeProgress(input.shardProgress));
}
