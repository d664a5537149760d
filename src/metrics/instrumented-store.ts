/**
 * Metrics through the Store port instead of inside the use-cases: a Store that forwards every
 * call and records CAS conflicts (`commit`), mutex waits (`tryLock`) and fast-path hits
 * (`fastHeartbeat`). Methods the port gains later are forwarded unchanged.
 */
import type { CommitRequest, CommitResult, FastHeartbeatRequest, Store } from '../store/store.js';
import type { CoordinatorMetrics } from './coordinator-metrics.js';
import { forwardingProxy } from './forwarding-proxy.js';

/** Pending waits older than this are dropped (a wait that timed out never acquires). */
const STALE_WAIT_MS = 120_000;
/** Above this many pending waits or fast-path marks, old entries are pruned. */
const PRUNE_ABOVE = 1000;

/**
 * Fast-path hits not yet claimed by the heartbeat that caused them, keyed by
 * (prefix, group, member): `instrumentCoordinator` labels the heartbeat's path with it.
 */
export class FastPathMarks {
  private readonly hits = new Map<string, number>();

  private static key(prefix: string, group: string, memberId: string): string {
    return `${prefix}\u0000${group}\u0000${memberId}`;
  }

  /** Notes a hit for the member. */
  mark(prefix: string, group: string, memberId: string): void {
    // Only a Store used without instrumentCoordinator leaves marks unclaimed; keep that bounded.
    if (this.hits.size > PRUNE_ABOVE) this.hits.clear();
    const k = FastPathMarks.key(prefix, group, memberId);
    this.hits.set(k, (this.hits.get(k) ?? 0) + 1);
  }

  /** True (and consumed) when a hit was noted for the member. */
  claim(prefix: string, group: string, memberId: string): boolean {
    const k = FastPathMarks.key(prefix, group, memberId);
    const n = this.hits.get(k) ?? 0;
    if (n === 0) return false;
    if (n === 1) this.hits.delete(k);
    else this.hits.set(k, n - 1);
    return true;
  }
}

/** `store` with every mutex attempt, commit and fast-path attempt recorded in `metrics`. */
export function instrumentStore(store: Store, metrics: CoordinatorMetrics, marks?: FastPathMarks): Store {
  // Lock token → when its first attempt found the mutex busy (monotonic ms).
  const waits = new Map<string, number>();

  const tryLock = async (prefix: string, token: string, ttlMs: number): Promise<boolean> => {
    const ok = await store.tryLock(prefix, token, ttlMs);
    const now = metrics.now();
    if (ok) {
      const since = waits.get(token);
      waits.delete(token);
      metrics.observeLockAcquired(since === undefined ? null : now - since);
      return true;
    }
    metrics.observeLockBusy();
    if (!waits.has(token)) {
      if (waits.size > PRUNE_ABOVE) {
        for (const [t, at] of waits) if (now - at > STALE_WAIT_MS) waits.delete(t);
      }
      waits.set(token, now);
    }
    return false;
  };

  const commit = async (req: CommitRequest): Promise<CommitResult> => {
    const result = await store.commit(req);
    metrics.observeCommit(result);
    return result;
  };

  const fastHeartbeat = async (req: FastHeartbeatRequest): Promise<string | null> => {
    const text = await store.fastHeartbeat(req);
    metrics.observeFastPath(text !== null);
    if (text !== null) marks?.mark(req.prefix, req.group, req.memberId);
    return text;
  };

  return forwardingProxy(store, { tryLock, commit, fastHeartbeat });
}
