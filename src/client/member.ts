/**
 * One consumer member: its heartbeat loop (single-flight, interval from each answer, jittered
 * retry on HTTP errors and timeouts — it never dies on one), its local assignment lease (fail
 * closed when it lapses, keep heartbeating; while a revoke is unreported it ends before the
 * coordinator's rebalance deadline), its shards (`MemberShards`; a revoked shard is let go
 * before that deadline), rejoin after a fence, and the graceful leave (epoch -1) on close.
 */
import { HeartbeatRejectedError, isMemberIdInUseAnswer, MemberIdInUseError } from './consumer-errors.js';
import type { ConsumerEvents } from './consumer-events.js';
import {
  type ConsumerHandler,
  newMemberInstanceId,
  type ResolvedConsumerOptions,
} from './consumer-options.js';
import type { ConsumerRedis } from './consumer-redis.js';
import type { HeartbeatSender } from './heartbeat-batcher.js';
import { type HeartbeatAnswer, MemberProtocol, parseHeartbeatAnswer } from './member-protocol.js';
import { MemberShards } from './member-shards.js';
import { jitter, Pause, sleep, waitUntil, withTimeout } from './member-timing.js';
import { API_BASE, type CoordinatorTransport } from './transport.js';

/** What a member is given by its consumer. */
export interface MemberContext {
  memberId: string;
  options: ResolvedConsumerOptions;
  transport: CoordinatorTransport;
  /** Sends heartbeats (alone, or batched with the consumer's other members). */
  heartbeats: HeartbeatSender;
  redis: ConsumerRedis;
  handler: ConsumerHandler;
  events: ConsumerEvents;
}

/** A point-in-time view of a member (monitoring and tests). */
export interface MemberStatus {
  memberId: string;
  memberEpoch: number;
  lastStatus: string;
  /** Shards being read. */
  reading: number[];
  /** Shards stopped and still finishing their in-flight work. */
  draining: number[];
  /** `pendingShards` of the latest successful answer. */
  pending: number[];
  leaseValid: boolean;
  /** Records being handled now. */
  inFlight: number;
}

/** Pause before a rejoin or after a wake-up, ms (a burst of revokes becomes one heartbeat). */
const MIN_GAP_MS = 25;
/** Longest wait in `close()` for hard-stopped shards before leaving, ms. */
const HARD_STOP_WAIT_MS = 1000;
/**
 * Share of a steady interval by which a batch may pull a member's heartbeat forward: covers the
 * tenth `spread` takes off, so members answered together go out together again.
 */
const PULL_IN_SHARE = 0.2;

/** Heartbeat path of a member. */
function heartbeatPath(streamPrefix: string, group: string, memberId: string): string {
  const e = encodeURIComponent;
  return `${API_BASE}/streams/${e(streamPrefix)}/groups/${e(group)}/members/${e(memberId)}/heartbeat`;
}

/** One member of a consumer. */
export class Member {
  readonly protocol: MemberProtocol;
  private readonly shards: MemberShards;
  private readonly path: string;
  private readonly pause = new Pause(MIN_GAP_MS);
  private started = false;
  private closing = false;
  private stopLoop = false;
  private loop: Promise<void> | null = null;
  private closed: Promise<void> | null = null;
  private leaseTimer: ReturnType<typeof setTimeout> | null = null;
  private signalStop: () => void = () => {};
  /** While a steady pause runs: from when a batch may end it early (null otherwise). */
  private pullableAt: number | null = null;
  private readonly unregister: () => void;
  /** The delay the latest answer set is the steady interval (set by `onAnswer`). */
  private steadyDelay = false;
  /** Resolves when the heartbeat loop is told to stop. */
  private readonly stopped = new Promise<void>((resolve) => {
    this.signalStop = resolve;
  });

  constructor(private readonly ctx: MemberContext) {
    const o = ctx.options;
    // One token per member object: another process using the same member id has another one.
    this.protocol = new MemberProtocol(ctx.memberId, o, newMemberInstanceId());
    this.path = heartbeatPath(o.streamPrefix, o.consumerGroup, ctx.memberId);
    this.shards = new MemberShards({
      memberId: ctx.memberId,
      options: o,
      redis: ctx.redis,
      handler: ctx.handler,
      events: ctx.events,
      mayRead: (shard) => this.protocol.mayRead(shard, Date.now()),
      leaseValid: () => this.protocol.leaseValid(Date.now()),
      leaseUntil: () => this.protocol.leaseUntil,
      // Report REVOKED now, so the next owner need not wait a whole interval.
      onRevoked: () => this.pause.wake(),
    });
    this.unregister = ctx.heartbeats.register({
      pullableFrom: () => this.pullableAt,
      pullIn: () => {
        if (this.pullableAt === null) return;
        this.pullableAt = null;
        this.pause.endNow?.();
      },
    });
  }

