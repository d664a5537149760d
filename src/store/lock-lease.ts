/**
 * The stream mutex as a short, renewed lease (docs/protocol.md#concurrency): taken with `SET NX PX ttl`
 * semantics (acquire-or-renew, so a resent acquire after a lost reply is the caller's own),
 * extended every ttl/3 while its critical section runs, released by compare-and-delete. A holder
 * that dies stops renewing, so the stream is free again within one TTL; a section whose renewal
 * finds the lease gone is told so (and its commit, which names the lease, is refused anyway).
 */
import { CoordinatorError } from '../core/errors.js';
import type { Store } from './store.js';

/** Timings of lock waits. */
export interface LockWaitOptions {
  /** How long to wait for the mutex; 0 = try once. @default 5000 */
  lockWaitMs: number;
  /** Lease of the mutex; renewed every third of it while held. @default 2000 */
  lockTtlMs: number;
  /** Random source in [0, 1) for jitter. @default Math.random */
  random?: () => number;
  /** Epoch-ms clock. @default Date.now */
  clock?: () => number;
  /** Told of every attempt at the mutex (metrics subscribe through it). @default no-op */
  onLock?: (attempt: LockAttempt) => void;
  /** Monotonic ms clock for the wait reported in `onLock`. @default performance.now */
  monotonic?: () => number;
}

/** One attempt at a stream mutex: taken at once, found busy, or taken `waitedMs` after the first busy answer. */
export type LockAttempt =
  | { result: 'acquired' }
  | { result: 'busy' }
  | { result: 'waited'; waitedMs: number };

const ACQUIRED: LockAttempt = { result: 'acquired' };
const BUSY: LockAttempt = { result: 'busy' };

/** A held stream mutex. */
export interface LockLease {
  /** The token the mutex holds. */
  readonly token: string;
  /** True once a renewal found the mutex no longer the token's. */
  readonly lost: boolean;
  /** Stops renewing and releases the mutex if it still holds the token (never throws). */
  release(): Promise<void>;
}

/** Thrown by `runCritical` when the mutex is busy and `lockWaitMs` is 0. */
export class LockBusyError extends Error {
  constructor() {
    super('stream mutex busy');
    this.name = 'LockBusyError';
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The 503 of a section that no longer holds its stream's mutex. */
export function mutexLost(prefix: string): CoordinatorError {
  return new CoordinatorError(
    'COORDINATOR_STATE_MUTEX_UNAVAILABLE',
    `coordination mutex of stream "${prefix}" was lost before the change was committed; retry the request`,
  );
}

/** Waits for the stream mutex (see `acquireLock`), then keeps its lease renewed until released. */
export async function holdLock(store: Store, prefix: string, opts: LockWaitOptions): Promise<LockLease> {
  const token = randomToken(opts.random);
  await acquireLock(store, prefix, token, opts);
  let lost = false;
  let inFlight = false;
  const renew = async () => {
    if (inFlight || lost) return;
    inFlight = true;
    try {
      if (!(await store.renewLock(prefix, token, opts.lockTtlMs))) lost = true;
    } catch {
      // Redis unreachable: the next tick tries again; the commit's own check decides.
    } finally {
      inFlight = false;
    }
  };
  const timer = setInterval(() => void renew(), Math.max(1, Math.floor(opts.lockTtlMs / 3)));
  (timer as { unref?: () => void }).unref?.();
  return {
    token,
    get lost() {
      return lost;
    },
    async release() {
      clearInterval(timer);
      await store.unlock(prefix, token).catch(() => undefined);
    },
  };
}

/** Waits up to `lockWaitMs` for the stream mutex (LockBusyError when 0 and busy). */
async function acquireLock(
  store: Store,
  prefix: string,
  token: string,
  opts: LockWaitOptions,
): Promise<void> {
  const random = opts.random ?? Math.random;
  const clock = opts.clock ?? Date.now;
  const monotonic = opts.monotonic ?? (() => performance.now());
  const deadline = clock() + opts.lockWaitMs;
  let delay = 2;
  let busySince: number | null = null;
  for (;;) {
    if (await store.tryLock(prefix, token, opts.lockTtlMs)) {
      opts.onLock?.(busySince === null ? ACQUIRED : { result: 'waited', waitedMs: monotonic() - busySince });
      return;
    }
    busySince ??= monotonic();
    opts.onLock?.(BUSY);
    if (opts.lockWaitMs === 0) throw new LockBusyError();
    const left = deadline - clock();
    if (left <= 0) {
      throw new CoordinatorError(
        'COORDINATOR_STATE_MUTEX_UNAVAILABLE',
        `coordination mutex of stream "${prefix}" not acquired within ${opts.lockWaitMs} ms`,
      );
    }
    // Jittered, capped backoff: short critical sections free the lock within milliseconds.
    await sleep(Math.min(left, delay / 2 + random() * delay));
    delay = Math.min(delay * 2, 50);
  }
}

/** A random token (lock leases, commit attempts). */
export function randomToken(random: () => number = Math.random): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (c?.randomUUID) return c.randomUUID();
  return `${Date.now().toString(36)}-${Math.floor(random() * 2 ** 52).toString(36)}`;
}
