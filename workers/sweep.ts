/**
 * The cron sweep: `Coordinator.sweep` bounded by the invocation's subrequest budget and resumed
 * across invocations from a cursor in Redis (`K:sweep-cursor`), since isolates are not sticky.
 *
 * Designed for the Workers Free plan by default: 50 subrequests per invocation (every Upstash
 * call is one) and 10 ms CPU; `COORDINATOR_SWEEP_SUBREQUESTS=1000` fits Workers Paid (1,000
 * subrequests, 30 s CPU). Fixed cost: reading and (when it moved) writing the cursor; the rest
 * goes to the sweep, which spends one call per idle stream (an unlocked load) and stops before
 * a stream whose work might not fit, leaving it for the next minute.
 */
import type { CoordinatorConfig } from '../src/config.js';
import { Coordinator, type SweepReport } from '../src/coordinator.js';
import type { Logger } from '../src/http/app.js';
import type { UpstashCommands } from '../src/store/upstash-client.js';
import { UpstashStore } from '../src/store/upstash-store.js';

/** Requests outside the sweep proper: the cursor read and write. */
const CURSOR_REQUESTS = 2;
/**
 * Requests kept back for NOSCRIPT fallbacks (a script's first EVALSHA after the database lost
 * its script cache costs a second request, the EVAL): the sweep counts every request it has
 * spent, but reserves a stream's work by an estimate that leaves them out.
 */
const NOSCRIPT_SLACK = 4;

/** Inputs of one budgeted sweep. */
export interface BudgetedSweepOptions {
  client: UpstashCommands;
  config: CoordinatorConfig;
  log: Logger;
  /** The cron's scheduled time (epoch ms): the sweep's only clock reading. */
  now: number;
  /** Subrequests this invocation may spend. */
  budget: number;
  /** Run the scripts under Upstash's per-key locks (docs/workers.md#upstash-key-locking). @default false */
  keyLocking?: boolean;
}

/** What one invocation did. */
export interface BudgetedSweepReport extends SweepReport {
  /** Upstash requests spent (Workers subrequests). */
  subrequests: number;
}

/** One cron invocation's housekeeping, within `budget` subrequests. */
export async function runBudgetedSweep(opts: BudgetedSweepOptions): Promise<BudgetedSweepReport> {
  let subrequests = 0;
  const store = new UpstashStore(opts.client, {
    namespace: opts.config.keyPrefix,
    keyLocking: opts.keyLocking ?? false,
    onRequest: () => {
      subrequests++;
    },
  });
  const cursor = await store.readSweepCursor();
  const coordinator = new Coordinator({
    store,
    config: opts.config,
    log: opts.log,
    requestCount: () => subrequests,
  });
  const report = await coordinator.sweep(opts.now, {
    cursor,
    maxCalls: Math.max(1, opts.budget - CURSOR_REQUESTS - NOSCRIPT_SLACK),
  });
  if (report.nextCursor !== null && report.nextCursor !== cursor)
    await store.writeSweepCursor(report.nextCursor);
  return { ...report, subrequests };
}
