/**
 * The member protocol (PROTOCOL §3.3) with our deviations: lost-response tolerance (SPEC §8.2)
 * and blocking stale-epoch fences (SPEC §8.3). Pure: `(stream, group, request, now)` in,
 * `(group, response)` out; the input documents are never mutated.
 */
import { noteNewerVersionDraft, settleRoundDraft, takesSyncPath } from './correction.js';
import {
  bumpBoth,
  cloneGroup,
  fenceDraft,
  groupStateOf,
  heldByOther,
  holderIndex,
  reconcileDraft,
  targetOf,
} from './group.js';
import { durablyEqual } from './group-equality.js';
import { answer, fenced, grantView, rejected } from './heartbeat-response.js';
import type { HeartbeatInput, HeartbeatOutput, RevokeReport } from './heartbeat-types.js';
import { enforceTimeoutsDraft, maintainDraft, settleDraft } from './housekeeping.js';
import {
  consumableShards,
  type GroupDoc,
  isLive,
  type MemberRecord,
  PROTOCOL_VERSION,
  type ProtocolConfig,
  type ShardProgress,
  type StreamDoc,
} from './model.js';
import { sortedShards, union } from './shard-set.js';

interface Ctx {
  stream: StreamDoc;
  draft: GroupDoc;
  request: HeartbeatInput;
  config: ProtocolConfig;
  now: number;
}

/** PROTOCOL §3.3 processing (with SPEC §8.2, §8.3 deviations). group null = unknown group → UNKNOWN_MEMBER_ID. */
export function processHeartbeat(args: {
  stream: StreamDoc;
  group: GroupDoc | null;
  request: HeartbeatInput;
  config: ProtocolConfig;
  now: number;
}): { group: GroupDoc | null; response: HeartbeatOutput } {
  const { stream, group, request, config, now } = args;
  if (request.protocolVersion !== PROTOCOL_VERSION) {
    return { group, response: rejected('UNSUPPORTED_PROTOCOL', request) };
  }
  if (request.memberId !== request.pathMemberId)
    return { group, response: rejected('INVALID_REQUEST', request) };
  // Groups are never created by heartbeats.
  if (!group) return { group: null, response: rejected('UNKNOWN_MEMBER_ID', request) };

  const draft = cloneGroup(group);
  maintainDraft(stream, draft, config, now);
  const response = decide({ stream, draft, request, config, now });
  if (!durablyEqual(draft, group)) draft.updatedAt = now;
  return { group: draft, response };
}

/** Steps 5–11 after maintenance. */
function decide(ctx: Ctx): HeartbeatOutput {
  const { draft, request } = ctx;
  const id = request.memberId;
  const stored = draft.members[id];
  if (stored && takesSyncPath(draft, stored, request)) return syncMetadata(ctx, stored);

  const epoch = request.memberEpoch;
  if (epoch < -1) return rejected('INVALID_REQUEST', request);
  if (!stored) return epoch === 0 ? join(ctx) : rejected('UNKNOWN_MEMBER_ID', request);
  if (epoch === 0) {
    if (stored.state === 'EXPIRED' || stored.state === 'FENCED' || stored.state === 'LEAVING')
      return join(ctx);
    if (isInitialJoinReplay(stored, request)) return replayJoin(ctx, stored);
    // The reference's guard against two processes sharing one member id.
    return rejected('INVALID_REQUEST', request);
  }
  if (stored.state === 'FENCED' || stored.state === 'EXPIRED') return fenced(draft, id);
  if (epoch === -1) {
    if (stored.state !== 'LEAVING') {
      stored.state = 'LEAVING';
      stored.memberEpoch = -1;
      stored.previousEpoch = null;
      bumpBoth(draft);
    }
    return normal(ctx, stored);
  }
  if (epoch > stored.memberEpoch) return rejected('INVALID_REQUEST', request);
  if (epoch < stored.memberEpoch) {
    // SPEC §8.2: the answer carrying the stored epoch may have been lost; the report decides.
    if (epoch === stored.previousEpoch) return normal(ctx, stored);
    return fenceBlocking(ctx);
  }
  return normal(ctx, stored);
}

