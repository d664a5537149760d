/**
 * The cron sweep: `Coordinator.sweep` bounded by the invocation's subrequest budget. It takes the
 * streams due now from the due index in Redis (docs/architecture.md#the-due-index), so it spends
 * its budget on due work only, and what it cannot afford stays due for the next invocation (or
 * a Node instance's sweep beside it): isolates are not sticky and need no state of their own.
 *
 * Designed for the Workers Free plan by default: 50 subrequests per invocation (every Upstash
 * call is one) and 10 ms CPU; `COORDINATOR_SWEEP_SUBREQUESTS=1000` fits Workers Paid (1,000
 * subrequests, 30 s CPU). An invocation with nothing due costs one subrequest; a due stream with
 * nothing left to do two; one with work about ten plus its shard reads. The report's `backlog`
 * (logged at warn when not 0) says how many due streams it left.
 */
import type { CoordinatorConfig } from '../src/config.js';
import { Coordinator, type SweepReport } from '../src/coordinator.js';
import type { Logger } from '../src/http/app.js';
import type { UpstashCommands } from '../src/store/upstash-client.js';
import { UpstashStore } from '../src/store/upstash-store.js';

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
  const coordinator = new Coordinator({
    store,
    config: opts.config,
    log: opts.log,
    requestCount: () => subrequests,
  });
  const report = await coordinator.sweep(opts.now, {
    maxCalls: Math.max(1, opts.budget - NOSCRIPT_SLACK),
  });
  return { ...report, subrequests };
}
