/**
 * The group-level steps around heartbeats: maintenance of the members a time index
 * names as due (expiry, fence lapse, rebalance-timeout fences, pruning — O(log N + k)), and the
 * assignment round, which runs only when membership or the assignable set changed, under the
 * group's short assignment lock, and writes only the targets that changed.
 */

import { assignmentRound } from '../core/assignment-round.js';
import { memberOps, type OwnerEntry, type PlanOp } from '../core/commit-plan.js';
import { type DueMember, maintain, nextTimerAt, tracksDeadline } from '../core/maintenance.js';
import { assignableOf } from '../core/member-view.js';
import { isLive } from '../core/model.js';
import { assignmentQuietMs } from '../core/pacing.js';
import {
  mergeReads,
  newReadSet,
  noteOwner,
  type ReadSet,
  recordingDueMember,
  withChecks,
} from '../core/read-set.js';
import { randomToken } from '../store/critical-section.js';
import type { AssignmentRead, HeaderValues } from '../store/store.js';
import type { Ctx } from './context.js';
import { memberChanges } from './lifecycle.js';

/** Due members read and maintained per step at most. */
export const MAX_DUE = 64;

/** Lease of the assignment lock (a round takes milliseconds; this only bounds a crashed holder). */
const ASSIGN_LOCK_TTL_MS = 2000;

/**
 * Maintains `ids` of `group` at `now` in one checked commit; rebalance deadlines of members in
 * `skipDeadline` are left to their own heartbeat. Index entries that no longer match a record
 * (a member renewed, left or was pruned meanwhile) are repaired. True when something was written.
 */
export async function maintainMembers(
  ctx: Ctx,
  prefix: string,
  group: string,
  ids: readonly string[],
  now: number,
  skipDeadline: ReadonlySet<string> = new Set(),
): Promise<boolean> {
  const unique = [...new Set(ids)];
  const read = await ctx.store.readMembers(prefix, group, unique);
  if (!read) return false;
  // What maintenance consults of each member, recorded as it does (checked for the members it writes).
  const readsOf = new Map<string, ReadSet>();
  const due: DueMember[] = [];
  for (const id of unique) {
    const m = read.members.get(id);
    if (!m?.stored) continue;
    const reads = newReadSet();
    readsOf.set(id, reads);
    due.push(recordingDueMember(id, m.stored, () => m.target, reads, now));
  }
  const out = maintain(due, read.header.groupEpoch, now, ctx.protocol, skipDeadline);
  const retention = { staleMemberRetentionMs: ctx.protocol.staleMemberRetentionMs };
  const pruned = new Set(out.pruned);
  const reads = newReadSet();
  const ops: PlanOp[] = [];
  for (const id of unique) {
    const stored = read.members.get(id)?.stored ?? null;
    const own: PlanOp[] = [];
    if (!stored) {
      // Listed by an index but gone: drop the stale entries.
      own.push({ k: 'record-rev', member: id, rev: null }, { k: 'delete-member', member: id });
    } else if (pruned.has(id)) {
      own.push(...memberOps(id, stored, null, { owners: new Map(), ...retention }));
      own.push({ k: 'delete-target', member: id });
    } else {
      const after = out.changed.get(id);
      own.push(
        ...(after
          ? memberOps(id, stored, after, { owners: new Map(), ...retention })
          : repairIndexes(id, stored.rev, stored.record, now, retention, skipDeadline.has(id))),
      );
    }
    if (own.length === 0) continue;
    ops.push(...own);
    // The commit stands only while what decided this member's writes is unchanged: an expiry
    // on a lease nobody renewed, a timeout fence on the target and deadline it saw.
    const mine = readsOf.get(id);
    if (mine) mergeReads(reads, mine);
  }
  if (ops.length === 0) return false;
  if (out.bumps > 0 || out.metadataBumps > 0) {
    ops.push(
      { k: 'bump', group: out.bumps, metadata: out.bumps + out.metadataBumps, at: now },
      { k: 'touch', at: now },
    );
  }
  const res = await ctx.store.commit({
    prefix,
    expect: { rev: read.streamRev },
    groups: [{ name: group, ops: [{ k: 'group-exists' }, ...withChecks(reads, ops)] }],
  });
  ctx.emit({ type: 'commit', ok: res.ok, scope: 'group' });
  if (!res.ok) return false;
  ctx.emit({ type: 'maintenance', members: unique.length });
  const states = unique.map((id) => {
    const before = read.members.get(id)?.stored?.record ?? null;
    return [id, before, pruned.has(id) ? null : out.changed.get(id)] as const;
  });
  for (const e of memberChanges(prefix, group, states)) ctx.emit(e);
  return true;
}

