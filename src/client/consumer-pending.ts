/**
 * Pending entries of a shard the member reads: on gaining it, the member's own pending entries
 * (re-read once with `XREADGROUP … 0`) and entries idle under earlier owners (`XAUTOCLAIM` from
 * `0-0` until the cursor returns to `0-0`); while reading, a periodic `XPENDING … IDLE` scan
 * that re-delivers own failed records whose backoff is over and claims entries that became
 * idle under others (`XCLAIM`).
 */
import { backoffMs, type ResolvedConsumerOptions } from './consumer-options.js';
import type { ConsumerRedis } from './consumer-redis.js';
import type { StreamEntry } from './consumer-replies.js';

/** What the pending-entry work needs from its read loop. */
export interface PendingContext {
  redis: ConsumerRedis;
  key: string;
  memberId: string;
  options: ResolvedConsumerOptions;
  /** False once the read loop is stopping. */
  reading(): boolean;
  /** Ids being handled now: never claimed again meanwhile. */
  held: ReadonlySet<string>;
  /** Runs a Redis step; reports a failure and answers undefined. */
  guard<T>(what: string, fn: () => Promise<T>): Promise<T | undefined>;
  /** Hands entries to the handler; `counts` are their delivery counters (this delivery included). */
  dispatch(entries: StreamEntry[], counts: ReadonlyMap<string, number>): Promise<void>;
}

/** On gaining the shard: own pending entries once, then entries idle under earlier owners. */
export async function reclaimOnGain(c: PendingContext): Promise<void> {
  const batch = c.options.pollBatchSize;
  // Own entries first: reading them restarts their idle clock, so XAUTOCLAIM below does not
  // count them a second time.
  let after = '0';
  while (c.reading()) {
    const entries = await c.guard('re-read own pending', () =>
      c.redis.readOwnPending(c.key, c.memberId, batch, after),
    );
    if (!entries || entries.length === 0) break;
    after = entries[entries.length - 1]!.id;
    await dispatchCounted(c, entries);
  }
  let cursor = '0-0';
  while (c.reading()) {
    const claimed = await c.guard('XAUTOCLAIM', () =>
      c.redis.autoClaim(c.key, c.memberId, c.options.claimMinIdleMs, cursor, batch),
    );
    if (!claimed) break;
    await dispatchCounted(c, claimed.entries);
    cursor = claimed.cursor;
    if (cursor === '0-0') break;
  }
}

/** Looks up delivery counters (the replies above do not carry them), then dispatches. */
async function dispatchCounted(c: PendingContext, entries: StreamEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const ids = entries.map((e) => e.id);
  const counts = (await c.guard('XPENDING', () => c.redis.deliveryCounts(c.key, ids))) ?? new Map();
  await c.dispatch(entries, counts);
}

/** The periodic scan of one read loop; it resumes where the previous scan stopped. */
export class PendingScanner {
  private cursor = '-';

  /** Claims and dispatches the entries that are due. */
  async scan(c: PendingContext): Promise<void> {
    const o = c.options;
    const minIdle = Math.min(backoffMs(o.retryBackoff, 1), o.claimMinIdleMs);
    const rows = await c.guard('XPENDING', () =>
      c.redis.scanPending(c.key, minIdle, this.cursor, o.pollBatchSize),
    );
    if (!rows) return;
    // Resume after the last row next time, so entries not yet due cannot hide later ones.
    this.cursor = rows.length < o.pollBatchSize ? '-' : `(${rows[rows.length - 1]!.id}`;
    const due = rows.filter(
      (r) =>
        !c.held.has(r.id) &&
        r.idleMs >= (r.consumer === c.memberId ? backoffMs(o.retryBackoff, r.deliveries) : o.claimMinIdleMs),
    );
    if (due.length === 0) return;
    const ids = due.map((r) => r.id);
    const entries = await c.guard('XCLAIM', () => c.redis.claim(c.key, c.memberId, minIdle, ids));
    if (!entries) return;
    // XCLAIM counts one more delivery.
    const counts = new Map(due.map((r) => [r.id, r.deliveries + 1]));
    await c.dispatch(entries, counts);
  }
}
