/**
 * Housekeeping outside requests (docs/architecture.md#the-due-index): the sweep visits the
 * streams the due index names as due now, maintains the members their time indexes name as due,
 * runs due assignment rounds and the resharding pass of streams with resharding work, and
 * records when each stream is next due. A stream with nothing due costs nothing. Bounded per call
 * (streams, Redis requests), so it fits a Worker's limits; what a call leaves stays due.
 */
import { activationShards } from '../core/resharding.js';
import { LockBusyError } from '../store/critical-section.js';
import type { StreamProbe } from '../store/store.js';
import { type Ctx, errorText } from './context.js';
import { MAX_DUE, maintainMembers, runAssignment } from './group-steps.js';
import { withIntactGroup } from './integrity.js';
import { advanceStream } from './resharding.js';

/** Outcome of one sweep call. */
export interface SweepReport {
  /** Streams visited. */
  streams: number;
  groupsChanged: number;
  skippedBusy: number;
  /** Redis requests this sweep made (0 when the coordinator does not count them). */
  calls: number;
  /** Streams still due when this sweep ended (left for the next call or another instance). */
  backlog: number;
}

/** Bounds of one sweep call. */
export interface SweepOptions {
  /** Streams visited at most. @default 500 */
  maxStreams?: number;
  /**
   * Redis requests spent at most (counted by `CoordinatorDeps.requestCount`, which is then
   * required): one to claim, two per visited stream with nothing due, about ten plus one per
   * shard it reads or retires for a stream with work; a stream whose work might not fit is left
   * due for the next call. @default unlimited
   */
  maxCalls?: number;
}

/**
 * How long a claim on a due stream lasts: another sweep takes it again after that, so it is also
 * how long the work of a stream stays undone when the instance that claimed it dies mid-visit.
 */
const DUE_CLAIM_MS = 10_000;
/**
 * A sweep starts no visit once less than this is left of its claim: the streams it has not
 * started are handed back as due now, for the next call (here or on another instance). A visit
 * that outlives its claim is still safe, only not exclusive: every change it makes is a checked
 * commit or runs under the stream's mutex.
 */
const DUE_CLAIM_RESERVE_MS = DUE_CLAIM_MS / 2;

/**
 * Requests a stream with work may cost before its shard reads, kept free before starting it:
 * maintenance (due read, records, the due index, commit), a round (read, commit) and the probe
 * that finds its next due time.
 */
const BUSY_STREAM_RESERVE = 14;
/** Maintenance steps per group and sweep at most (each handles up to MAX_DUE members). */
const MAX_STEPS = 8;

/** One sweep at `now`. `calls()` counts the Redis requests the store has made so far. */
export async function sweep(
  ctx: Ctx,
  now: number,
  opts: SweepOptions,
  calls: () => number,
): Promise<SweepReport> {
  const start = calls();
  const budget: Budget = {
    maxCalls: opts.maxCalls ?? Number.POSITIVE_INFINITY,
    spent: () => calls() - start,
  };
  const report: SweepReport = {
    streams: 0,
    groupsChanged: 0,
    skippedBusy: 0,
    calls: 0,
    backlog: 0,
  };
  await dueSweep(ctx, now, opts.maxStreams ?? 500, budget, report);
  return { ...report, calls: budget.spent() };
}

interface Budget {
  maxCalls: number;
  spent(): number;
}

/**
 * The streams the due index names as due now, claimed so that no other sweep visits them at the
 * same time; each visit records the stream's next due time (docs/architecture.md#the-due-index).
 * A stream with nothing due costs no Redis command at all.
 */
async function dueSweep(ctx: Ctx, now: number, maxStreams: number, budget: Budget, report: SweepReport) {
  const until = now + DUE_CLAIM_MS;
  // Claim no more than the budget can visit: a stream with nothing due costs its probe and its settle.
  const fits = () => Math.min(maxStreams, Math.floor((budget.maxCalls - budget.spent() - 1) / 2));
  let claim = await ctx.store.claimDue(now, until, fits());
  if (!claim) {
    // A new due index, or one Redis lost: every stream is due once, then only what is.
    await ctx.store.seedDue(await ctx.store.listStreams(), now);
    claim = await ctx.store.claimDue(now, until, fits());
    if (!claim) return;
  }
  report.backlog = claim.backlog;
  for (const [i, prefix] of claim.prefixes.entries()) {
    // What this visit may spend: the budget less the settles of this claim and the ones after it.
    const left: Budget = { maxCalls: budget.maxCalls - (claim.prefixes.length - i), spent: budget.spent };
    // A visit that fails leaves the stream due: the next sweep call tries again.
    let next: number | null = now;
    try {
      next =
        ctx.now() > until - DUE_CLAIM_RESERVE_MS ? OUT_OF_TIME : await visit(ctx, prefix, now, left, report);
    } catch (e) {
      if (e instanceof LockBusyError) report.skippedBusy++;
      else ctx.log('warn', 'sweep of stream failed', { streamPrefix: prefix, error: errorText(e) });
    }
    if (next === OUT_OF_BUDGET || next === OUT_OF_TIME) {
      // Its work does not fit this call: handed back as due now, for the next one.
      next = now;
      report.backlog++;
    } else report.streams++;
    await ctx.store.settleDue(prefix, until, next);
  }
}

