/**
 * The read loop of one member on one shard. On start it re-reads the member's own pending
 * entries and claims entries idle under earlier owners (`XAUTOCLAIM`), then reads new entries
 * (`XREADGROUP … BLOCK … STREAMS key >`) on a dedicated connection, hands them to the handler
 * through the member's fair semaphore, acks in coalesced writes, re-delivers failed records
 * after their backoff and dead-letters records past `maxDeliveries`.
 *
 * Stopping is soft (revoke, shutdown: finish what was read) or hard (lease lost, fenced: start
 * nothing more, abandon the blocked read). A record is only handed to the handler while the
 * member's local lease is valid; abandoned records stay pending and are claimed again later.
 * Neither stop waits on a Redis that does not answer: a hard stop gives up the loop's Redis
 * waits at once, a soft one once its last read should have returned; the final acks are waited
 * for a bounded time (unconfirmed, their records stay pending and are delivered again).
 */
import { unlessAbandoned } from './consumer-abandon.js';
import { AckBuffer, readNewWithAcks } from './consumer-acks.js';
import { OwnershipLostError } from './consumer-errors.js';
import type { ConsumerEvents } from './consumer-events.js';
import { claimBeforeReading, releaseOwnership, shardRedis } from './consumer-fence.js';
import type { ConsumerHandler, ResolvedConsumerOptions } from './consumer-options.js';
import { type PendingContext, PendingScanner, reclaimOnGain } from './consumer-pending.js';
import { ShardRecords } from './consumer-records.js';
import { type ConsumerClient, type ConsumerRedis, closeConnection } from './consumer-redis.js';
import { isRedisTimeout } from './consumer-redis-wait.js';
import { compareIds, type StreamEntry } from './consumer-replies.js';
import { FairSemaphore } from './consumer-semaphore.js';
import type { LocalProgress } from './member-protocol.js';

/** What a reader needs from its member. */
export interface ReaderContext {
  memberId: string;
  shard: number;
  options: ResolvedConsumerOptions;
  redis: ConsumerRedis;
  handler: ConsumerHandler;
  events: ConsumerEvents;
  /** The member's semaphore (lanes = shards). */
  semaphore: FairSemaphore;
  /** Shard assigned by the latest successful heartbeat and local lease valid. */
  mayRead: () => boolean;
  /** Local lease valid (enough to finish work on a shard being revoked). */
  leaseValid: () => boolean;
  /** Assignment epoch of the answer that granted the shard (the fencing epoch of its acks). */
  grantEpoch: number;
  /** A fenced write was refused (the shard has a newer owner): `ids` were not applied now. */
  onOwnershipLost: (err: OwnershipLostError, ids: string[], inDoubt?: string[]) => void;
  /** @default Date.now */
  now?: () => number;
}

type Mode = 'reading' | 'draining' | 'aborted';

/** Pause after a failed read before trying again, ms. */
const READ_RETRY_MS = 500;
/**
 * After a soft stop, how long past its BLOCK time the last read may take before it is given up,
 * ms; the acks written at the end of the stop get as long.
 */
const STOP_READ_GRACE_MS = 1000;
/** After a hard stop, how long acks not yet confirmed may hold up the end of the stop, ms. */
const HARD_STOP_ACK_WAIT_MS = 250;

