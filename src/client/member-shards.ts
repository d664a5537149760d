/**
 * The shards of one member: those being read (one `ShardReader` each), those stopped and still
 * finishing their work (reported `DRAINING` with their in-flight count), those drained and to
 * be reported `REVOKED, inFlight 0` once, and those dropped at a fence (not reported, but
 * finished before the member rejoins). A soft stop may carry a deadline, at which it turns hard
 * (the coordinator fences a member still holding a revoked shard at its rebalance deadline).
 */
import type { OwnershipLostError } from './consumer-errors.js';
import type { ConsumerEvents, RevokeReason } from './consumer-events.js';
import type { ConsumerHandler, ResolvedConsumerOptions } from './consumer-options.js';
import type { ConsumerRedis } from './consumer-redis.js';
import { FairSemaphore } from './consumer-semaphore.js';
import { ShardReader } from './consumer-shard-reader.js';
import type { LocalReport, LocalRevoke } from './member-protocol.js';

/** What the shards of a member need. */
export interface MemberShardsContext {
  memberId: string;
  options: ResolvedConsumerOptions;
  redis: ConsumerRedis;
  handler: ConsumerHandler;
  events: ConsumerEvents;
  /** Assigned by the latest successful answer and within the local lease. */
  mayRead: (shard: number) => boolean;
  leaseValid: () => boolean;
  /** End of the member's local lease, epoch ms. */
  leaseUntil: () => number;
  /** A revoke completed: report it soon. */
  onRevoked: () => void;
}

interface Stopping {
  reader: ShardReader;
  reason: RevokeReason;
  /** Turns a soft stop hard at its deadline. */
  deadline: ReturnType<typeof setTimeout> | null;
}

/** Reading, draining, revoked and dropped shards of one member. */
export class MemberShards {
  /** The member's in-flight budget, shared fairly by its shards. */
  readonly semaphore: FairSemaphore;
  private readonly readers = new Map<number, ShardReader>();
  private readonly draining = new Map<number, Stopping>();
  /** Drained shards with when they finished, until a successful answer has seen them. */
  private readonly revoked = new Map<number, string>();
  private readonly dropped = new Set<Promise<void>>();
  /** Readers that found a newer owner (each reported `lease-lost` once). */
  private readonly lost = new WeakSet<ShardReader>();

  constructor(private readonly ctx: MemberShardsContext) {
    this.semaphore = new FairSemaphore(ctx.options.maxInFlightPerMember);
  }

  /** Shards being read. */
  reading(): number[] {
    return [...this.readers.keys()].sort((a, b) => a - b);
  }

  /** Shards still finishing a revoke. */
  drainingShards(): number[] {
    return [...this.draining.keys()].sort((a, b) => a - b);
  }

  /** Shards that must not be restarted yet (draining, or REVOKED not yet seen by the coordinator). */
  notReady(): Set<number> {
    return new Set([...this.draining.keys(), ...this.revoked.keys()]);
  }

  /** Shards currently reported REVOKED. */
  revokedShards(): number[] {
    return [...this.revoked.keys()];
  }

  /** The coordinator accepted a heartbeat carrying these REVOKED reports: they are reported once. */
  revokesSeen(shards: readonly number[]): void {
    for (const s of shards) this.revoked.delete(s);
  }

  /** True while readers dropped at a fence are still finishing. */
  hasDropped(): boolean {
    return this.dropped.size > 0;
  }

  /** Resolves once every reader dropped at a fence has finished. */
  async droppedFinished(): Promise<void> {
    await Promise.allSettled([...this.dropped]);
  }

  /** Resolves once every draining shard has finished. */
  async drained(): Promise<void> {
    await Promise.allSettled([...this.draining.values()].map((d) => d.reader.stop(false)));
  }

  /** Starts reading `shard`, granted by the answer of assignment epoch `grantEpoch`. */
  start(shard: number, grantEpoch: number): void {
    const reader = new ShardReader({
      memberId: this.ctx.memberId,
      shard,
      options: this.ctx.options,
      redis: this.ctx.redis,
      handler: this.ctx.handler,
      events: this.ctx.events,
      semaphore: this.semaphore,
      mayRead: () => this.ctx.mayRead(shard),
      leaseValid: this.ctx.leaseValid,
      grantEpoch,
      onOwnershipLost: (err, ids, inDoubt = []) => this.ownershipLost(shard, reader, err, ids, inDoubt),
    });
    this.readers.set(shard, reader);
    this.ctx.events.emit('assigned', { memberId: this.ctx.memberId, shard, streamKey: reader.key });
    reader.start();
  }

