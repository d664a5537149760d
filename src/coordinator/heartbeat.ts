/**
 * The member protocol over Redis: one round trip for a steady heartbeat (the read
 * answers it from the fast path), two for any other — a read of O(the member's own shards) and
 * a commit that applies only if what the decision read is unchanged. No stream mutex: members
 * never wait for each other. Due maintenance of other members runs first, the assignment round
 * after a membership change, and a joiner's grant once the round includes it.
 */

import { type Fingerprint, kindsOf, memberOps, type PlanOp } from '../core/commit-plan.js';
import { roundCompleteWith } from '../core/correction.js';
import { own } from '../core/dict.js';
import { CoordinatorError } from '../core/errors.js';
import { heartbeatKey, progressOf, steadyAnswer, wellFormed } from '../core/fast-path.js';
import { withEpochsOf } from '../core/heartbeat-answer.js';
import type { HeartbeatInput, HeartbeatOutput } from '../core/heartbeat-types.js';
import { decideGrant, decideHeartbeat, type MemberDecision } from '../core/member-heartbeat.js';
import { refuseSharedMemberId } from '../core/member-instance.js';
import type { GroupHeader, MemberView } from '../core/member-view.js';
import { assignsAtOnce, headerAfterChange, roundDueAt, roundWaitMs } from '../core/pacing.js';
import { refuseJoinBeyondLimit } from '../core/quotas.js';
import {
  newReadSet,
  noteOwner,
  type ReadSet,
  recordingOwners,
  recordingView,
  withChecks,
} from '../core/read-set.js';
import { isHeld, underHold } from '../core/recovery-hold.js';
import type { MemberReadView, StreamPlan } from '../store/store.js';
import { backoff, type Ctx } from './context.js';
import { MAX_DUE, maintainDue, runAssignment } from './group-steps.js';
import { loadIntact } from './integrity.js';
import { memberChanges } from './lifecycle.js';

/** Reads (and commits) a heartbeat attempts before answering STATE_VERSION_CONFLICT. */
const MAX_ATTEMPTS = 8;
/** Maintenance steps one heartbeat runs before deciding anyway. */
const MAX_MAINTENANCE = 3;

/** Hooks the heartbeat calls when it touches resharding work (the lazy stream pass). */
export interface HeartbeatHooks {
  /** Called after a committed heartbeat of a stream with resharding in progress. */
  reshardingTouched(prefix: string, now: number): Promise<void>;
}

/** How a heartbeat is run. */
export interface HeartbeatOptions {
  /** The fast path was just tried for this input and missed (a batch's steady read): skip it. */
  fastPathTried?: boolean | undefined;
}

/** The heartbeat of `input` to `group` of stream `prefix` (docs/protocol.md#heartbeat). */
export async function heartbeat(
  ctx: Ctx,
  prefix: string,
  group: string,
  input: HeartbeatInput,
  hooks: HeartbeatHooks,
  options: HeartbeatOptions = {},
): Promise<HeartbeatOutput> {
  if (!wellFormed(input)) return decideHeartbeat(null, input, ctx.protocol, ctx.now()).response;
  const now = ctx.now();
  const id = input.memberId;
  const reported = [
    ...input.ownedShards,
    ...input.revokingShards.map((r) => r.shard),
    ...input.shardProgress.map((p) => p.shard),
  ];
  const progressJson = progressOf(input);
  let fastKey: string | null = input.memberEpoch > 0 && !options.fastPathTried ? heartbeatKey(input) : null;
  let maintenance = 0;
  let assigned = false;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const r = await ctx.store.readMember({
      prefix,
      group,
      memberId: id,
      now,
      fastKey,
      leaseExpiresAt: now + ctx.protocol.memberLeaseTtlMs,
      progressJson,
      shards: reported,
      maxDue: MAX_DUE,
      recoveryHoldMs: ctx.protocol.memberLeaseTtlMs,
    });
    if (fastKey !== null) ctx.emit({ type: 'fast-path', hit: r.kind === 'fast' });
    fastKey = null;
    if (r.kind === 'fast') {
      ctx.emit({
        type: 'heartbeat',
        status: r.response.status,
        path: 'fast',
        streamPrefix: prefix,
        consumerGroup: group,
      });
      return r.response;
    }
    if (r.kind !== 'view')
      return answered(ctx, prefix, group, decideHeartbeat(null, input, ctx.protocol, now).response);
    // Before any maintenance: a refused request writes nothing (the decision checks again).
    refuseSharedMemberId(r.member?.record ?? null, input, now);

    const due = [...r.due.expired, ...r.due.timers, ...r.due.deadlines.filter((m) => m !== id)];
    if (due.length > 0 && maintenance < MAX_MAINTENANCE) {
      maintenance++;
      await maintainDue(ctx, prefix, group, due, now, new Set([id]));
      continue;
    }
    // Someone else's change not yet assigned: this request runs the round once it is due.
    const roundAt = roundDueAt(r.header, ctx.protocol, r.liveMembers);
    if (roundAt !== null && now >= roundAt && !assigned) {
      assigned = true;
      if (await runAssignment(ctx, prefix, group, now)) continue;
    }

    // Everything the decision consults is recorded, and its commit checks all of it.
    const reads = newReadSet();
    const view = await viewOf(ctx, prefix, group, r, id, reads, now);
    const decision = decideHeartbeat(view, input, ctx.protocol, now);
    // Only a join pays for the member quota (steady heartbeats are answered before this).
    refuseJoinBeyondLimit(decision.joined === true, id, r.liveMembers, ctx.config.maxMembersPerGroup);
    const plan = heartbeatPlan(ctx, prefix, group, r, decision, view, input, now, reads);
    if (!plan)
      return answered(ctx, prefix, group, underHold(decision.response, r.header, input.ownedShards, now));
    const res = await ctx.store.commit(plan);
    ctx.emit({ type: 'commit', ok: res.ok, scope: 'member' });
    if (!res.ok) {
      await backoff(ctx, attempt);
      continue;
    }
    for (const e of memberChanges(prefix, group, [[id, r.member?.record ?? null, decision.member]]))
      ctx.emit(e);
    let response = decision.response;
    const committed = res.headers[0] ?? null;
    if (decision.joined && committed) {
      // The joiner's epoch is the group epoch right after its own join (unique per join).
      response = { ...response, memberEpoch: Math.max(joinFloor(r), committed.groupEpoch) };
    }
    if (decision.bumps > 0 && committed) {
      const after = headerAfterChange(r.header, committed, now);
      response = assignsAtOnce(r.header, ctx.protocol, r.liveMembers, now)
        ? await afterMembershipChange(
            ctx,
            prefix,
            group,
            { ...decision, response },
            after,
            r.liveMembers,
            now,
          )
        : coalesced({ ...decision, response }, after, ctx, r.liveMembers, now);
    }
    if (r.head.resharding && passDue(r, decision, now)) await hooks.reshardingTouched(prefix, now);
    return answered(ctx, prefix, group, underHold(response, r.header, input.ownedShards, now));
  }
  throw new CoordinatorError(
    'STATE_VERSION_CONFLICT',
    `coordination state of group "${group}" of stream "${prefix}" kept changing; retry the request`,
  );
}