/** Reads one shard for one member until stopped. */
export class ShardReader {
  readonly key: string;
  readonly startedAt: number;
  lastDeliveredId: string | null = null;
  lastAckedId: string | null = null;
  private mode: Mode = 'reading';
  /** Aborted at a hard stop: handlers are told to stop, nothing more is started. */
  private readonly abort = new AbortController();
  /** Aborted when the loop must stop waiting for Redis (hard stop, or a soft stop's read overdue). */
  private readonly giveUp = new AbortController();
  private giveUpTimer: ReturnType<typeof setTimeout> | null = null;
  private hardStopped: () => void = () => {};
  private readonly hardStop = new Promise<void>((resolve) => {
    this.hardStopped = resolve;
  });
  private readonly shardSlots: FairSemaphore;
  private readonly acks: AckBuffer;
  private readonly records: ShardRecords;
  /** Ids whose handler (or dead-letter write) is still running: never claimed again meanwhile. */
  private readonly held = new Set<string>();
  private readonly tasks = new Set<Promise<void>>();
  private conn: ConsumerClient | null = null;
  private readonly scanner = new PendingScanner();
  private readonly pendingContext: PendingContext;
  private loop: Promise<void> | null = null;
  private finished: Promise<void> | null = null;
  private readonly now: () => number;
  private wake: (() => void) | null = null;
  /** Plain, or fenced by this grant's ownership token (`fencedAcks`). */
  private readonly redis: ConsumerRedis;

  constructor(private readonly ctx: ReaderContext) {
    this.now = ctx.now ?? Date.now;
    this.key = `${ctx.options.streamPrefix}:${ctx.shard}`;
    this.startedAt = this.now();
    this.shardSlots = new FairSemaphore(ctx.options.maxInFlightPerShard);
    this.redis = shardRedis(ctx);
    const redis = this.redis;
    this.acks = new AckBuffer(
      redis,
      this.key,
      (ids) => this.onAcked(ids),
      (err) => ctx.events.error(ctx.memberId, `ack ${this.key}`, err),
      (err, ids, inDoubt) => this.ctx.onOwnershipLost(err, ids, inDoubt),
    );
    this.records = new ShardRecords({
      memberId: ctx.memberId,
      shard: ctx.shard,
      key: this.key,
      options: ctx.options,
      redis,
      handler: ctx.handler,
      events: ctx.events,
      acks: this.acks,
      signal: this.abort.signal,
      lost: (err, ids) => this.ctx.onOwnershipLost(err, ids),
    });
    this.pendingContext = {
      redis,
      key: this.key,
      memberId: ctx.memberId,
      options: ctx.options,
      reading: () => this.mode === 'reading',
      held: this.held,
      guard: (what, fn) => this.guard(what, fn),
      dispatch: (entries, counts) => this.dispatch(entries, counts),
    };
  }

  /** Starts the loop (once). */
  start(): void {
    this.ctx.events.emit('ownership', {
      memberId: this.ctx.memberId,
      shard: this.ctx.shard,
      start: this.startedAt,
      end: null,
    });
    this.loop ??= this.run();
  }

  /** Records being worked on: handlers and dead-letter writes running, acks not yet written. */
  inFlight(): number {
    return this.tasks.size + this.acks.size;
  }

  private isAborted(): boolean {
    return this.mode === 'aborted';
  }

  /** True once a stop was asked. */
  stopping(): boolean {
    return this.mode !== 'reading';
  }

  /** Progress for heartbeats. */
  progress(): LocalProgress {
    return {
      shard: this.ctx.shard,
      streamKey: this.key,
      lastDeliveredId: this.lastDeliveredId,
      lastAckedId: this.lastAckedId,
      pendingCount: this.held.size + this.records.failedCount + this.acks.size,
    };
  }

  /**
   * Stops reading. Soft: records already read are still handled; a read Redis has not answered
   * by its BLOCK time plus a grace is given up. Hard: nothing more is handed to the handler and
   * every Redis wait of the loop is given up at once (the connection is torn down). Resolves
   * once the loop has ended, every started handler has finished and its ack is written — acks
   * still unconfirmed shortly after a hard stop, or a read's BLOCK time plus a grace after a
   * soft one's work is done, are left to finish or fail on their own — whatever the connection
   * does; the ownership interval then closes.
   */
  stop(hard: boolean): Promise<void> {
    if (hard && this.mode !== 'aborted') {
      this.mode = 'aborted';
      this.abort.abort();
      this.giveUp.abort();
      this.hardStopped();
      this.ctx.semaphore.cancel(this.ctx.shard);
      this.shardSlots.cancel(0);
      if (this.conn) closeConnection(this.conn);
    } else if (this.mode === 'reading') {
      this.mode = 'draining';
      // A read on a Redis that stopped answering would hold the drain forever.
      this.giveUpTimer = setTimeout(() => this.giveUp.abort(), this.ctx.options.blockMs + STOP_READ_GRACE_MS);
    }
    this.wake?.();
    this.finished ??= this.finish();
    return this.finished;
  }