/** Each coordinator's maintenance in flight, by stream and group. */
const maintaining = new WeakMap<Ctx, Map<string, Promise<boolean>>>();

/**
 * `maintainMembers` for a request that read members due before its own decision. While this
 * coordinator already maintains `group`, the request waits for that maintenance instead of
 * starting its own: concurrent heartbeats read the same due members (the earliest), so their
 * commits would all but one fail on the records the first one changed, and a group with many
 * lapsed leases would keep every heartbeat busy retrying them. The caller reads again afterwards
 * and maintains what is still due.
 */
export async function maintainDue(
  ctx: Ctx,
  prefix: string,
  group: string,
  ids: readonly string[],
  now: number,
  skipDeadline: ReadonlySet<string>,
): Promise<void> {
  let running = maintaining.get(ctx);
  if (!running) {
    running = new Map();
    maintaining.set(ctx, running);
  }
  const key = `${prefix}\u0000${group}`;
  const current = running.get(key);
  if (current) {
    // Its failure is its own request's to report; this one reads again either way.
    await current.catch(() => undefined);
    return;
  }
  const mine = maintainMembers(ctx, prefix, group, ids, now, skipDeadline);
  running.set(key, mine);
  try {
    await mine;
  } finally {
    running.delete(key);
  }
}

/** Index entries of a member whose record says nothing is due now. */
function repairIndexes(
  id: string,
  rev: number,
  record: Parameters<typeof nextTimerAt>[0],
  now: number,
  retention: { staleMemberRetentionMs: number },
  ownDeadline: boolean,
): PlanOp[] {
  const ops: PlanOp[] = [];
  if (!isLive(record.state)) ops.push({ k: 'drop-lease', member: id });
  const timer = nextTimerAt(record, retention);
  if (timer === null) ops.push({ k: 'drop-timer', member: id });
  else if (timer > now) ops.push({ k: 'timer', member: id, at: timer });
  if (!ownDeadline && !tracksDeadline(record)) ops.push({ k: 'drop-deadline', member: id });
  return ops.length === 0 ? [] : [{ k: 'record-rev', member: id, rev }, ...ops];
}

/**
 * Runs the assignment round of `group` if one is due and nobody else runs it: the read takes the
 * group's assignment lock, the commit releases it. Returns the group's header afterwards, or
 * null when the round did not run here. While membership keeps moving, cheap rounds (small
 * groups) follow each other at once; after a costly one the commit keeps the lock for a cooldown
 * a few times the round's own cost, so a storm of joins into a large group is served by a few
 * rounds per second instead of one per join.
 */
