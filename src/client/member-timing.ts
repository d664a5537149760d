/**
 * Timing helpers of the member loop: an interruptible pause that never loses a wake-up, a
 * request timeout, a bounded wait and jitter.
 */
import { CoordinatorUnreachableError } from './errors.js';

/**
 * A pause the loop can be woken from. A wake-up while the loop is not pausing (a request is in
 * flight) is remembered, so the next pause is short: a revoke that completes meanwhile is
 * reported right after, not an interval later.
 */
export class Pause {
  private wakeRequested = false;
  private cut: (() => void) | null = null;

  /** @param minGapMs shortest pause after a wake-up, so a burst of wake-ups becomes one heartbeat. */
  constructor(private readonly minGapMs: number) {}

  /** Pauses `ms`, or about `minGapMs` once woken (0 when `now` is set). */
  wait(ms: number): Promise<void> {
    const short = () => Math.min(ms, this.minGapMs);
    if (this.wakeRequested) {
      this.wakeRequested = false;
      ms = short();
    }
    return new Promise((resolve) => {
      let timer = setTimeout(done, ms);
      const cut = (now: boolean) => {
        clearTimeout(timer);
        timer = setTimeout(done, now ? 0 : short());
      };
      this.cut = () => cut(false);
      this.endNow = () => cut(true);
      const self = this;
      function done() {
        clearTimeout(timer);
        self.cut = null;
        self.endNow = null;
        resolve();
      }
    });
  }

  /** Ends the current pause after the minimum gap, or shortens the next one. */
  wake(): void {
    if (this.cut) this.cut();
    else this.wakeRequested = true;
  }

  /** Ends the current pause at once (shutdown). */
  endNow: (() => void) | null = null;
}

/** Resolves with `p`, or rejects as a timed-out coordinator request after `ms`. */
export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new CoordinatorUnreachableError(`${what}: no answer within ${ms} ms`, { timedOut: true })),
      ms,
    );
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** Waits for `p` at most `ms`. */
export async function waitUntil(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([p, new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}

/** Sleeps `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** `ms` scaled by a random factor in [0.5, 1). */
export function jitter(ms: number): number {
  return Math.max(1, Math.round(ms * (0.5 + Math.random() * 0.5)));
}