/** A visit that did not start its stream's work because the budget would not cover it. */
const OUT_OF_BUDGET = -1;
/** A visit not started because too little of the claim was left. */
const OUT_OF_TIME = -2;

/**
 * One stream's due work: maintenance of its busy groups, its resharding pass. Returns when the
 * stream is next due (null: nothing time-driven left; OUT_OF_BUDGET: not started).
 */
async function visit(
  ctx: Ctx,
  prefix: string,
  now: number,
  budget: Budget,
  report: SweepReport,
): Promise<number | null> {
  let probe = await ctx.store.probeStream(prefix, now);
  if (!probe) return null;
  const busy = probe.groups.filter((g) => g.exists && isDue(g));
  if (busy.length === 0 && !probe.head.resharding) return nextDue(probe, now);
  if (budget.spent() + BUSY_STREAM_RESERVE > budget.maxCalls) return OUT_OF_BUDGET;
  for (const g of busy) if (await maintainGroup(ctx, prefix, g.name, now)) report.groupsChanged++;
  if (probe.head.resharding) {
    report.groupsChanged += await advanceStream(ctx, prefix, now, {
      lockWaitMs: 0,
      // Provisioning costs one call per shard and group: resumed only while the budget covers it.
      resumePreparing: (m, groups) =>
        budget.spent() + activationShards(m).length * groups + BUSY_STREAM_RESERVE <= budget.maxCalls,
    });
  }
  probe = await ctx.store.probeStream(prefix, now);
  return probe ? nextDue(probe, now) : null;
}

function isDue(g: StreamProbe['groups'][number]): boolean {
  return g.assignmentDue || g.leaseDue || g.deadlineDue || g.timerDue;
}

/**
 * When the probed stream is next due: its groups' earliest, and at every sweep call while it
 * reshards (drain evidence comes from consumers, not from a timer). Each sweep call claims once,
 * so a stream left due now is visited again by the next call, not in a loop.
 */
function nextDue(probe: StreamProbe, now: number): number | null {
  let at: number | null = probe.head.resharding ? now : null;
  for (const g of probe.groups) {
    if (g.exists && g.nextAt !== null && (at === null || g.nextAt < at)) at = g.nextAt;
  }
  return at;
}

/** Maintenance of every due member of `group` and its assignment round if due. True when something changed. */
export function maintainGroup(ctx: Ctx, prefix: string, group: string, now: number): Promise<boolean> {
  // A group that lost an index is rebuilt here, by the sweep, even when no member heartbeats.
  return withIntactGroup(ctx, prefix, group, () => maintainSteps(ctx, prefix, group, now));
}

async function maintainSteps(ctx: Ctx, prefix: string, group: string, now: number): Promise<boolean> {
  let changed = false;
  for (let step = 0; step < MAX_STEPS; step++) {
    const due = await ctx.store.readDue(prefix, group, now, MAX_DUE);
    if (!due) return changed;
    const ids = [...new Set([...due.expired, ...due.deadlines, ...due.timers])];
    if (ids.length > 0) {
      if (!(await maintainMembers(ctx, prefix, group, ids, now))) return changed;
      changed = true;
      continue;
    }
    if (due.assignmentDue && (await runAssignment(ctx, prefix, group, now))) changed = true;
    return changed;
  }
  return changed;
}

/** Maintenance of every group of a stream (before a scale or rollback decides on it). */
export async function maintainStream(ctx: Ctx, prefix: string, now: number): Promise<void> {
  const probe = await ctx.store.probeStream(prefix, now);
  for (const g of probe?.groups ?? []) {
    if (g.exists && (g.assignmentDue || g.leaseDue || g.deadlineDue || g.timerDue)) {
      await maintainGroup(ctx, prefix, g.name, now);
    }
  }
}