/** Steps 7–11 for a member whose epoch was accepted. */
function normal(ctx: Ctx, member: MemberRecord): HeartbeatOutput {
  const { stream, draft, request, config, now } = ctx;
  const id = member.memberId;
  const leaving = member.state === 'LEAVING';

  // Step 7: every shard the member claims must be within its authority.
  const authority = new Set(authorityOf(stream, draft, member));
  const owned = leaving ? [] : sortedShards(request.ownedShards);
  const revoking = request.revokingShards.filter((r) => !isTerminal(r)).map((r) => r.shard);
  const progress = request.shardProgress;
  const outside = [...owned, ...revoking, ...progress.map((p) => p.shard)].some((s) => !authority.has(s));
  // Outside authority with the previous epoch is treated as the stale epoch it then is.
  if (outside) return fenceBlocking(ctx);

  // Step 8: record the report and renew the lease.
  if (request.memberName !== null) member.memberName = request.memberName;
  member.runtimeMaxConcurrency = request.runtimeMaxConcurrency;
  member.activeConsumerWorkers = Math.max(0, request.runtimeMaxConcurrency - request.availableConcurrency);
  member.rebalanceTimeoutMs = config.rebalanceTimeoutMs;
  member.currentAssignment = owned;
  if (leaving) member.grantedAssignment = [];
  member.revoking = sortedShards(revoking);
  member.shardProgress = normalizeProgress(progress);
  renewLease(member, config, now);

  // Step 9: reconcile, rebalance timeouts (may fence this member), correction round.
  reconcileDraft(stream, draft);
  enforceTimeoutsDraft(stream, draft, config, now);
  settleRoundDraft(draft, id, request.metadataVersion, now);

  // Step 10.
  const after = draft.members[id]!;
  if (after.state === 'FENCED') return fenced(draft, id);
  if (isLive(after.state)) {
    const next = draft.assignmentEpoch;
    // Remember the epoch the member knows for sure when this answer moves it (SPEC §8.2).
    after.previousEpoch =
      request.memberEpoch > 0 && next !== request.memberEpoch ? request.memberEpoch : null;
    after.memberEpoch = next;
  }
  after.metadataVersion = draft.metadataVersion;

  // Step 11.
  const status = draft.metadataCorrection ? 'REVOKE_PENDING' : 'OK';
  const view = grantView(draft, id, status, after.currentAssignment);
  draft.state = groupStateOf(draft);
  return answer(status, draft, id, after.memberEpoch, view);
}

/** Join or rejoin (`registerOrRejoinMember`): a fresh ACTIVE record, G+1/M+1; the report is ignored. */
function join(ctx: Ctx): HeartbeatOutput {
  const { stream, draft, request, config, now } = ctx;
  const id = request.memberId;
  const member: MemberRecord = {
    memberId: id,
    memberName: request.memberName ?? id,
    state: 'ACTIVE',
    memberEpoch: 0,
    previousEpoch: null,
    metadataVersion: 0,
    runtimeMaxConcurrency: request.runtimeMaxConcurrency,
    activeConsumerWorkers: Math.max(0, request.runtimeMaxConcurrency - request.availableConcurrency),
    currentAssignment: [],
    grantedAssignment: [],
    revoking: [],
    lastHeartbeatAt: now,
    memberLeaseExpiresAt: now + config.memberLeaseTtlMs,
    rebalanceTimeoutMs: config.rebalanceTimeoutMs,
    rebalanceDeadlineAt: null,
    shardProgress: [],
    fence: null,
  };
  draft.members[id] = member;
  bumpBoth(draft);
  reconcileDraft(stream, draft);
  enforceTimeoutsDraft(stream, draft, config, now);
  // The bump has moved the version past any open round, which this discards.
  settleRoundDraft(draft, id, request.metadataVersion, now);
  member.memberEpoch = draft.assignmentEpoch;
  member.metadataVersion = draft.metadataVersion;
  const status = draft.metadataCorrection ? 'REVOKE_PENDING' : 'OK';
  const view = grantView(draft, id, status, member.currentAssignment);
  draft.state = groupStateOf(draft);
  return answer(status, draft, id, member.memberEpoch, view);
}