  private async finish(): Promise<void> {
    await this.loop;
    if (this.giveUpTimer) clearTimeout(this.giveUpTimer);
    if (this.conn) closeConnection(this.conn);
    while (this.tasks.size > 0) await Promise.allSettled([...this.tasks]);
    const workDone = this.now();
    // An ack on a Redis that stopped answering never settles: neither stop waits for it forever.
    let ackTimer: ReturnType<typeof setTimeout> | undefined;
    const flushed = await Promise.race([
      this.acks.flushed().then(() => true),
      this.hardStop.then(() => new Promise<false>((r) => setTimeout(r, HARD_STOP_ACK_WAIT_MS, false))),
      new Promise<false>((r) => {
        ackTimer = setTimeout(r, this.ctx.options.blockMs + STOP_READ_GRACE_MS, false);
      }),
    ]);
    clearTimeout(ackTimer);
    // A revoke completed cleanly: let the next owner's claim find no token of ours (not worth
    // waiting for longer than the acks were).
    if (flushed && this.mode === 'draining') {
      const timer = setTimeout(() => this.giveUp.abort(), this.ctx.options.blockMs + STOP_READ_GRACE_MS);
      await this.guard('release', () => releaseOwnership(this.redis, this.key));
      clearTimeout(timer);
    }
    this.ctx.events.emit('ownership', {
      memberId: this.ctx.memberId,
      shard: this.ctx.shard,
      start: this.startedAt,
      // Acks Redis has not confirmed are no work on the shard: the interval ends with the handlers.
      end: flushed ? this.now() : workDone,
    });
  }

  private async run(): Promise<void> {
    const o = this.ctx.options;
    try {
      const reading = () => this.mode === 'reading';
      const sleep = (ms: number) => this.sleep(ms);
      const loop = { reading, mayRead: this.ctx.mayRead, sleep, giveUp: this.giveUp.signal };
      if (!(await claimBeforeReading(this.redis, this.key, loop, this.ctx.events))) return;
      this.conn = this.ctx.redis.dedicated();
      await reclaimOnGain(this.pendingContext);
      let nextScan = this.now() + o.pendingScanIntervalMs;
      while (this.mode === 'reading') {
        if (!this.ctx.mayRead()) {
          // The member is about to stop or renew us; do not read meanwhile.
          await this.sleep(Math.min(100, o.blockMs));
          continue;
        }
        let entries: StreamEntry[];
        try {
          entries = await readNewWithAcks({
            redis: this.redis,
            acks: this.acks,
            conn: this.conn,
            key: this.key,
            consumer: this.ctx.memberId,
            count: o.pollBatchSize,
            blockMs: o.blockMs,
            giveUp: this.giveUp.signal,
          });
        } catch (err) {
          // Stopping: a failed or abandoned read is not retried.
          if (this.stopping()) break;
          this.ctx.events.error(this.ctx.memberId, `read ${this.key}`, err);
          // A read queued on a connection that is reconnecting would be sent late, and the
          // reads queued behind it later still: read on a new connection instead.
          if (isRedisTimeout(err)) {
            closeConnection(this.conn);
            this.conn = this.ctx.redis.dedicated();
          }
          await this.sleep(READ_RETRY_MS);
          continue;
        }
        // Read while allowed, but the lease may have run out meanwhile: then the entries stay pending.
        if (this.isAborted() || !this.ctx.leaseValid()) continue;
        if (entries.length > 0) {
          this.lastDeliveredId = entries[entries.length - 1]!.id;
          await this.dispatch(entries, null);
        }
        if (this.mode === 'reading' && this.now() >= nextScan) {
          await this.scanner.scan(this.pendingContext);
          nextScan = this.now() + o.pendingScanIntervalMs;
        }
      }
    } catch (err) {
      if (err instanceof OwnershipLostError) this.ctx.onOwnershipLost(err, []);
      else this.ctx.events.error(this.ctx.memberId, `read loop ${this.key}`, err);
    }
  }

