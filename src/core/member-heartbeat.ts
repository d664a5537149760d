/**
 * The member protocol (docs/protocol.md#processing-order) decided over one member's view (docs/protocol.md#lost-response-tolerance,
 * docs/protocol.md#stale-epoch-fencing): `(view, request, now) → decision`. Pure and O(the member's
 * own shards): the group-wide parts — expiry of other members, the target assignment, other
 * members' rebalance deadlines — happen before (maintenance) and after (assignment round) this
 * decision, never inside it.
 */

import { answer, grant, grantNothing, rejected } from './heartbeat-answer.js';
import type { HeartbeatInput, HeartbeatOutput, RevokeReport } from './heartbeat-types.js';
import { isLateRequest, refuseSharedMemberId, withInstance } from './member-instance.js';
import { type CorrectionRound, type GroupHeader, isConsumable, type MemberView } from './member-view.js';
import {
  isLive,
  type MemberRecord,
  PROTOCOL_VERSION,
  type ProtocolConfig,
  type ShardProgress,
} from './model.js';
import { headerAfterChange, pacedInterval, roundWaitMs } from './pacing.js';
import { minus, sortedShards, union } from './shard-set.js';

/** What a heartbeat decided: the answer and the member-level changes to commit. */
export interface MemberDecision {
  response: HeartbeatOutput;
  /** The member's new record; absent when it is unchanged. */
  member?: MemberRecord;
  /**
   * How many `groupEpoch + 1, metadataVersion + 1` bumps (join, rejoin, first leave, fence):
   * more than zero means membership changed and the assignment round is due.
   */
  bumps: number;
  /** The round after this decision: absent = unchanged, null = closed or discarded. */
  round?: CorrectionRound | null;
  /** The round is a fresh one: its acknowledged set starts empty. */
  freshRound?: boolean;
  /** Add the member to the round's acknowledged set. */
  acknowledge?: boolean;
  /** A join or rejoin: the member gets its target once the assignment round includes it. */
  joined?: boolean;
}

/**
 * Decides one heartbeat (docs/protocol.md#processing-order steps 1–3 and 5–11). `view` null = unknown group.
 * Throws MEMBER_ID_IN_USE for another process's instance of a live member (member-instance.ts).
 */
export function decideHeartbeat(
  view: MemberView | null,
  request: HeartbeatInput,
  config: ProtocolConfig,
  now: number,
): MemberDecision {
  const decision = decide(view, request, config, now);
  if (decision.member) decision.member = withInstance(decision.member, request);
  return decision;
}

function decide(
  view: MemberView | null,
  request: HeartbeatInput,
  config: ProtocolConfig,
  now: number,
): MemberDecision {
  if (request.protocolVersion !== PROTOCOL_VERSION)
    return unchanged(rejected('UNSUPPORTED_PROTOCOL', request));
  if (request.memberId !== request.pathMemberId) return unchanged(rejected('INVALID_REQUEST', request));
  // Groups are never created by heartbeats.
  if (!view) return unchanged(rejected('UNKNOWN_MEMBER_ID', request));
  refuseSharedMemberId(view.member, request, now);

  const ctx: Ctx = { view, request, config, now };
  const stored = view.member;
  // docs/protocol.md#request-order: a copy older than a request this instance already had
  // recorded describes a past the member has left; like a stale epoch, the request is fenced.
  if (stored && isLateRequest(stored, request))
    return unchanged(answer('FENCED_MEMBER_EPOCH', view.header, stored.memberId, stored.memberEpoch));
  if (stored && takesSyncPath(view.header, stored, request)) return syncMetadata(ctx, stored);

  const epoch = request.memberEpoch;
  if (epoch < -1) return unchanged(rejected('INVALID_REQUEST', request));
  if (!stored) return epoch === 0 ? join(ctx) : unchanged(rejected('UNKNOWN_MEMBER_ID', request));
  if (epoch === 0) {
    if (stored.state === 'EXPIRED' || stored.state === 'FENCED' || stored.state === 'LEAVING')
      return join(ctx);
    if (isInitialJoinReplay(stored, request)) return replayJoin(ctx, stored);
    // The holder's own process rejoining after a fenced answer (its instance id proves it): it
    // dropped everything before asking, so its holdings are released at once.
    if (request.memberInstanceId && request.memberInstanceId === stored.memberInstanceId) return join(ctx);
    // The reference's guard against two processes sharing one member id.
    return unchanged(rejected('INVALID_REQUEST', request));
  }
  if (stored.state === 'FENCED' || stored.state === 'EXPIRED') {
    return unchanged(answer('FENCED_MEMBER_EPOCH', view.header, stored.memberId, stored.memberEpoch));
  }
  if (epoch === -1) {
    if (stored.state !== 'LEAVING') {
      const leaving: MemberRecord = { ...stored, state: 'LEAVING', memberEpoch: -1, previousEpoch: null };
      return normal(ctx, leaving, true);
    }
    return normal(ctx, stored, false);
  }
  if (epoch > stored.memberEpoch) return unchanged(rejected('INVALID_REQUEST', request));
  if (epoch < stored.memberEpoch) {
    // docs/protocol.md#lost-response-tolerance: the answer carrying the stored epoch may have been lost; the report decides.
    if (epoch === stored.previousEpoch) return normal(ctx, stored, false);
    // docs/protocol.md#stale-epoch-fencing: the request is stale, not the member; its report is
    // from an epoch the group has moved past, so it is neither checked nor recorded.
    return unchanged(answer('FENCED_MEMBER_EPOCH', view.header, stored.memberId, stored.memberEpoch));
  }
  return normal(ctx, stored, false);
}

