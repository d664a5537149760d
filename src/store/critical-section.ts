/**
 * Stream-wide critical sections (SPEC §6): mutex wait with jittered polling, then load → decide
 * → checked commit, retried on conflicts. Only stream-wide changes take it (create, delete,
 * scale, rollback, resharding passes, layout upgrades); heartbeats never do.
 */
import { CoordinatorError } from '../core/errors.js';
import type { ProtocolConfig } from '../core/model.js';
import { Layout1Error } from './scripts/read-replies.js';
import type { Store, StreamPlan, StreamSnapshot } from './store.js';

/** Tuning of lock waits and CAS retries. */
export interface CriticalSectionOptions {
  /** How long to wait for the mutex; 0 = try once. @default 5000 */
  lockWaitMs: number;
  /** Mutex lease; the section must finish well within it. */
  lockTtlMs: number;
  /** Commit attempts before answering STATE_VERSION_CONFLICT. @default 5 */
  maxAttempts: number;
  /** Protocol timings (a layout-1 stream met here is upgraded with them). */
  protocol: ProtocolConfig;
  /** Random source in [0, 1) for jitter. @default Math.random */
  random?: () => number;
  /** Epoch-ms clock. @default Date.now */
  clock?: () => number;
  /** Told whether each commit applied. @default no-op */
  onCommit?: (ok: boolean) => void;
}

/** What one attempt of a critical section decided. */
export interface Decision<T> {
  /** Write to apply (prefix and the expected revision are filled in); omitted = read-only outcome. */
  commit?: Omit<StreamPlan, 'prefix' | 'expect'>;
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

/** A store that can convert layout-1 streams (both stores can). */
interface Upgradable {
  upgradeLayout1?(prefix: string, config: ProtocolConfig): Promise<boolean>;
}

/**
 * Runs `decide` under the stream's mutex until its commit applies. `decide` gets a fresh
 * snapshot (null when the stream does not exist) on every attempt and must be pure apart
 * from reading it. A layout-1 stream is upgraded first, under the same mutex.
 */
export async function runCritical<T>(
  store: Store,
  prefix: string,
  groups: string[] | 'all',
  opts: CriticalSectionOptions,
  decide: (snapshot: StreamSnapshot | null, attempt: number) => Decision<T> | Promise<Decision<T>>,
): Promise<T> {
  const random = opts.random ?? Math.random;
  const token = randomToken(random);
  await acquireLock(store, prefix, token, opts);
  try {
    for (let attempt = 1; ; attempt++) {
      const snapshot = await loadUpgrading(store, prefix, groups, opts.protocol);
      const decision = await decide(snapshot, attempt);
      if (!decision.commit) return decision.result;
      const res = await store.commit({
        ...decision.commit,
        prefix,
        expect: snapshot ? { rev: snapshot.revision } : 'absent',
      });
      opts.onCommit?.(res.ok);
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

/** `store.load`, upgrading a layout-1 stream first (the caller holds the stream mutex). */
export async function loadUpgrading(
  store: Store,
  prefix: string,
  groups: string[] | 'all',
  protocol: ProtocolConfig,
): Promise<StreamSnapshot | null> {
  try {
    return await store.load(prefix, groups);
  } catch (err) {
    const upgradable = store as Store & Upgradable;
    if (!(err instanceof Layout1Error) || !upgradable.upgradeLayout1) throw err;
    await upgradable.upgradeLayout1(prefix, protocol);
    return store.load(prefix, groups);
  }
}

/** Waits up to `lockWaitMs` for the stream mutex (LockBusyError when 0 and busy). */
export async function acquireLock(
  store: Store,
  prefix: string,
  token: string,
  opts: Pick<CriticalSectionOptions, 'lockWaitMs' | 'lockTtlMs' | 'random' | 'clock'>,
): Promise<void> {
  const random = opts.random ?? Math.random;
  const clock = opts.clock ?? Date.now;
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

/** A random lock token. */
export function randomToken(random: () => number = Math.random): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (c?.randomUUID) return c.randomUUID();
  return `${Date.now().toString(36)}-${Math.floor(random() * 2 ** 52).toString(36)}`;
}
