/**
 * Per-stream critical sections: mutex wait with jittered polling, then load → decide →
 * compare-and-set commit, retried on revision conflicts (SPEC §6).
 */
import { CoordinatorError } from '../core/errors.js';
import type { CommitRequest, Store, StreamSnapshot } from './store.js';

/** Tuning of lock waits and CAS retries. */
export interface CriticalSectionOptions {
  /** How long to wait for the mutex; 0 = try once. @default 5000 */
  lockWaitMs: number;
  /** Mutex lease; the section must finish well within it. @default 10000 */
  lockTtlMs: number;
  /** Commit attempts before answering STATE_VERSION_CONFLICT. @default 5 */
  maxAttempts: number;
  /** Random source in [0, 1) for jitter. @default Math.random */
  random?: () => number;
  /** Epoch-ms clock. @default Date.now */
  clock?: () => number;
}

/** What one attempt of a critical section decided. */
export interface Decision<T> {
  /** Write to apply (prefix and expectedRevision are filled in); omitted = read-only outcome. */
  commit?: Omit<CommitRequest, 'prefix' | 'expectedRevision'>;
  result: T;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Thrown by `runCritical` when the mutex is busy and `lockWaitMs` is 0. */
export class LockBusyError extends Error {
  constructor() {
    super('stream mutex busy');
    this.name = 'LockBusyError';
  }
}

/**
 * Runs `decide` under the stream's mutex until its commit applies. `decide` gets a fresh
 * snapshot (null when the stream does not exist) on every attempt and must be pure apart
 * from reading it.
 */
export async function runCritical<T>(
  store: Store,
  prefix: string,
  groups: string[] | 'all',
  opts: CriticalSectionOptions,
  decide: (snapshot: StreamSnapshot | null, attempt: number) => Decision<T> | Promise<Decision<T>>,
): Promise<T> {
  const random = opts.random ?? Math.random;
  const clock = opts.clock ?? Date.now;
  const token = randomToken(random);
  await acquire(store, prefix, token, opts, random, clock);
  try {
    for (let attempt = 1; ; attempt++) {
      const snapshot = await store.load(prefix, groups);
      const decision = await decide(snapshot, attempt);
      if (!decision.commit) return decision.result;
      const res = await store.commit({
        ...decision.commit,
        prefix,
        expectedRevision: snapshot?.revision ?? 0,
      });
      if (res.ok) return decision.result;
      if (attempt >= opts.maxAttempts) {
        throw new CoordinatorError(
          'STATE_VERSION_CONFLICT',
          `coordination state of stream "${prefix}" kept changing; retry the request`,
        );
      }
      await sleep(Math.floor(random() * 5 * attempt));
    }
  } finally {
    await store.unlock(prefix, token).catch(() => undefined);
  }
}

async function acquire(
  store: Store,
  prefix: string,
  token: string,
  opts: CriticalSectionOptions,
  random: () => number,
  clock: () => number,
): Promise<void> {
  const deadline = clock() + opts.lockWaitMs;
  let delay = 2;
  for (;;) {
    if (await store.tryLock(prefix, token, opts.lockTtlMs)) return;
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

function randomToken(random: () => number): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (c?.randomUUID) return c.randomUUID();
  return `${Date.now().toString(36)}-${Math.floor(random() * 2 ** 52).toString(36)}`;
}