/** Epoch 0 from a live member that holds nothing and reports nothing: a retried join. */
function isInitialJoinReplay(member: MemberRecord, request: HeartbeatInput): boolean {
  return (
    isLive(member.state) &&
    member.currentAssignment.length === 0 &&
    member.revoking.length === 0 &&
    request.ownedShards.length === 0 &&
    request.revokingShards.length === 0 &&
    request.shardProgress.length === 0
  );
}

/** Initial-join replay: liveness only, no epoch bump, answered with the stored epoch. */
function replayJoin(ctx: Ctx, member: MemberRecord): HeartbeatOutput {
  const { draft, config, now } = ctx;
  renewLease(member, config, now);
  const view = grantView(draft, member.memberId, 'OK');
  draft.state = groupStateOf(draft);
  return answer('OK', draft, member.memberId, member.memberEpoch, view);
}

/** The SYNC_METADATA path (PROTOCOL §3.8): epoch not checked, report neither validated nor recorded. */
function syncMetadata(ctx: Ctx, member: MemberRecord): HeartbeatOutput {
  const { draft, request, config, now } = ctx;
  if (request.metadataVersion > draft.metadataVersion) {
    noteNewerVersionDraft(draft, request.metadataVersion, now);
    member.metadataVersion = request.metadataVersion;
  }
  renewLease(member, config, now);
  const view = grantView(draft, member.memberId, 'SYNC_METADATA', sortedShards(request.ownedShards));
  draft.state = groupStateOf(draft);
  return answer('SYNC_METADATA', draft, member.memberId, member.memberEpoch, view);
}

/** Stale epoch or ownership violation: FENCED with blocking holdings (SPEC §8.3), G+1/M+1. */
function fenceBlocking(ctx: Ctx): HeartbeatOutput {
  const { stream, draft, request, config, now } = ctx;
  fenceDraft(draft, request.memberId, 'BLOCKING');
  bumpBoth(draft);
  settleDraft(stream, draft, config, now);
  return fenced(draft, request.memberId);
}

/**
 * Authority of PROTOCOL §3.4: what the member holds, plus its consumable target shards that
 * no other member holds.
 */
function authorityOf(stream: StreamDoc, g: GroupDoc, member: MemberRecord): number[] {
  const consumable = new Set(consumableShards(stream));
  const index = holderIndex(g);
  const claimable = targetOf(g, member.memberId).filter(
    (s) => consumable.has(s) && !heldByOther(index, s, member.memberId),
  );
  return union(member.currentAssignment, member.revoking, member.grantedAssignment, claimable);
}

/** `REVOKED` with nothing in flight: the shard is released. */
function isTerminal(r: RevokeReport): boolean {
  return r.state === 'REVOKED' && r.inFlight === 0;
}

/** One progress row per shard (the last reported wins), sorted by shard, copied. */
function normalizeProgress(progress: ShardProgress[]): ShardProgress[] {
  const byShard = new Map<number, ShardProgress>();
  for (const p of progress) byShard.set(p.shard, { ...p });
  return [...byShard.values()].sort((a, b) => a.shard - b.shard);
}

function renewLease(member: MemberRecord, config: ProtocolConfig, now: number): void {
  member.lastHeartbeatAt = now;
  member.memberLeaseExpiresAt = now + config.memberLeaseTtlMs;
}