/**
 * The answer to a member that has just joined, once the assignment round has given it a target:
 * its grant (target minus blocked shards), with the epoch its join gave it (the second half of a
 * join, docs/protocol.md#processing-order steps 10–11 after the reconcile of step 9).
 */
export function decideGrant(view: MemberView, config: ProtocolConfig, now: number): MemberDecision | null {
  const stored = view.member;
  if (!stored || !isLive(stored.state)) return null;
  const member: MemberRecord = { ...stored, metadataVersion: view.header.metadataVersion };
  const status = view.header.correction ? 'REVOKE_PENDING' : 'OK';
  const shown = grant(view, status, member.currentAssignment, member);
  const response = answer(status, view.header, member.memberId, member.memberEpoch, shown);
  const paced = pacedInterval(config, view, shown, [], now);
  if (paced !== undefined) response.heartbeatIntervalMs = paced;
  return { response, member, bumps: 0 };
}

interface Ctx {
  view: MemberView;
  request: HeartbeatInput;
  config: ProtocolConfig;
  now: number;
}

/** Step 5 of docs/protocol.md#processing-order: does this known, non-fenced/expired member take the SYNC_METADATA path? */
function takesSyncPath(h: GroupHeader, member: MemberRecord, request: HeartbeatInput): boolean {
  if (member.state === 'FENCED' || member.state === 'EXPIRED') return false;
  if (request.metadataVersion > h.metadataVersion) return true;
  return h.correction !== null && request.metadataVersion !== h.metadataVersion;
}

