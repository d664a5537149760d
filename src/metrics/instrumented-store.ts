/**
 * Mutex metrics through the Store port: a Store that forwards every call and records each
 * attempt at a stream mutex (`tryLock` without a group) — acquired at once, busy, or acquired
 * after waiting. Everything else the coordinator reports as events (`CoordinatorMetrics.observeEvent`).
 */
import type { Store } from '../store/store.js';
import type { CoordinatorMetrics } from './coordinator-metrics.js';
import { forwardingProxy } from './forwarding-proxy.js';

/** Pending waits older than this are dropped (a wait that timed out never acquires). */
const STALE_WAIT_MS = 120_000;
/** Above this many pending waits, old entries are pruned. */
const PRUNE_ABOVE = 1000;

/** `store` with every stream-mutex attempt recorded in `metrics`. */
export function instrumentStore(store: Store, metrics: CoordinatorMetrics): Store {
  // Lock token → when its first attempt found the mutex busy (monotonic ms).
  const waits = new Map<string, number>();

  const tryLock = async (prefix: string, token: string, ttlMs: number, group?: string): Promise<boolean> => {
    const ok = await store.tryLock(prefix, token, ttlMs, group);
    if (group !== undefined) return ok;
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

  return forwardingProxy(store, { tryLock });
}
