/**
 * Coalesces the acks of one shard. Acks waiting when the read loop is about to read again ride
 * along with that read (`XACK` sent just before `XREADGROUP` on the read connection: no extra
 * round trip per batch); acks of records finishing while the loop is blocked in a read go out
 * in one `XACK key g id…` on the shared client, after the current macrotask. A failed write is retried a few times; then the ids are given up (they stay
 * pending and are delivered again: at-least-once). A fenced write refused because the shard has
 * a newer owner (`OwnershipLostError`) is never retried: its ids and every later ack are
 * dropped (reported to `onLost`), left pending for the owner — unless an earlier send whose
 * outcome was unknown got through while the shard was still this member's (`inDoubt`).
 */
import { unlessAbandoned } from './consumer-abandon.js';
import { OwnershipLostError } from './consumer-errors.js';
import type { ConsumerClient, ConsumerRedis } from './consumer-redis.js';
import type { StreamEntry } from './consumer-replies.js';

/** Attempts per ack write before its ids are given up. */
const MAX_ATTEMPTS = 5;

/** Acks taken to travel with a read; the read loop reports how their write went. */
export interface AckRide {
  ids: string[];
  written(): void;
  failed(err: unknown): void;
  /** The read was given up before its outcome was known: the acks go out the ordinary way. */
  requeue(): void;
}

/** Pending acks of one shard stream. */
export class AckBuffer {
  private acks: string[] = [];
  private deletes: string[] = [];
  private writing: Promise<void> | null = null;
  private scheduled = false;
  private riding = 0;
  private readonly rides = new Set<Promise<void>>();
  /** Set once a fenced write was refused: nothing more is written. */
  private lost: OwnershipLostError | null = null;

  constructor(
    private readonly redis: ConsumerRedis,
    private readonly key: string,
    private readonly onWritten: (ids: readonly string[]) => void,
    private readonly onError: (err: unknown) => void,
    private readonly onLost: (err: OwnershipLostError, ids: string[], inDoubt: string[]) => void = () => {},
  ) {}

  /** Ids sent before without a known outcome (they may have been applied). */
  private readonly doubtful = new Set<string>();

  /** Acks not yet confirmed by Redis (queued, being written, or riding with a read). */
  get size(): number {
    return this.acks.length + this.deletes.length + this.riding + (this.writing ? 1 : 0);
  }

  /** Queues an ack (`del`: also delete the entry). */
  push(id: string, del: boolean): void {
    (del ? this.deletes : this.acks).push(id);
    this.schedule();
  }

  /** Takes the plain acks waiting, to be written with the next read; null when there are none. */
  takeForRead(): AckRide | null {
    if (this.acks.length === 0 || this.lost) return null;
    const ids = this.acks;
    this.acks = [];
    this.riding += ids.length;
    let settle: () => void = () => {};
    const done = new Promise<void>((resolve) => {
      settle = resolve;
    });
    this.rides.add(done);
    const end = () => {
      this.riding -= ids.length;
      this.rides.delete(done);
      settle();
    };
    return {
      ids,
      written: () => {
        end();
        this.written(ids);
      },
      failed: (err) => {
        end();
        if (err instanceof OwnershipLostError) {
          this.refused(err, ids);
          return;
        }
        this.onError(err);
        for (const id of ids) this.doubtful.add(id);
        // XACK is idempotent: send them again the ordinary way.
        this.acks.push(...ids);
        this.schedule();
      },
      requeue: () => {
        end();
        for (const id of ids) this.doubtful.add(id);
        this.acks.push(...ids);
        this.schedule();
      },
    };
  }

  /** Resolves once every queued ack has been written or given up. */
  async flushed(): Promise<void> {
    for (;;) {
      if (this.rides.size > 0) {
        await Promise.all([...this.rides]);
        continue;
      }
      if (this.acks.length > 0 || this.deletes.length > 0) this.writing ??= this.drain();
      if (!this.writing) return;
      await this.writing;
    }
  }

  /** Writes on the shared client after the current macrotask, unless a read takes the acks first. */
  private schedule(): void {
    if (this.scheduled || this.writing) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.acks.length > 0 || this.deletes.length > 0) this.writing ??= this.drain();
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.acks.length > 0 || this.deletes.length > 0) {
        const acks = this.acks;
        const deletes = this.deletes;
        this.acks = [];
        this.deletes = [];
        await this.write(acks, deletes);
      }
    } finally {
      this.writing = null;
    }
  }

  private refused(err: OwnershipLostError, ids: string[]): void {
    this.lost ??= err;
    this.report(err, ids);
    this.schedule();
  }

  private report(err: OwnershipLostError, ids: string[]): void {
    const inDoubt = ids.filter((id) => this.doubtful.delete(id));
    this.onLost(err, ids, inDoubt);
  }

  private written(ids: string[]): void {
    if (this.doubtful.size > 0) for (const id of ids) this.doubtful.delete(id);
    this.onWritten(ids);
  }

  private async write(acks: string[], deletes: string[]): Promise<void> {
    let acked = acks.length === 0;
    for (let attempt = 1; ; attempt++) {
      if (this.lost) {
        this.report(this.lost, acked ? deletes : [...acks, ...deletes]);
        return;
      }
      try {
        if (!acked) await this.redis.ack(this.key, acks);
        acked = true;
        if (deletes.length > 0) await this.redis.ackDelete(this.key, deletes);
        this.written([...acks, ...deletes]);
        return;
      } catch (err) {
        if (err instanceof OwnershipLostError) {
          this.lost ??= err;
          continue;
        }
        this.onError(err);
        for (const id of acked ? deletes : [...acks, ...deletes]) this.doubtful.add(id);
        if (attempt >= MAX_ATTEMPTS) return;
        await new Promise((r) => setTimeout(r, Math.min(2000, 50 * 2 ** attempt)));
      }
    }
  }
}

/** What `readNewWithAcks` reads with. */
export interface AckedRead {
  redis: ConsumerRedis;
  acks: AckBuffer;
  /** The reader's dedicated connection. */
  conn: ConsumerClient;
  key: string;
  consumer: string;
  count: number;
  blockMs: number;
  /** Aborted when the read loop stops waiting for Redis. */
  giveUp: AbortSignal;
}

/**
 * Reads new entries of a shard; the acks waiting by now ride just before the read, on its
 * connection. Rejects as soon as the loop gives up waiting for Redis (then the acks go out the
 * ordinary way: whether they got through is unknown, and XACK is idempotent).
 */
export async function readNewWithAcks(a: AckedRead): Promise<StreamEntry[]> {
  const what = `XREADGROUP ${a.key}`;
  const ride = a.acks.takeForRead();
  if (!ride)
    return unlessAbandoned(a.redis.readNew(a.conn, a.key, a.consumer, a.count, a.blockMs), a.giveUp, what);
  let r: Awaited<ReturnType<ConsumerRedis['ackAndReadNew']>>;
  try {
    r = await unlessAbandoned(
      a.redis.ackAndReadNew(a.conn, a.key, a.consumer, a.count, a.blockMs, ride.ids),
      a.giveUp,
      what,
    );
  } catch (err) {
    ride.requeue();
    throw err;
  }
  if (r.ackError) ride.failed(r.ackError);
  else ride.written();
  if (r.read instanceof Error) throw r.read;
  return r.read;
}
