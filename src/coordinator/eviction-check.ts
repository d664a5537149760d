/**
 * Redis' eviction policy as readiness sees it (docs/running-redis.md#eviction-policy). A group's
 * state spans a dozen keys; under an `allkeys-*` policy Redis may drop some of them (the ones
 * steady heartbeats never touch go first), so readiness refuses such a Redis unless
 * COORDINATOR_ALLOW_EVICTION says otherwise. Under `volatile-*` only keys with a TTL can go
 * (idempotency markers, locks): a warning. The reading is cached, so a policy changed at runtime
 * is noticed within `POLICY_MAX_AGE_MS`, and each change of verdict is logged once.
 */
import type { Store } from '../store/store.js';
import type { Logger } from './context.js';

/** How old a policy reading readiness accepts (probes are frequent; policies rarely change). */
const POLICY_MAX_AGE_MS = 30_000;

/** A reading still pending after this long is given up on (its runtime may have dropped it). */
const STUCK_READ_MS = 10_000;

/** What the last reading said. */
type Reading = { kind: 'unread' } | { kind: 'policy'; policy: string } | { kind: 'unreadable'; why: string };

/** The readiness refusal for `policy`, naming it and the two ways out. */
function evictionRefusal(policy: string): string {
  return (
    `redis maxmemory-policy is ${policy}: coordinator keys may be evicted; ` +
    'set noeviction (or volatile-*) or COORDINATOR_ALLOW_EVICTION=true'
  );
}

/** The store's eviction policy, read at most every 30 s, with readiness's verdict on it. */
export class EvictionPolicyCheck {
  private reading: Reading = { kind: 'unread' };
  private at = Number.NEGATIVE_INFINITY;
  private pending: Promise<void> | null = null;
  private pendingSince = 0;
  /** The verdict last logged, so each is logged once. */
  private logged = 'noeviction';

  constructor(
    private readonly store: Pick<Store, 'evictionPolicy'>,
    private readonly allowEviction: boolean,
    private readonly now: () => number,
    private readonly log: Logger,
  ) {}

  /** Why readiness must be DOWN, or null: re-reads the policy when the reading is stale. */
  async refusal(): Promise<string | null> {
    const t = this.now();
    if (t - this.at >= POLICY_MAX_AGE_MS) {
      if (!this.pending || t - this.pendingSince > STUCK_READ_MS) {
        this.pendingSince = t;
        const read: Promise<void> = this.read().then((r) => {
          if (this.pending === read) this.settle(r);
        });
        this.pending = read;
      }
      await this.pending;
    }
    const r = this.reading;
    if (r.kind !== 'policy' || this.allowEviction || !r.policy.startsWith('allkeys-')) return null;
    return evictionRefusal(r.policy);
  }

  /** Waits for a reading in flight. */
  async idle(): Promise<void> {
    await this.pending;
  }

  private async read(): Promise<Reading> {
    if (!this.store.evictionPolicy) return { kind: 'unreadable', why: 'the store cannot read INFO' };
    try {
      const policy = await this.store.evictionPolicy();
      return policy === null
        ? { kind: 'unreadable', why: 'INFO memory does not report maxmemory_policy' }
        : { kind: 'policy', policy };
    } catch {
      return { kind: 'unreadable', why: 'INFO memory refused or failed' };
    }
  }

  private settle(next: Reading): void {
    this.pending = null;
    this.at = this.now();
    // A failed re-read keeps the last policy seen: one lost reply must not make readiness UP.
    if (next.kind === 'unreadable' && this.reading.kind === 'policy') return;
    this.reading = next;
    this.report(next);
  }

  private report(r: Reading): void {
    const verdict = r.kind === 'policy' ? r.policy : r.kind;
    if (verdict === this.logged || r.kind === 'unread') return;
    const before = this.logged;
    this.logged = verdict;
    if (r.kind === 'unreadable') {
      this.log('info', 'Redis maxmemory-policy cannot be read; eviction is not checked', { reason: r.why });
      return;
    }
    const policy = r.policy;
    if (policy.startsWith('allkeys-')) {
      if (this.allowEviction) {
        this.log(
          'warn',
          'Redis may evict coordinator keys; serving because COORDINATOR_ALLOW_EVICTION=true',
          {
            maxmemoryPolicy: policy,
          },
        );
      } else {
        this.log('error', 'Redis may evict coordinator keys; readiness is DOWN', {
          maxmemoryPolicy: policy,
          reason: evictionRefusal(policy),
        });
      }
    } else if (policy.startsWith('volatile-')) {
      this.log(
        'warn',
        'Redis may evict keys with a TTL early: idempotency markers (weaker duplicate detection) and locks',
        {
          maxmemoryPolicy: policy,
        },
      );
    } else if (before !== 'unreadable') {
      // Back to a policy that evicts nothing after a logged warning or refusal.
      this.log('info', 'Redis maxmemory-policy evicts no coordinator keys', { maxmemoryPolicy: policy });
    }
  }
}