/** Steps 7–11 for a member whose epoch was accepted (`leaving`: this request starts its leave). */
function normal(ctx: Ctx, stored: MemberRecord, leaving: boolean): MemberDecision {
  const { view, request, config, now } = ctx;
  const isLeaving = stored.state === 'LEAVING';
  // A LEAVING member has no target any more (the assignment round drops it).
  const target = isLeaving ? [] : view.target;

  // Step 7: every shard the member claims must be within its authority (the target as stored:
  // a member starting its leave still has one).
  const authority = new Set(authorityOf(view, stored, view.target));
  const owned = isLeaving ? [] : sortedShards(request.ownedShards);
  const revoking = request.revokingShards.filter((r) => !isTerminal(r)).map((r) => r.shard);
  const progress = request.shardProgress;
  const outside = [...owned, ...revoking, ...progress.map((p) => p.shard)].some((s) => !authority.has(s));
  // A report outside the member's authority (at the current or the tolerated previous epoch)
  // contradicts what the coordinator knows: the member is fenced, not just the request.
  if (outside) return fenceBlocking(ctx, stored);

  // Step 8: record the report and renew the lease.
  const member: MemberRecord = {
    ...stored,
    memberName: request.memberName ?? stored.memberName,
    runtimeMaxConcurrency: request.runtimeMaxConcurrency,
    activeConsumerWorkers: Math.max(0, request.runtimeMaxConcurrency - request.availableConcurrency),
    rebalanceTimeoutMs: config.rebalanceTimeoutMs,
    currentAssignment: owned,
    grantedAssignment: isLeaving ? [] : stored.grantedAssignment,
    revoking: sortedShards(revoking),
    shardProgress: normalizeProgress(progress),
    lastHeartbeatAt: now,
    memberLeaseExpiresAt: now + config.memberLeaseTtlMs,
  };
  const header = leaving ? bumped(view.header) : view.header;

  // Step 9 for this member: its rebalance deadline (docs/protocol.md#revoke-before-assign), fencing at the deadline.
  const release = minus(union(member.currentAssignment, member.revoking), target);
  if (release.length === 0) member.rebalanceDeadlineAt = null;
  else if (member.rebalanceDeadlineAt === null) member.rebalanceDeadlineAt = now + config.rebalanceTimeoutMs;
  else if (now >= member.rebalanceDeadlineAt) {
    const fencedRecord = fencedMember(member, header.groupEpoch, 'RELEASED');
    return {
      response: answer('FENCED_MEMBER_EPOCH', bumped(header), member.memberId, fencedRecord.memberEpoch),
      member: fencedRecord,
      bumps: leaving ? 2 : 1,
    };
  }

  // The correction round (docs/protocol.md#metadata-correction-rounds).
  const settled = settleRound(view, header, member, request.metadataVersion, now);

  // Step 10.
  if (isLive(member.state)) {
    const next = Math.max(header.assignmentEpoch, stored.memberEpoch);
    // Remember the epoch the member knows for sure when this answer moves it (docs/protocol.md#lost-response-tolerance).
    member.previousEpoch =
      request.memberEpoch > 0 && next !== request.memberEpoch ? request.memberEpoch : null;
    member.memberEpoch = next;
  }
  member.metadataVersion = header.metadataVersion;

  // Step 11.
  const status = settled.open ? 'REVOKE_PENDING' : 'OK';
  const shown = isLeaving ? grantNothing(member) : grant(view, status, member.currentAssignment, member);
  const response = answer(status, header, member.memberId, member.memberEpoch, shown);
  const paced = pacedInterval(config, view, shown, owned, now);
  if (paced !== undefined) response.heartbeatIntervalMs = paced;
  const decision: MemberDecision = { response, member, bumps: leaving ? 1 : 0 };
  if (settled.round !== undefined) decision.round = settled.round;
  if (settled.acknowledge) decision.acknowledge = true;
  return decision;
}