/** The blocker of each pending shard as the read saw it; null when one is unknown (no fingerprint then). */
function blockersAsRead(
  r: MemberReadView,
  pending: readonly number[],
  id: string,
  reads: ReadSet,
): Fingerprint['waits'] | null {
  const out: Array<Fingerprint['waits'][number]> = [];
  for (const shard of pending) {
    const owner = r.owners.get(shard);
    noteOwner(reads, shard, owner, id, r.holders);
    const status = owner ? r.holders.get(owner.memberId) : null;
    if (!owner || !status) return null;
    out.push({ shard, owner, status });
  }
  return out;
}

/** The lowest epoch a (re)joining member may get: above its earlier incarnation's. */
function joinFloor(r: MemberReadView): number {
  return r.member ? r.member.record.memberEpoch + 1 : 0;
}

/**
 * Whether this heartbeat should run the stream's resharding pass: it changed how the member
 * holds a shard the pass waits on, or the pass has Redis work due (the lazy pass of docs/protocol.md#housekeeping, without
 * running it on every heartbeat).
 */
function passDue(r: MemberReadView, decision: MemberDecision, now: number): boolean {
  if (r.head.workAt !== null && now >= r.head.workAt) return true;
  if (!decision.member || r.head.watched.length === 0) return false;
  const before = kindsOf(r.member?.record ?? null);
  const after = kindsOf(decision.member);
  return r.head.watched.some((s) => before.get(s) !== after.get(s));
}

function answered(ctx: Ctx, prefix: string, group: string, response: HeartbeatOutput): HeartbeatOutput {
  ctx.emit({
    type: 'heartbeat',
    status: response.status,
    path: 'full',
    streamPrefix: prefix,
    consumerGroup: group,
  });
  return response;
}

/**
 * After a join, rejoin, leave or fence: the assignment round (if nobody else runs it), then a
 * joiner's grant once the round includes it; otherwise the answer with the group's epochs as
 * they are now. A joiner whose round could not run yet gets an empty answer and a short interval.
 */
async function afterMembershipChange(
  ctx: Ctx,
  prefix: string,
  group: string,
  decision: MemberDecision,
  committed: GroupHeader,
  liveMembers: number,
  now: number,
): Promise<HeartbeatOutput> {
  const header = await runAssignment(ctx, prefix, group, now);
  if (!header) return coalesced(decision, committed, ctx, liveMembers, now);
  if (decision.joined && header.assignmentEpoch >= header.groupEpoch) {
    const granted = await grantJoiner(ctx, prefix, group, decision.response.memberId, now);
    if (granted) return granted;
  }
  return withEpochsOf(decision.response, header);
}

/**
 * The answer to a change whose round is left to later (coalesced with others, or run by another
 * request): the group's epochs as committed, and a joiner told when its target will be there.
 */
