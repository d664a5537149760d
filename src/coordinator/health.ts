/**
 * Redis reachability as the health endpoints report it: one PING at a time, its result cached
 * (1 s for monitoring health, docs/protocol.md#monitoring-views; 250 ms for readiness, so an instance is ready again
 * within a second of Redis returning), and one log line per change of state, not per request.
 * Readiness also refuses a Redis whose eviction policy may drop coordinator keys (`eviction-check.ts`).
 */
import type { RedisCheck, RedisHealth } from '../coordinator-api.js';
import type { PingOutcome, Store } from '../store/store.js';
import type { Logger } from './context.js';
import type { EvictionPolicyCheck } from './eviction-check.js';

/** How old a PING result `/monitoring/health` accepts (docs/protocol.md#monitoring-views). */
const HEALTH_CACHE_MS = 1000;
/**
 * How old a PING result readiness accepts. With one probe in flight at a time, a flood of
 * health requests costs Redis at most ~4 PINGs a second.
 */
const READINESS_CACHE_MS = 250;

/** A probe still pending after this long is given up on (its runtime may have dropped it). */
const STUCK_PROBE_MS = 10_000;

/** The cached PING result of a store. */
export class RedisHealthProbe {
  private value: RedisCheck = { status: 'UNKNOWN' };
  private at = Number.NEGATIVE_INFINITY;
  private pending: Promise<void> | null = null;
  private pendingSince = 0;

  constructor(
    private readonly store: Pick<Store, 'ping' | 'pingOutcome'>,
    private readonly now: () => number,
    private readonly log: Logger = () => {},
    /** Readiness's eviction-policy verdict; none = not checked. */
    private readonly eviction: EvictionPolicyCheck | null = null,
  ) {}

  /** The latest PING status, refreshed when older than `maxAgeMs` (the eviction policy plays no part). */
  async get(maxAgeMs = HEALTH_CACHE_MS): Promise<RedisHealth> {
    return (await this.pinged(maxAgeMs)).status;
  }

  /**
   * Readiness: the PING status and why it is DOWN, refreshed when older than `maxAgeMs`; a
   * reachable Redis whose eviction policy is refused is DOWN with that reason.
   */
  async check(maxAgeMs = READINESS_CACHE_MS): Promise<RedisCheck> {
    const pinged = await this.pinged(maxAgeMs);
    if (pinged.status !== 'UP' || !this.eviction) return pinged;
    const refusal = await this.eviction.refusal();
    return refusal === null ? pinged : { status: 'DOWN', error: refusal };
  }

  /**
   * The PING status, refreshed when older than `maxAgeMs`: callers wait for the one probe in
   * flight (a Worker must: a promise its request does not wait for is dropped with the request).
   * Stores answer a PING quickly while disconnected, so the wait is short.
   */
  private async pinged(maxAgeMs: number): Promise<RedisCheck> {
    const t = this.now();
    if (t - this.at < maxAgeMs) return this.value;
    if (!this.pending || t - this.pendingSince > STUCK_PROBE_MS) {
      this.pendingSince = t;
      const probe: Promise<void> = this.outcome()
        .catch((): PingOutcome => ({ ok: false, error: 'unreachable' }))
        .then((o) => {
          if (this.pending === probe)
            this.settle(o.ok ? { status: 'UP' } : { status: 'DOWN', error: o.error });
        });
      this.pending = probe;
    }
    await this.pending;
    return this.value;
  }

  /** Waits for a probe in flight. */
  async idle(): Promise<void> {
    await this.pending;
    await this.eviction?.idle();
  }

  private async outcome(): Promise<PingOutcome> {
    if (this.store.pingOutcome) return this.store.pingOutcome();
    return (await this.store.ping()) ? { ok: true } : { ok: false, error: 'unreachable' };
  }

  private settle(next: RedisCheck): void {
    const prev = this.value;
    this.value = next;
    this.at = this.now();
    this.pending = null;
    if (next.status === 'DOWN' && (prev.status !== 'DOWN' || prev.error !== next.error)) {
      this.log('error', 'Redis unavailable', { reason: next.error });
    } else if (next.status === 'UP' && prev.status === 'DOWN') {
      this.log('info', 'Redis reachable again');
    }
  }
}