  /**
   * Hands records to the handler one by one as permits allow (fair across the member's shards).
   * `counts` are the delivery counters of re-delivered entries; null for new entries (1 each).
   * Records not handed over (stop, lease lapsed) stay pending in Redis, claimable again.
   */
  private async dispatch(entries: StreamEntry[], counts: ReadonlyMap<string, number> | null): Promise<void> {
    const max = this.ctx.options.maxDeliveries;
    for (const entry of entries) {
      if (this.isAborted() || !this.ctx.leaseValid()) return;
      // The scan and the reclaim run between reads, so only running tasks can be seen again.
      if (counts && this.held.has(entry.id)) continue;
      const deliveries = counts?.get(entry.id) ?? 1;
      if (entry.fields === null) {
        // Deleted while pending: nothing to handle, clear it from the PEL.
        this.acks.push(entry.id, false);
        continue;
      }
      if (deliveries > max) {
        this.track(this.records.deadLetterUnhandled(entry, deliveries), entry.id);
        continue;
      }
      // Permits without a promise when free; waiting is fair across the member's shards.
      let waited = false;
      if (!this.shardSlots.tryAcquire()) {
        waited = true;
        if (!(await this.shardSlots.acquire(0))) return;
      }
      if (!this.ctx.semaphore.tryAcquire()) {
        waited = true;
        if (!(await this.ctx.semaphore.acquire(this.ctx.shard))) {
          this.shardSlots.release();
          return;
        }
      }
      // After a wait the lease may have lapsed or the shard been dropped meanwhile.
      if (waited && (this.isAborted() || !this.ctx.leaseValid())) {
        this.releasePermits();
        return;
      }
      const pending = this.records.handle(entry, deliveries);
      if (pending)
        this.track(
          pending.finally(() => this.releasePermits()),
          entry.id,
        );
      else this.releasePermits();
    }
  }

  private releasePermits(): void {
    this.ctx.semaphore.release();
    this.shardSlots.release();
  }

  /** Tracks a record's task until it settles; its id stays held (never claimed again) until then. */
  private track(task: Promise<void>, id: string): void {
    this.held.add(id);
    const tracked: Promise<void> = task
      .catch((err) => this.ctx.events.error(this.ctx.memberId, `record ${this.key}`, err))
      .finally(() => {
        this.tasks.delete(tracked);
        this.held.delete(id);
      });
    this.tasks.add(tracked);
  }

  private onAcked(ids: readonly string[]): void {
    for (const id of ids) {
      if (this.lastAckedId === null || compareIds(id, this.lastAckedId) > 0) this.lastAckedId = id;
    }
  }

  /** Runs a Redis step; on failure reports it and answers undefined. */
  private async guard<T>(what: string, fn: () => Promise<T>): Promise<T | undefined> {
    try {
      return await unlessAbandoned(fn(), this.giveUp.signal, what);
    } catch (err) {
      if (err instanceof OwnershipLostError) this.ctx.onOwnershipLost(err, []);
      else if (!this.giveUp.signal.aborted)
        this.ctx.events.error(this.ctx.memberId, `${what} ${this.key}`, err);
      return undefined;
    }
  }

  /** Sleeps `ms`, cut short by a stop. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }
}
