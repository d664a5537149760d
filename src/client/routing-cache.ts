/**
 * The producer's routing under a bounded lease: fetched on first use, refreshed in the
 * background once the lease is close to its end, refreshed at once when a route went stale,
 * and never used past its lease — then a fresh answer is required or the call fails closed
 * (the SDK never guesses a shard count). Concurrent callers share one in-flight fetch.
 */
import { ClientError, RoutingUnavailableError } from './errors.js';
import type { ProducerRouting } from './routing.js';

/** Options of `RoutingCache`. */
export interface RoutingCacheOptions {
  /** Fetches and validates the routing (throws typed errors). */
  load: () => Promise<ProducerRouting>;
  /** How long an answer may be used, counted from when its request was sent. */
  leaseMs: number;
  /** Start a background refresh this long before the lease ends (must be below `leaseMs`). */
  refreshAheadMs: number;
  /** After a failed fetch, fail fast for this long instead of asking again on every call. */
  retryAfterFailureMs: number;
  /** Clock in ms. */
  now: () => number;
}

interface Entry {
  routing: ProducerRouting;
  expiresAt: number;
  stale: boolean;
}

/** Lease-bounded, single-flight routing cache. */
export class RoutingCache {
  private entry: Entry | undefined;
  private inFlight: Promise<ProducerRouting> | undefined;
  private lastFailure: { at: number; error: ClientError } | undefined;

  constructor(private readonly opts: RoutingCacheOptions) {}

  /** Routing that is within its lease and not known stale; fetches (or fails closed) otherwise. */
  async current(): Promise<ProducerRouting> {
    const now = this.opts.now();
    const entry = this.entry;
    if (entry && !entry.stale && now < entry.expiresAt) {
      if (now >= entry.expiresAt - this.opts.refreshAheadMs) this.refreshInBackground(now);
      return entry.routing;
    }
    if (this.inFlight) return this.inFlight;
    const failure = this.lastFailure;
    if (failure && now < failure.at + this.opts.retryAfterFailureMs) throw failure.error;
    return this.refresh();
  }

  /**
   * Marks `used` stale after a write found its shard key missing, so the next `current()`
   * fetches at once. A routing that was already replaced is left alone (its callers raced a
   * refresh that has happened since).
   */
  invalidate(used: ProducerRouting): void {
    if (this.entry?.routing === used) this.entry.stale = true;
    // A failure remembered from before says nothing about the new situation: ask now.
    this.lastFailure = undefined;
  }

  /** Fetches now unless a fetch is already in flight (then shares it). */
  refresh(): Promise<ProducerRouting> {
    if (this.inFlight) return this.inFlight;
    const sentAt = this.opts.now();
    const attempt = this.fetch(sentAt).finally(() => {
      if (this.inFlight === attempt) this.inFlight = undefined;
    });
    this.inFlight = attempt;
    return attempt;
  }

  /** The routing last fetched, if any, whatever its lease (diagnostics). */
  peek(): ProducerRouting | undefined {
    return this.entry?.routing;
  }

  private async fetch(sentAt: number): Promise<ProducerRouting> {
    try {
      const routing = await this.opts.load();
      this.entry = { routing, expiresAt: sentAt + this.opts.leaseMs, stale: false };
      this.lastFailure = undefined;
      return routing;
    } catch (err) {
      const error = asRoutingError(err);
      this.lastFailure = { at: this.opts.now(), error };
      throw error;
    }
  }

  private refreshInBackground(now: number): void {
    if (this.inFlight) return;
    const failure = this.lastFailure;
    if (failure && now < failure.at + this.opts.retryAfterFailureMs) return;
    // The current answer stays usable until its lease ends; a failure here only delays.
    this.refresh().catch(() => {});
  }
}

/** Validation failures keep their type; anything else means the coordinator could not answer. */
function asRoutingError(err: unknown): ClientError {
  if (err instanceof ClientError && err.code === 'INVALID_ROUTING') return err;
  const why = err instanceof Error ? err.message : 'unknown error';
  return new RoutingUnavailableError(`producer routing unavailable: ${why}`, err);
}
