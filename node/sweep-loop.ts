/**
 * The Node housekeeping loop: calls `sweep(now)` every `intervalMs`, never two at once, and
 * never lets a failure escape (a sweep that throws is logged and the loop carries on).
 */
import type { LogFn } from './logger.js';

/** What one sweep reports (the shape of `Coordinator.sweep`'s result). */
export interface SweepSummary {
  streams: number;
  groupsChanged: number;
  skippedBusy: number;
}

/** Options of `startSweepLoop`. */
export interface SweepLoopOptions {
  /** One bounded housekeeping pass. */
  sweep: (now: number) => Promise<SweepSummary>;
  /** Delay between the end of one sweep and the start of the next, ms. */
  intervalMs: number;
  log: LogFn;
  /** @default Date.now */
  now?: () => number;
}

/** A running sweep loop. */
export interface SweepLoop {
  /** Stops scheduling and resolves once the sweep in progress (if any) has finished. */
  stop(): Promise<void>;
}

/** Starts the loop; the first sweep runs one interval after the call. */
export function startSweepLoop(opts: SweepLoopOptions): SweepLoop {
  const now = opts.now ?? Date.now;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  // Failures repeat every interval while Redis is down; log the first of a streak loudly only.
  let failing = false;

  const runOnce = async (): Promise<void> => {
    try {
      const report = await opts.sweep(now());
      if (failing) opts.log('info', 'sweep recovered');
      failing = false;
      if (report.groupsChanged > 0) opts.log('info', 'sweep changed groups', { ...report });
      else opts.log('debug', 'sweep', { ...report });
    } catch (err) {
      opts.log(failing ? 'debug' : 'error', 'sweep failed', { err });
      failing = true;
    }
  };

  const schedule = (): void => {
    if (stopped) return;
    // Chained timeouts (not setInterval) so a slow sweep never overlaps the next one.
    timer = setTimeout(() => {
      running = runOnce().finally(() => {
        running = undefined;
        schedule();
      });
    }, opts.intervalMs);
    // The HTTP server keeps the process alive; the loop alone must not.
    timer.unref();
  };

  schedule();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
