/**
 * Redis reachability as the monitoring health endpoint reports it: one PING at a time, cached
 * for a second (PROTOCOL §2.9).
 */
import type { RedisHealth } from '../coordinator-api.js';
import type { Store } from '../store/store.js';

const HEALTH_CACHE_MS = 1000;

/** The cached PING result of a store. */
export class RedisHealthProbe {
  private value: RedisHealth = 'UNKNOWN';
  private at = 0;
  private pending: Promise<void> | null = null;

  constructor(
    private readonly store: Pick<Store, 'ping'>,
    private readonly now: () => number,
  ) {}

  /** The latest result; the first probe is awaited so a fresh instance does not say UNKNOWN. */
  async get(): Promise<RedisHealth> {
    if (this.now() - this.at >= HEALTH_CACHE_MS && !this.pending) {
      this.pending = this.store
        .ping()
        .then((ok) => this.settle(ok ? 'UP' : 'DOWN'))
        .catch(() => this.settle('DOWN'));
    }
    if (this.value === 'UNKNOWN' && this.pending) await this.pending;
    return this.value;
  }

  /** Waits for a probe in flight. */
  async idle(): Promise<void> {
    await this.pending;
  }

  private settle(value: RedisHealth): void {
    this.value = value;
    this.at = this.now();
    this.pending = null;
  }
}
