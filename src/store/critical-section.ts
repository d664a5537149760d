/**
 * Stream-wide critical sections (docs/protocol.md#concurrency): mutex wait with jittered polling, then load → decide
 * → checked commit, retried on conflicts. Only stream-wide changes take it (create, delete,
 * scale, rollback, resharding passes); heartbeats never do.
 *
 * The mutex is a short lease renewed while the section runs (`lock-lease.ts`), and
 * every commit names it, so a section that lost it never commits. Every commit attempt carries
 * a one-time token: a commit whose reply was lost is sent again and, if the first send applied,
 * the script recognises the token and answers "applied" — the section returns that attempt's
 * result instead of failing on its own write. The streams index (another slot, so outside the
 * commit) is kept here too, under the mutex, around the commits that create or delete a stream.
 */
import { CoordinatorError, isCoordinatorError } from '../core/errors.js';
import { streamLimitReached } from '../core/quotas.js';
import { holdLock, type LockWaitOptions, mutexLost, randomToken } from './lock-lease.js';
import type { CommitOutcome, Store, StreamPlan, StreamSnapshot } from './store.js';

export { LockBusyError, randomToken } from './lock-lease.js';

/** Tuning of lock waits and CAS retries. */
export interface CriticalSectionOptions extends LockWaitOptions {
  /** Commit attempts before answering STATE_VERSION_CONFLICT. @default 5 */
  maxAttempts: number;
  /** Told whether each commit applied. @default no-op */
  onCommit?: (ok: boolean) => void;
  /** Streams the index may list at most; a create beyond is refused before its commit. @default 0 (none) */
  maxStreams?: number;
}

/** What one attempt of a critical section decided. */
export interface Decision<T> {
  /** Write to apply (prefix, expected revision and tokens are filled in); omitted = read-only outcome. */
  commit?: Omit<StreamPlan, 'prefix' | 'expect' | 'token' | 'lock'>;
  result: T;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Pauses before resending a commit whose outcome is unknown (then the error is answered). */
const RESEND_DELAYS_MS = [25, 100, 250, 500];

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
  const lease = await holdLock(store, prefix, opts);
  try {
    for (let attempt = 1; ; attempt++) {
      const snapshot = await store.load(prefix, groups);
      const decision = await decide(snapshot, attempt);
      if (!decision.commit) return decision.result;
      if (lease.lost) throw mutexLost(prefix);
      const plan: StreamPlan = {
        ...decision.commit,
        prefix,
        expect: snapshot ? { rev: snapshot.revision } : 'absent',
        token: randomToken(random),
        lock: lease.token,
      };
      const creates = plan.expect === 'absent' && plan.stream !== undefined && plan.stream !== null;
      // Listed before the stream exists, so a live stream is never missing from the index; the
      // listing is also where the stream quota holds against concurrent creates.
      const limit = opts.maxStreams ?? 0;
      if (creates && !(await store.registerStream(prefix, limit))) throw streamLimitReached(prefix, limit);
      const res = await commitResending(store, plan, random);
      opts.onCommit?.(res.ok);
      if (res.ok) {
        if (creates) await store.registerStream(prefix).catch(() => undefined);
        if (plan.stream === null) await unlist(store, prefix);
        return decision.result;
      }
      if (res.lockLost) throw mutexLost(prefix);
      if (attempt >= opts.maxAttempts) {
        throw new CoordinatorError(
          'STATE_VERSION_CONFLICT',
          `coordination state of stream "${prefix}" kept changing; retry the request`,
        );
      }
      await sleep(Math.floor(random() * 5 * attempt));
    }
  } finally {
    await lease.release();
  }
}

/**
 * `store.commit`, sent again while its outcome is unknown (Redis unreachable after the call may
 * have run): the plan's token makes a second send of an applied plan answer "applied".
 */
async function commitResending(store: Store, plan: StreamPlan, random: () => number): Promise<CommitOutcome> {
  for (let resend = 0; ; resend++) {
    try {
      return await store.commit(plan);
    } catch (e) {
      const delay = RESEND_DELAYS_MS[resend];
      if (!isCoordinatorError(e) || e.code !== 'REDIS_UNAVAILABLE' || delay === undefined) throw e;
      await sleep(delay / 2 + random() * delay);
    }
  }
}

/**
 * Takes a deleted stream off the index, and puts it back if it exists again by then: a create
 * that committed before this removal (its own mutex lease having outrun ours) is then listed
 * after it, and one that commits later lists itself after its commit. Best effort: the delete
 * has committed, so a failure here is not the request's.
 */
async function unlist(store: Store, prefix: string): Promise<void> {
  try {
    await store.unregisterStream(prefix);
    if ((await store.load(prefix, []).catch(() => 'unknown' as const)) !== null) {
      await store.registerStream(prefix);
    }
  } catch {
    // Redis unreachable: a stale entry lists nothing (readers skip absent streams).
  }
}