/** Join or rejoin (`registerOrRejoinMember`): a fresh ACTIVE record, G+1/M+1; the report is ignored. */
function join(ctx: Ctx): MemberDecision {
  const { view, request, config, now } = ctx;
  const header = bumped(view.header);
  const previous = view.member;
  const member: MemberRecord = {
    memberId: request.memberId,
    memberName: request.memberName ?? request.memberId,
    state: 'ACTIVE',
    // The group epoch after this join; never below an earlier incarnation's epoch.
    memberEpoch: Math.max(header.groupEpoch, previous ? previous.memberEpoch + 1 : 0),
    previousEpoch: null,
    metadataVersion: header.metadataVersion,
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
  const response = answer('OK', header, member.memberId, member.memberEpoch);
  // Its target comes with the next assignment round: come back when that is due.
  const after = headerAfterChange(view.header, header, now);
  response.heartbeatIntervalMs = roundWaitMs(after, member.memberEpoch, config, view.liveMembers + 1, now);
  const decision: MemberDecision = { response, member, bumps: 1, joined: true };
  // The bump moves the version past any open round, which this discards.
  if (view.header.correction) decision.round = null;
  return decision;
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
function replayJoin(ctx: Ctx, stored: MemberRecord): MemberDecision {
  const { view, config, now } = ctx;
  const member = renewed(stored, config, now);
  const shown = grant(view, 'OK', [], member);
  const response = answer('OK', view.header, member.memberId, member.memberEpoch, shown);
  const paced = pacedInterval(config, view, shown, [], now);
  if (paced !== undefined) response.heartbeatIntervalMs = paced;
  return { response, member, bumps: 0 };
}

/** The SYNC_METADATA path (docs/protocol.md#metadata-correction-rounds): epoch not checked, report neither validated nor recorded. */
function syncMetadata(ctx: Ctx, stored: MemberRecord): MemberDecision {
  const { view, request, config, now } = ctx;
  const member = renewed(stored, config, now);
  let round: CorrectionRound | undefined;
  let freshRound = false;
  let header = view.header;
  if (request.metadataVersion > view.header.metadataVersion) {
    const open = view.header.correction;
    if (open && open.targetMetadataVersion === view.header.metadataVersion) {
      round = {
        ...open,
        observedMetadataVersion: Math.max(open.observedMetadataVersion, request.metadataVersion),
        updatedAt: now,
      };
    } else {
      round = {
        targetMetadataVersion: view.header.metadataVersion,
        observedMetadataVersion: request.metadataVersion,
        requestedAt: now,
        updatedAt: now,
      };
      freshRound = true;
    }
    header = { ...header, correction: round };
    member.metadataVersion = request.metadataVersion;
  }
  const shown = grant(view, 'SYNC_METADATA', sortedShards(request.ownedShards), member);
  const response = answer('SYNC_METADATA', header, member.memberId, member.memberEpoch, shown);
  const paced = pacedInterval(config, view, shown, request.ownedShards, now);
  if (paced !== undefined) response.heartbeatIntervalMs = paced;
  const decision: MemberDecision = { response, member, bumps: 0 };
  if (round) decision.round = round;
  if (freshRound) decision.freshRound = true;
  return decision;
}

/** An ownership violation: FENCED with blocking holdings (docs/protocol.md#blocking-fences), G+1/M+1. */
function fenceBlocking(ctx: Ctx, stored: MemberRecord): MemberDecision {
  const member = fencedMember(stored, ctx.view.header.groupEpoch, 'BLOCKING');
  return {
    response: answer('FENCED_MEMBER_EPOCH', bumped(ctx.view.header), member.memberId, member.memberEpoch),
    member,
    bumps: 1,
  };
}

/**
 * A fenced copy of `m` (docs/protocol.md#ownership-validation): FENCED, `memberEpoch := max(groupEpoch+1, memberEpoch+1)`
 * with the group epoch before the fence's bump, deadline cleared. `BLOCKING` keeps its holdings
 * (they block others until its rejoin or lease end, docs/protocol.md#blocking-fences); `RELEASED` clears them.
 */
export function fencedMember(
  m: MemberRecord,
  groupEpoch: number,
  kind: 'BLOCKING' | 'RELEASED',
): MemberRecord {
  const out: MemberRecord = {
    ...m,
    state: 'FENCED',
    fence: kind,
    memberEpoch: Math.max(groupEpoch + 1, m.memberEpoch + 1),
    previousEpoch: null,
    rebalanceDeadlineAt: null,
  };
  if (kind === 'RELEASED') return { ...out, currentAssignment: [], grantedAssignment: [], revoking: [] };
  return out;
}

/** The header after one `groupEpoch`/`metadataVersion` bump (docs/protocol.md#counter-bumps). */
function bumped(h: GroupHeader): GroupHeader {
  return { ...h, groupEpoch: h.groupEpoch + 1, metadataVersion: h.metadataVersion + 1 };
}

/**
 * On the normal path: discards a round the stored version has moved past, else acknowledges
 * the member when it reports the target version and closes the round when it is done.
 */
function settleRound(
  view: MemberView,
  header: GroupHeader,
  member: MemberRecord,
  reportedVersion: number,
  now: number,
): { open: boolean; round?: CorrectionRound | null; acknowledge?: boolean } {
  const round = view.header.correction;
  if (!round) return { open: false };
  if (header.metadataVersion !== round.targetMetadataVersion) return { open: false, round: null };
  const acknowledge = reportedVersion === round.targetMetadataVersion && !view.acknowledged;
  const complete = view.roundComplete?.(member, view.acknowledged || acknowledge) ?? false;
  if (complete) return { open: false, round: null };
  if (!acknowledge) return { open: true };
  return { open: true, round: { ...round, updatedAt: now }, acknowledge };
}

/**
 * Authority of docs/protocol.md#ownership-validation: what the member holds, plus its consumable target shards that
 * no other member holds.
 */
function authorityOf(view: MemberView, member: MemberRecord, target: readonly number[]): number[] {
  const claimable = target.filter((s) => isConsumable(view.stream, s) && !view.blockedByOther(s));
  return union(member.currentAssignment, member.revoking, member.grantedAssignment, claimable);
}

function unchanged(response: HeartbeatOutput): MemberDecision {
  return { response, bumps: 0 };
}

/** `REVOKED` with nothing in flight: the shard is released. */
function isTerminal(r: RevokeReport): boolean {
  return r.state === 'REVOKED' && r.inFlight === 0;
}

/** One progress row per shard (the last reported wins), sorted by shard, copied. */
export function normalizeProgress(progress: readonly ShardProgress[]): ShardProgress[] {
  const byShard = new Map<number, ShardProgress>();
  for (const p of progress) byShard.set(p.shard, { ...p });
  return [...byShard.values()].sort((a, b) => a.shard - b.shard);
}

function renewed(m: MemberRecord, config: ProtocolConfig, now: number): MemberRecord {
  return { ...m, lastHeartbeatAt: now, memberLeaseExpiresAt: now + config.memberLeaseTtlMs };
}