function coalesced(
  decision: MemberDecision,
  header: GroupHeader,
  ctx: Ctx,
  liveMembers: number,
  now: number,
): HeartbeatOutput {
  const response = withEpochsOf(decision.response, header);
  if (!decision.joined) return response;
  const wait = roundWaitMs(header, response.memberEpoch, ctx.protocol, liveMembers, now);
  return { ...response, heartbeatIntervalMs: wait };
}

/** The second half of a join: the joiner's grant from its new target (docs/protocol.md#processing-order steps 10–11). */
async function grantJoiner(
  ctx: Ctx,
  prefix: string,
  group: string,
  memberId: string,
  now: number,
): Promise<HeartbeatOutput | null> {
  for (let attempt = 1; attempt <= 3; attempt++) {
    const r = await ctx.store.readMember({
      prefix,
      group,
      memberId,
      now,
      fastKey: null,
      leaseExpiresAt: now,
      progressJson: '[]',
      shards: [],
      maxDue: 0,
      recoveryHoldMs: ctx.protocol.memberLeaseTtlMs,
    });
    if (r.kind !== 'view') return null;
    const reads = newReadSet();
    const view = await viewOf(ctx, prefix, group, r, memberId, reads, now);
    const grant = decideGrant(view, ctx.protocol, now);
    if (!grant) return null;
    const plan = heartbeatPlan(ctx, prefix, group, r, grant, view, null, now, reads);
    // A joiner reads nothing yet: under a recovery hold it is granted nothing.
    const response = underHold(grant.response, r.header, [], now);
    if (!plan) return response;
    const res = await ctx.store.commit(plan);
    ctx.emit({ type: 'commit', ok: res.ok, scope: 'member' });
    if (res.ok) return response;
    await backoff(ctx, attempt);
  }
  return null;
}

/**
 * Member `id`'s view of a read, recording into `reads` what the decision consults; while a round
 * is open and may be complete, with the group-wide check.
 */
async function viewOf(
  ctx: Ctx,
  prefix: string,
  group: string,
  r: MemberReadView,
  id: string,
  reads: ReadSet,
  now: number,
): Promise<MemberView> {
  const view = recordingView(r, id, reads, now);
  // Completion needs the whole group: asked only once every live member may have acknowledged.
  if (r.header.correction && r.acknowledgements + (r.acknowledged ? 0 : 1) >= r.liveMembers) {
    const snap = await loadIntact(ctx, prefix, [group]);
    const whole = snap && own(snap.groups, group);
    if (whole) view.roundComplete = (after, acked) => roundCompleteWith(whole, after, acked);
  }
  return view;
}

/**
 * The checked commit of a decision; null when it changes nothing. Its checks are those of
 * `reads`, everything the decision (and this plan) consulted.
 */
function heartbeatPlan(
  ctx: Ctx,
  prefix: string,
  group: string,
  r: MemberReadView,
  decision: MemberDecision,
  view: MemberView,
  input: HeartbeatInput | null,
  now: number,
  reads: ReadSet,
): StreamPlan | null {
  const id = decision.response.memberId;
  const writes: PlanOp[] = [];
  const checks: PlanOp[] = [];
  if (decision.member) {
    writes.push(
      ...memberOps(id, r.member, decision.member, {
        owners: recordingOwners(r.owners, reads),
        staleMemberRetentionMs: ctx.protocol.staleMemberRetentionMs,
        ...(decision.joined ? { joinedFloor: joinFloor(r) } : {}),
      }),
    );
  }
  if (decision.bumps > 0)
    writes.push({ k: 'bump', group: decision.bumps, metadata: decision.bumps, at: now });
  if (decision.round !== undefined) {
    writes.push(
      { k: 'round-is', round: r.header.correction },
      { k: 'round', round: decision.round, freshAcks: decision.freshRound ?? false },
    );
  }
  if (decision.acknowledge) writes.push({ k: 'ack', member: id });
  // The quota again inside the commit: concurrent joins all read the count before any applied.
  const limit = ctx.config.maxMembersPerGroup;
  if (decision.joined && limit > 0) checks.push({ k: 'live-below', member: id, count: limit });
  if (decision.bumps > 0 || decision.round !== undefined) writes.push({ k: 'touch', at: now });
  if (writes.length === 0) return null;
  // No fast-path answer is recorded during a recovery hold: it would outlive the hold.
  const steady = input && !isHeld(r.header, now) && steadyAnswer(view, input, decision, ctx.protocol, now);
  const waits = steady ? blockersAsRead(r, steady.response.pendingShards, id, reads) : null;
  if (steady && waits && decision.member) {
    writes.push({
      k: 'fingerprint',
      member: id,
      fingerprint: {
        groupEpoch: r.header.groupEpoch,
        assignmentEpoch: r.header.assignmentEpoch,
        metadataVersion: r.header.metadataVersion,
        streamRev: r.streamRev,
        memberRev: (r.member?.rev ?? 0) + 1,
        target: view.target,
        key: steady.key,
        waits,
        response: steady.response,
      },
    });
  }
  const ops: PlanOp[] = [{ k: 'group-exists' }, ...withChecks(reads, [...checks, ...writes])];
  return { prefix, expect: { rev: r.streamRev }, groups: [{ name: group, ops }] };
}
