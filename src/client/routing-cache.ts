/**
 * The producer's routing under a bounded lease: fetched on first use, revalidated in the
 * background every `revalidateMs` while it is used (a conditional request that the coordinator
 * answers 304 while nothing changed, docs/producing.md#routing-after-a-scale), refreshed in the
 * background once the lease is close to its end, refreshed at once when a route went stale, and
 * never used past its lease — then a fresh answer is required or the call fails closed (the SDK
 * never guesses a shard count). One request at a time: concurrent callers share it.
 */
import { ClientError, RoutingUnavailableError } from './errors.js';
import type { ProducerRouting } from './routing.js';

/** What one routing request answered: a routing with its validator, or "unchanged" (HTTP 304). */
export type RoutingAnswer =
  | { unchanged: false; routing: ProducerRouting; etag: string | undefined }
  | { unchanged: true };

/** Options of `RoutingCache`. */
export interface RoutingCacheOptions {
  /**
   * Fetches and validates the routing (throws typed errors). With the cached answer's `etag`
   * it asks conditionally and may answer `unchanged`.
   */
  load: (etag: string | undefined) => Promise<RoutingAnswer>;
  /** How long an answer may be used, counted from when its request was sent. */
  leaseMs: number;
  /** Start a background refresh this long before the lease ends (must be below `leaseMs`). */
  refreshAheadMs: number;
  /** Ask again in the background this long after the last request, when used (0: only near the lease end). */
  revalidateMs: number;
  /** After a failed fetch, fail fast for this long instead of asking again on every call. */
  retryAfterFailureMs: number;
  /** Clock in ms. */
  now: () => number;
}

interface Entry {
  readonly routing: ProducerRouting;
  readonly etag: string | undefined;
  expiresAt: number;
  /** Set by `invalidate`: the sequence number of the invalidation. */
  staleAt: number | undefined;
}

interface Flight {
  readonly promise: Promise<ProducerRouting>;
  /** Sequence number at sending: an answer vouches only for what was known before it. */
  readonly seq: number;
}

/** Lease-bounded, single-flight routing cache. */
export class RoutingCache {
  private entry: Entry | undefined;
  private inFlight: Flight | undefined;
  private lastFailure: { at: number; error: ClientError } | undefined;
  /** When the last request was sent (revalidation is counted from it, successful or not). */
  private lastSentAt = Number.NEGATIVE_INFINITY;
  /** Orders requests and invalidations without relying on the clock's resolution. */
  private seq = 0;

  constructor(private readonly opts: RoutingCacheOptions) {}

  /** Routing that is within its lease and not known stale; fetches (or fails closed) otherwise. */
  async current(): Promise<ProducerRouting> {
    const now = this.opts.now();
    const entry = this.entry;
    if (entry && entry.staleAt === undefined && now < entry.expiresAt) {
      if (this.due(entry, now)) this.refreshInBackground();
      return entry.routing;
    }
    const flight = this.inFlight;
    if (flight) {
      // A request sent before the route was found stale cannot vouch for it: let it land, then ask anew.
      if (entry?.staleAt !== undefined && flight.seq < entry.staleAt) {
        await flight.promise.catch(() => {});
        return this.current();
      }
      return flight.promise;
    }
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
    if (this.entry?.routing === used) this.entry.staleAt = ++this.seq;
    // A failure remembered from before says nothing about the new situation: ask now.
    this.lastFailure = undefined;
  }

  /** Fetches now unless a fetch is already in flight (then shares it). */
  refresh(): Promise<ProducerRouting> {
    if (this.inFlight) return this.inFlight.promise;
    const sentAt = this.opts.now();
    this.lastSentAt = sentAt;
    const seq = ++this.seq;
    const promise = this.fetch(sentAt, seq).finally(() => {
      if (this.inFlight?.promise === promise) this.inFlight = undefined;
    });
    this.inFlight = { promise, seq };
    return promise;
  }

  /** Resolves once the request in flight, if any, has landed (never rejects). */
  settled(): Promise<void> {
    return this.inFlight ? this.inFlight.promise.then(ignore, ignore) : Promise.resolve();
  }

  /** The routing last fetched, if any, whatever its lease (diagnostics). */
  peek(): ProducerRouting | undefined {
    return this.entry?.routing;
  }

  private async fetch(sentAt: number, seq: number): Promise<ProducerRouting> {
    const asked = this.entry;
    try {
      const answer = await this.opts.load(asked?.etag);
      const lease = sentAt + this.opts.leaseMs;
      this.lastFailure = undefined;
      if (answer.unchanged || (answer.etag !== undefined && answer.etag === asked?.etag)) {
        if (!asked) throw new Error('the coordinator answered "not modified" to an unconditional request');
        // The answer proves the routing current as of `sentAt`, so the lease runs from then. It
        // says nothing about an invalidation that came later: that one stays.
        if (this.entry === asked && (asked.staleAt === undefined || asked.staleAt < seq)) {
          asked.staleAt = undefined;
          asked.expiresAt = Math.max(asked.expiresAt, lease);
        }
        return asked.routing;
      }
      this.entry = { routing: answer.routing, etag: answer.etag, expiresAt: lease, staleAt: undefined };
      return answer.routing;
    } catch (err) {
      const error = asRoutingError(err);
      this.lastFailure = { at: this.opts.now(), error };
      throw error;
    }
  }

  /** Near the lease end, or `revalidateMs` after the last request; never sooner than a failure allows. */
  private due(entry: Entry, now: number): boolean {
    if (this.inFlight) return false;
    const failure = this.lastFailure;
    if (failure && now < failure.at + this.opts.retryAfterFailureMs) return false;
    if (now >= entry.expiresAt - this.opts.refreshAheadMs) return true;
    return this.opts.revalidateMs > 0 && now >= this.lastSentAt + this.opts.revalidateMs;
  }

  private refreshInBackground(): void {
    // The current answer stays usable until its lease ends; a failure here only delays.
    this.refresh().catch(() => {});
  }
}

const ignore = () => {};

/** Validation failures keep their type; anything else means the coordinator could not answer. */
function asRoutingError(err: unknown): ClientError {
  if (err instanceof ClientError && err.code === 'INVALID_ROUTING') return err;
  const why = err instanceof Error ? err.message : 'unknown error';
  return new RoutingUnavailableError(`producer routing unavailable: ${why}`, err);
}