export async function runAssignment(
  ctx: Ctx,
  prefix: string,
  group: string,
  now: number,
): Promise<HeaderValues | null> {
  const token = randomToken(ctx.random);
  let result: HeaderValues | null = null;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const started = ctx.monotonic();
    let read: Awaited<ReturnType<typeof ctx.store.readAssignment>>;
    try {
      read = await ctx.store.readAssignment(prefix, group, now, token, ASSIGN_LOCK_TTL_MS);
    } catch (err) {
      // The script took the lock before its reply failed to decode (a damaged index): give it
      // back, or the rebuild's retry would find the group busy until the lock's TTL ran out.
      await ctx.store.unlock(prefix, token, group).catch(() => undefined);
      throw err;
    }
    if (read === 'busy' || !read) return result;
    const before = read.header;
    if (before.assignmentEpoch >= before.groupEpoch) {
      await ctx.store.unlock(prefix, token, group).catch(() => undefined);
      return before;
    }
    const ops = roundOps(ctx, read, token, now);
    const spentMs = ctx.monotonic() - started;
    const costly = spentMs > CHEAP_ROUND_MS;
    ops.push(
      costly
        ? {
            k: 'release-lock',
            token,
            ms: Math.max(assignmentQuietMs(ctx.protocol), COOLDOWN_FACTOR * spentMs),
            unlessMovedFrom: before.groupEpoch,
          }
        : { k: 'release-lock', token, ms: 0 },
    );
    const res = await ctx.store.commit({
      prefix,
      expect: { rev: read.streamRev },
      groups: [{ name: group, ops }],
    });
    ctx.emit({ type: 'commit', ok: res.ok, scope: 'group' });
    if (!res.ok) {
      await ctx.store.unlock(prefix, token, group).catch(() => undefined);
      continue;
    }
    result = res.headers[0] ?? null;
    // Settled, or moved after a costly round (the cooldown holds off the next one).
    if (!result || result.assignmentEpoch >= result.groupEpoch || costly) return result;
  }
  return result;
}

/** A round whose read and decision took longer than this (ms) is costly. */
const CHEAP_ROUND_MS = 5;
/** Cooldown after a costly round while membership keeps moving, as a multiple of its cost. */
const COOLDOWN_FACTOR = 4;
/** Cheap rounds one call runs back to back at most while membership keeps moving. */
const MAX_ROUNDS = 3;

/**
 * The writes of one assignment round over `read`. Targets need no further check (only a round
 * writes them, under the lock the commit checks); a deadline it sets or clears stands only while
 * the member's holdings and deadline are as the round saw them.
 */
function roundOps(ctx: Ctx, read: AssignmentRead, token: string, now: number): PlanOp[] {
  const entries = new Map<string, Array<[number, OwnerEntry]>>();
  for (const [s, o] of read.owners) {
    const list = entries.get(o.memberId);
    if (list) list.push([s, o]);
    else entries.set(o.memberId, [[s, o]]);
  }
  const readsOf = new Map<string, ReadSet>();
  const readsFor = (id: string): ReadSet => {
    const seen = readsOf.get(id);
    if (seen) return seen;
    const fresh = newReadSet();
    readsOf.set(id, fresh);
    return fresh;
  };
  const round = assignmentRound(
    {
      live: read.live,
      dueRank: (id) => read.leaseOf.get(id) ?? Number.POSITIVE_INFINITY,
      assignable: assignableOf(read.head),
      previous: read.targets,
      held: (id) => {
        const mine = entries.get(id) ?? [];
        for (const [s, o] of mine) noteOwner(readsFor(id), s, o, null);
        return mine.filter(([, o]) => o.kind !== 'g').map(([s]) => s);
      },
      deadline: (id) => {
        const at = read.deadlines.get(id) ?? null;
        readsFor(id).deadlines.set(id, at);
        return at;
      },
      groupEpoch: read.header.groupEpoch,
    },
    ctx.protocol,
    now,
  );
  const reads = newReadSet();
  const ops: PlanOp[] = [{ k: 'token-is', token }];
  for (const [id, t] of round.changed) ops.push({ k: 'target', member: id, target: t });
  for (const id of round.removed) ops.push({ k: 'delete-target', member: id });
  for (const [id, at] of round.deadlines) {
    ops.push(
      at === null ? { k: 'drop-deadline', member: id } : { k: 'deadline', member: id, at, ifAbsent: true },
    );
    mergeReads(reads, readsFor(id));
  }
  ops.push({ k: 'assignment-epoch', value: round.assignmentEpoch, at: now }, { k: 'touch', at: now });
  ctx.emit({ type: 'assignment', members: read.live.length, changed: round.changed.size });
  return withChecks(reads, ops);
}