  /**
   * Stops reading `shard` (soft: finish what was read; hard: start nothing more). A soft stop
   * still running at `hardAt` (epoch ms) becomes hard then.
   */
  stop(shard: number, reason: RevokeReason, hard: boolean, hardAt: number | null = null): void {
    const existing = this.draining.get(shard);
    if (existing) {
      if (hard) {
        existing.reason = reason;
        void existing.reader.stop(true);
      }
      return;
    }
    const reader = this.readers.get(shard);
    if (!reader) return;
    this.readers.delete(shard);
    const entry: Stopping = { reader, reason, deadline: null };
    this.draining.set(shard, entry);
    if (!hard && hardAt !== null) {
      entry.deadline = setTimeout(
        () => {
          if (this.draining.get(shard) === entry) void reader.stop(true);
        },
        Math.max(0, hardAt - Date.now()),
      );
    }
    void reader.stop(hard).then(() => {
      if (entry.deadline) clearTimeout(entry.deadline);
      if (this.draining.get(shard) !== entry) return; // dropped at a fence meanwhile
      this.draining.delete(shard);
      this.revoked.set(shard, new Date().toISOString());
      this.emitRevoked(shard, reader.key, entry.reason);
      this.ctx.onRevoked();
    });
  }

  /**
   * A fenced write of `reader` found a newer owner: stop the shard at once (it is reported
   * REVOKED once done, and the next heartbeat answer says whether to read it again).
   */
  private ownershipLost(
    shard: number,
    reader: ShardReader,
    err: OwnershipLostError,
    ids: string[],
    inDoubt: string[],
  ): void {
    const memberId = this.ctx.memberId;
    const { operation, heldBy } = err;
    this.ctx.events.emit('write-refused', {
      memberId,
      shard,
      streamKey: reader.key,
      operation,
      ids,
      inDoubt,
      heldBy,
    });
    if (this.lost.has(reader)) return;
    this.lost.add(reader);
    if (this.readers.get(shard) !== reader && this.draining.get(shard)?.reader !== reader) return;
    this.stop(shard, 'lease-lost', true);
    this.ctx.events.emit('lease-lost', {
      memberId: this.ctx.memberId,
      shards: [shard],
      leaseExpiredAt: this.ctx.leaseUntil(),
      cause: 'ownership-token',
    });
  }

  /** Stops every shard being read or drained. */
  stopAll(reason: RevokeReason, hard: boolean): void {
    for (const s of [...this.readers.keys(), ...this.draining.keys()]) this.stop(s, reason, hard);
  }

  /** Fenced or rejected: stops everything at once and forgets it (the rejoin reports nothing). */
  dropAll(): void {
    const stopping = [
      ...[...this.readers].map(([shard, reader]) => ({ shard, reader })),
      ...[...this.draining].map(([shard, d]) => ({ shard, reader: d.reader })),
    ];
    for (const d of this.draining.values()) if (d.deadline) clearTimeout(d.deadline);
    this.readers.clear();
    this.draining.clear();
    this.revoked.clear();
    for (const { shard, reader } of stopping) {
      const done: Promise<void> = reader.stop(true).then(() => {
        this.dropped.delete(done);
        this.emitRevoked(shard, reader.key, 'fenced');
      });
      this.dropped.add(done);
    }
  }

  /** What the next heartbeat reports. */
  report(): LocalReport {
    const revoking: LocalRevoke[] = [
      ...[...this.draining].map(([shard, d]) => ({
        shard,
        state: 'DRAINING' as const,
        inFlight: d.reader.inFlight(),
        ackedAt: null,
      })),
      ...this.revokedReports(),
    ];
    const readers = [...this.readers.values(), ...[...this.draining.values()].map((d) => d.reader)];
    return {
      reading: [...this.readers.keys()],
      revoking,
      progress: readers.map((r) => r.progress()),
      inFlight: this.semaphore.inUse,
    };
  }

  /** Revoke reports of a leave: REVOKED for drained shards, DRAINING for those still running. */
  leaveReports(): LocalRevoke[] {
    return [
      ...this.revokedReports(),
      ...[...this.draining].map(([shard, d]) => ({
        shard,
        state: 'DRAINING' as const,
        inFlight: Math.max(1, d.reader.inFlight()),
        ackedAt: null,
      })),
    ];
  }

  private revokedReports(): LocalRevoke[] {
    return [...this.revoked].map(([shard, at]) => ({
      shard,
      state: 'REVOKED' as const,
      inFlight: 0,
      ackedAt: at,
    }));
  }

  private emitRevoked(shard: number, streamKey: string, reason: RevokeReason): void {
    this.ctx.events.emit('revoked', { memberId: this.ctx.memberId, shard, streamKey, reason });
  }
}