  /** The member id (also the Redis consumer name). */
  get id(): string {
    return this.ctx.memberId;
  }

  /** Starts heartbeating (joins with epoch 0). */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.loop = this.heartbeatLoop();
  }

  /** Snapshot of the member's state. */
  status(): MemberStatus {
    return {
      memberId: this.id,
      memberEpoch: this.protocol.epoch,
      lastStatus: this.protocol.lastStatus,
      reading: this.shards.reading(),
      draining: this.shards.drainingShards(),
      pending: [...this.protocol.pending],
      leaseValid: this.protocol.leaseValid(Date.now()),
      inFlight: this.shards.semaphore.inUse,
    };
  }

  /** Stops reading, finishes in-flight work (bounded by `shutdownTimeoutMs`), leaves with epoch -1. */
  close(): Promise<void> {
    this.closed ??= this.shutdown();
    return this.closed;
  }

  private async shutdown(): Promise<void> {
    this.closing = true;
    const timeout = this.ctx.options.shutdownTimeoutMs;
    const deadline = Date.now() + timeout;
    // Heartbeats go on meanwhile, so the lease holds while the last records finish.
    this.shards.stopAll('shutdown', false);
    await waitUntil(this.shards.drained(), timeout);
    // Past the deadline: start nothing more; what still runs is reported DRAINING in the leave.
    this.shards.stopAll('shutdown', true);
    // A hard stop ends soon whatever Redis does; only a handler ignoring its signal holds it up.
    await waitUntil(this.shards.drained(), HARD_STOP_WAIT_MS);
    this.stopLoop = true;
    this.signalStop();
    this.pause.endNow?.();
    await this.loop;
    this.unregister();
    this.clearLeaseTimer();
    if (this.started && this.protocol.epoch > 0) await this.leave(deadline);
  }

  private async leave(deadline: number): Promise<void> {
    const revoking = this.shards.leaveReports();
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const body = this.protocol.leaveRequest(revoking, new Date().toISOString());
        const ms = Math.min(this.protocol.requestTimeoutMs(), Math.max(1, deadline - Date.now()));
        await withTimeout(this.ctx.transport.request('POST', this.path, body), ms, 'leave');
        this.protocol.dropAll();
        return;
      } catch (err) {
        // Another process holds the id now: there is nothing of ours left to leave.
        if (isMemberIdInUseAnswer(err)) {
          this.protocol.refused('MEMBER_ID_IN_USE');
          return;
        }
        this.ctx.events.error(this.id, 'leave', err);
        if (Date.now() >= deadline) return;
        await sleep(jitter(100 * 2 ** attempt));
      }
    }
  }

  private async heartbeatLoop(): Promise<void> {
    let delay = 0;
    let failures = 0;
    // Only a steady pause may be cut short by a batch: retries and refusals keep their pacing.
    let steady = false;
    while (!this.stopLoop) {
      this.pullableAt = steady ? Date.now() + Math.round(delay * (1 - PULL_IN_SHARE)) : null;
      await this.pause.wait(delay);
      this.pullableAt = null;
      steady = false;
      if (this.stopLoop) break;
      if (this.protocol.epoch === 0 && this.shards.hasDropped()) {
        // Rejoining tells the coordinator we hold nothing: make it true first (bounded by the
        // server lease, after which the coordinator has let the shards go anyway).
        await waitUntil(
          Promise.race([this.shards.droppedFinished(), this.stopped]),
          this.protocol.leaseTtlMs,
        );
        if (this.stopLoop) break;
      }
      const sentAt = Date.now();
      const joining = this.protocol.epoch === 0;
      const body = this.protocol.request(this.shards.report(), new Date(sentAt).toISOString());
      const reportedRevoked = joining ? [] : this.shards.revokedShards();
      let answer: HeartbeatAnswer;
      try {
        const request = this.ctx.heartbeats.send(this.path, this.id, body);
        answer = parseHeartbeatAnswer(
          await withTimeout(request, this.protocol.requestTimeoutMs(), 'heartbeat'),
        );
      } catch (err) {
        if (isMemberIdInUseAnswer(err)) {
          failures = 0;
          delay = this.onMemberIdInUse(err);
          continue;
        }
        // Never fatal: the same epoch is sent again (a lost answer is tolerated by the server).
        failures++;
        this.ctx.events.error(this.id, 'heartbeat', err);
        delay = jitter(Math.min(this.protocol.nextDelayMs(), 100 * 2 ** Math.min(failures - 1, 10)));
        continue;
      }
      failures = 0;
      delay = this.onAnswer(answer, sentAt, reportedRevoked, joining);
      steady = this.steadyDelay;
    }
  }

  /** Applies an answer; returns the delay until the next heartbeat. */
  private onAnswer(
    answer: HeartbeatAnswer,
    sentAt: number,
    reportedRevoked: number[],
    joining: boolean,
  ): number {
    this.steadyDelay = false;
    const s = answer.status;
    if (s === 'OK' || s === 'SYNC_METADATA' || s === 'REVOKE_PENDING')
      this.shards.revokesSeen(reportedRevoked);
    const reading = new Set(this.shards.reading());
    const decision = this.protocol.apply(answer, sentAt, reading, this.shards.notReady());
    switch (decision.kind) {
      case 'assignment': {
        // Let go before the coordinator's rebalance deadline can pass, whatever the soft stop
        // waits on (the margin covers a deadline set a little earlier); that deadline is the
        // oldest unreported revoke's. Past it, the capped local lease drops the kept shards too.
        const hardAt = this.protocol.revokeHardStopAt();
        for (const shard of decision.stop)
          this.shards.stop(shard, this.closing ? 'shutdown' : 'rebalance', false, hardAt);
        const now = Date.now();
        if (!this.closing) {
          for (const shard of decision.start)
            if (this.protocol.mayRead(shard, now)) this.shards.start(shard, this.protocol.epoch);
        }
        this.armLeaseTimer();
        this.steadyDelay = true;
        return spread(this.protocol.nextDelayMs());
      }
      case 'drop-all': {
        this.clearLeaseTimer();
        this.shards.dropAll();
        // A fenced member rejoins at once; a refused join (unknown group, member id still held)
        // is reported and asked again at the normal pace, not in a tight loop.
        if ((s === 'FENCED_MEMBER_EPOCH' || s === 'UNKNOWN_MEMBER_ID') && !joining) return MIN_GAP_MS;
        this.ctx.events.error(this.id, 'heartbeat', new HeartbeatRejectedError(this.id, s));
        return this.protocol.nextDelayMs();
      }
      default:
        return jitter(Math.min(this.protocol.nextDelayMs(), 500));
    }
  }

  /**
   * Another process holds this member id (409 MEMBER_ID_IN_USE): read nothing, report it, and
   * ask to join again once per member lease — by then a crashed holder's lease has run out.
   */
  private onMemberIdInUse(err: unknown): number {
    this.clearLeaseTimer();
    this.shards.dropAll();
    this.protocol.refused('MEMBER_ID_IN_USE');
    this.ctx.events.error(this.id, 'heartbeat', new MemberIdInUseError(this.id, err));
    return spread(this.protocol.leaseTtlMs);
  }

  /** Checks the local lease when it is due to end; fails closed if no newer answer renewed it. */
  private armLeaseTimer(): void {
    this.clearLeaseTimer();
    const wait = this.protocol.leaseUntil - Date.now();
    if (!Number.isFinite(wait)) return;
    this.leaseTimer = setTimeout(() => this.checkLease(), Math.max(0, wait) + 1);
  }

  private clearLeaseTimer(): void {
    if (this.leaseTimer) clearTimeout(this.leaseTimer);
    this.leaseTimer = null;
  }

  private checkLease(): void {
    this.leaseTimer = null;
    if (this.protocol.leaseValid(Date.now())) {
      this.armLeaseTimer();
      return;
    }
    const shards = this.shards.reading();
    if (shards.length === 0 && this.shards.drainingShards().length === 0) return;
    this.shards.stopAll('lease-lost', true);
    this.ctx.events.emit('lease-lost', {
      memberId: this.id,
      shards,
      leaseExpiredAt: this.protocol.leaseUntil,
      cause: 'lease-expired',
    });
  }
}

/**
 * `ms` minus up to a tenth, at random: members that got their answers together (a fleet that
 * started at once) drift apart instead of reaching the coordinator in synchronised waves.
 * Never later than asked, so the local lease keeps its margin.
 */
function spread(ms: number): number {
  return Math.max(1, Math.round(ms * (1 - Math.random() * 0.1)));
}
