/**
 * Housekeeping outside requests (docs/architecture.md#source-layout): the sweep looks at every stream once per call in one
 * round trip each (an idle stream costs exactly that), maintains the members its time indexes
 * name as due, runs due assignment rounds, and runs the resharding pass of streams with
 * resharding work. Bounded per call and resumed from a cursor, so it fits a Worker's limits.
 */
import { activationShards } from '../core/resharding.js';
import { LockBusyError } from '../store/critical-section.js';
import { type Ctx, errorText } from './context.js';
import { MAX_DUE, maintainMembers, runAssignment } from './group-steps.js';
import { withIntactGroup } from './integrity.js';
import { advanceStream } from './resharding.js';

/** Outcome of one sweep call. */
export interface SweepReport {
  /** Streams visited (idle ones included). */
  streams: number;
  groupsChanged: number;
  skippedBusy: number;
  /** Where the next call starts (null: no streams). */
  nextCursor: string | null;
  /** Redis requests this sweep made (0 when the coordinator does not count them). */
  calls: number;
}

/** Bounds of one sweep call. */
export interface SweepOptions {
  /** Streams visited at most. @default 500 */
  maxStreams?: number;
  /**
   * Redis requests spent at most (counted by `CoordinatorDeps.requestCount`, which is then
   * required): an idle stream costs one, a stream with work
   * about ten plus one per shard it reads or retires; the sweep stops before a stream that might
   * not fit. @default unlimited
   */
  maxCalls?: number;
  /** Prefix to start at (the first one >= it, wrapping around). @default where the last call stopped */
  cursor?: string | null;
}

/** Requests a stream with work may cost before its shard reads, kept free before starting it. */
const BUSY_STREAM_RESERVE = 10;
/** Maintenance steps per group and sweep at most (each handles up to MAX_DUE members). */
const MAX_STEPS = 8;

/** The sweep's state between calls. */
export interface SweepState {
  cursor: string | null;
}

/** One sweep at `now`. `calls()` counts the Redis requests the store has made so far. */
export async function sweep(
  ctx: Ctx,
  state: SweepState,
  now: number,
  opts: SweepOptions,
  calls: () => number,
): Promise<SweepReport> {
  const maxStreams = opts.maxStreams ?? 500;
  const maxCalls = opts.maxCalls ?? Number.POSITIVE_INFINITY;
  const start = calls();
  const spent = () => calls() - start;
  const report: SweepReport = { streams: 0, groupsChanged: 0, skippedBusy: 0, nextCursor: null, calls: 0 };
  const prefixes = await ctx.store.listStreams();
  if (prefixes.length === 0) return { ...report, calls: spent() };
  const order = rotateFrom(prefixes, opts.cursor === undefined ? state.cursor : opts.cursor);
  let next = 0;
  for (; next < Math.min(maxStreams, order.length); next++) {
    if (spent() + 1 > maxCalls) break;
    const prefix = order[next]!;
    try {
      const probe = await ctx.store.probeStream(prefix, now);
      const busy = probe?.groups.filter(
        (g) => g.exists && (g.assignmentDue || g.leaseDue || g.deadlineDue || g.timerDue),
      );
      if (probe && (busy!.length > 0 || probe.head.resharding)) {
        // Not enough budget left for this stream's work: it is where the next call starts.
        if (spent() + BUSY_STREAM_RESERVE > maxCalls) break;
        for (const g of busy!) if (await maintainGroup(ctx, prefix, g.name, now)) report.groupsChanged++;
        if (probe.head.resharding) {
          report.groupsChanged += await advanceStream(ctx, prefix, now, {
            lockWaitMs: 0,
            // Provisioning costs one call per shard and group: resumed only while the budget covers it.
            resumePreparing: (m, groups) =>
              spent() + activationShards(m).length * groups + BUSY_STREAM_RESERVE <= maxCalls,
          });
        }
      }
    } catch (e) {
      if (e instanceof LockBusyError) report.skippedBusy++;
      else ctx.log('warn', 'sweep of stream failed', { streamPrefix: prefix, error: errorText(e) });
    }
    report.streams++;
  }
  state.cursor = order[next % order.length] ?? null;
  return { ...report, nextCursor: state.cursor, calls: spent() };
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

/** `prefixes` (sorted) starting at the first one >= `cursor`, wrapping around. */
function rotateFrom(prefixes: readonly string[], cursor: string | null): string[] {
  const start = cursor === null ? 0 : prefixes.findIndex((p) => p >= cursor);
  if (start <= 0) return [...prefixes];
  return [...prefixes.slice(start), ...prefixes.slice(0, start)];
}
