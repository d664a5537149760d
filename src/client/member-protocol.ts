/**
 * The member side of the heartbeat protocol (docs/protocol.md#heartbeat, docs/protocol.md#client-rules "correct client"), without I/O:
 * builds heartbeat bodies from what the member is doing, applies answers (epochs, the
 * assignment, the local lease counted from the request's SEND time) and says which shards to
 * keep, stop and start, and by when a stopped shard must be let go (its local rebalance
 * deadline). While a revoke is unreported, the local lease ends before the coordinator can fence
 * for it: a fence at the rebalance deadline releases the kept shards too. The clock is passed in.
 */
import { HEARTBEAT_STATUSES, type HeartbeatStatus } from '../core/model.js';
import { InvalidHeartbeatResponseError } from './consumer-errors.js';
import { leaseMargin, type ResolvedConsumerOptions } from './consumer-options.js';

/** Heartbeat statuses a coordinator may answer (the wire enum, declared once in the core model). */
type HeartbeatStatusName = HeartbeatStatus;

const STATUSES: ReadonlySet<string> = new Set<string>(HEARTBEAT_STATUSES);

/** The fields of a `HeartbeatResponse` the member uses. */
export interface HeartbeatAnswer {
  status: HeartbeatStatusName;
  memberEpoch: number;
  metadataVersion: number;
  heartbeatIntervalMs: number;
  /** Additive field of our coordinator (docs/protocol.md#deviation-additive-fields); null from the reference. */
  memberLeaseTtlMs: number | null;
  /** Time the member has to release a revoked shard before it is fenced; null when absent. */
  rebalanceTimeoutMs: number | null;
  assignedShards: number[];
  pendingShards: number[];
}

/** Checks and extracts a heartbeat answer; throws `InvalidHeartbeatResponseError`. */
export function parseHeartbeatAnswer(json: unknown): HeartbeatAnswer {
  const bad = (why: string) => new InvalidHeartbeatResponseError(`heartbeat answer: ${why}`);
  if (!json || typeof json !== 'object') throw bad('not an object');
  const o = json as Record<string, unknown>;
  if (typeof o.status !== 'string' || !STATUSES.has(o.status))
    throw bad(`unknown status ${String(o.status)}`);
  const int = (name: string, v: unknown): number => {
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw bad(`${name} is not an integer`);
    return v;
  };
  const assignment = (o.assignment ?? {}) as Record<string, unknown>;
  const shards = (name: string, v: unknown): number[] => {
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) throw bad(`${name} is not a list`);
    return v.map((s) => {
      const i = (s as { shardIndex?: unknown } | null)?.shardIndex;
      if (typeof i !== 'number' || !Number.isSafeInteger(i) || i < 0) throw bad(`${name} has a bad shard`);
      return i;
    });
  };
  const interval = int('heartbeatIntervalMs', o.heartbeatIntervalMs);
  const ttl = o.memberLeaseTtlMs;
  const positive = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : null);
  return {
    status: o.status as HeartbeatStatusName,
    memberEpoch: int('memberEpoch', o.memberEpoch),
    metadataVersion: int('metadataVersion', o.metadataVersion),
    heartbeatIntervalMs: interval > 0 ? interval : 1,
    memberLeaseTtlMs: positive(ttl),
    rebalanceTimeoutMs: positive(o.rebalanceTimeoutMs),
    assignedShards: shards('assignedShards', assignment.assignedShards),
    pendingShards: shards('pendingShards', assignment.pendingShards),
  };
}

/** A revoke report of the member (wire `revokingShards[]`). */
export interface LocalRevoke {
  shard: number;
  state: 'DRAINING' | 'REVOKED';
  inFlight: number;
  ackedAt: string | null;
}

/** Consumption progress of one shard (wire `shardProgress[]`). */
export interface LocalProgress {
  shard: number;
  streamKey: string;
  lastDeliveredId: string | null;
  lastAckedId: string | null;
  pendingCount: number;
}

/** What the member reports in a heartbeat. */
export interface LocalReport {
  /** Shards it is reading now. */
  reading: number[];
  revoking: LocalRevoke[];
  progress: LocalProgress[];
  /** Records being handled now, over all shards. */
  inFlight: number;
}

/** What to do after an answer. */
export type Decision =
  /** OK / SYNC_METADATA / REVOKE_PENDING: keep reading `keep`, stop `stop`, start `start`. */
  | { kind: 'assignment'; keep: number[]; stop: number[]; start: number[] }
  /** FENCED / UNKNOWN / rejected: stop everything at once, then rejoin with epoch 0. */
  | { kind: 'drop-all'; status: HeartbeatStatusName }
  /** RETRY: nothing changes; ask again soon. */
  | { kind: 'retry' };

type ProtocolOptions = Pick<
  ResolvedConsumerOptions,
  'heartbeatIntervalMs' | 'fallbackLeaseTtlMs' | 'leaseMarginMs' | 'maxInFlightPerMember' | 'requestTimeoutMs'
>;

/** Protocol state of one member. */
export class MemberProtocol {
  /** Last epoch received (0 = join/rejoin). */
  epoch = 0;
  /** Last metadata version received. */
  metadataVersion = 0;
  /** `assignedShards` of the latest successful answer (filtered to what may be kept). */
  assigned: ReadonlySet<number> = new Set();
  /** `pendingShards` of the latest successful answer. */
  pending: readonly number[] = [];
  /** End of the local assignment lease, epoch ms (-Infinity: none). */
  leaseUntil = Number.NEGATIVE_INFINITY;
  /** Heartbeat interval of the latest answer. */
  intervalMs: number;
  /** Server lease TTL of the latest answer (or the fallback). */
  leaseTtlMs: number;
  /** Status of the latest answer, '' before the first. */
  lastStatus = '';
  /** Rebalance timeout of the latest answer that carried one (null: none seen, no local deadline). */
  rebalanceTimeoutMs: number | null = null;
  /**
   * Send time of the request whose answer revoked the oldest shard still unreported (stopping,
   * or REVOKED in no answered request yet); null when none. The coordinator keeps the rebalance
   * deadline it set for that revoke until nothing is left to release.
   */
  revokeSince: number | null = null;
  private requestSeq = 0;
  private readonly requestPrefix = Math.random().toString(36).slice(2, 10);

  /**
   * @param instanceId this member object's random token, sent as `memberInstanceId` so the
   *   coordinator can refuse another process sharing the member id (null: not sent).
   */
  constructor(
    readonly memberId: string,
    private readonly o: ProtocolOptions,
    readonly instanceId: string | null = null,
  ) {
    this.intervalMs = o.heartbeatIntervalMs;
    this.leaseTtlMs = o.fallbackLeaseTtlMs;
  }

  /** How long a local lease lasts after a send. */
  leaseDurationMs(): number {
    return Math.max(1, this.leaseTtlMs - leaseMargin(this.o, this.leaseTtlMs));
  }

  /** True while the local lease is valid at `now`. */
  leaseValid(now: number): boolean {
    return now < this.leaseUntil;
  }

  /** True when the member may read `shard` at `now` (docs/protocol.md#invariants invariant 3). */
  mayRead(shard: number, now: number): boolean {
    return this.assigned.has(shard) && this.leaseValid(now);
  }

  /** Delay until the next heartbeat: the interval, shortened when the local lease needs it. */
  nextDelayMs(): number {
    return Math.max(10, Math.min(this.intervalMs, Math.floor(this.leaseDurationMs() / 3)));
  }

  /**
   * When a shard first seen revoked in the answer to a request sent at `sentAt` must be let go
   * at the latest (hard stop), or null when the coordinator gave no rebalance timeout.
   */
  revokeDeadline(sentAt: number): number | null {
    const t = this.rebalanceTimeoutMs;
    return t === null ? null : sentAt + t - rebalanceMargin(t, this.intervalMs);
  }

  /** The hard-stop deadline of the oldest unreported revoke, or null when none. */
  revokeHardStopAt(): number | null {
    return this.revokeSince === null ? null : this.revokeDeadline(this.revokeSince);
  }

  /**
   * Latest end of the local lease while a revoke first seen in the answer to a request sent at
   * `sentAt` is unreported (null: no rebalance timeout). Half the stop time in the margin past
   * the hard stop: the other half is left for the hard stop of every shard at the lease's end
   * (it waits up to 250 ms for acks), before the coordinator's deadline can come.
   */
  revokeLeaseEnd(sentAt: number): number | null {
    const t = this.rebalanceTimeoutMs;
    if (t === null) return null;
    const margin = rebalanceMargin(t, this.intervalMs);
    return sentAt + t - margin + Math.floor(Math.max(0, margin - this.intervalMs) / 2);
  }

  /** Timeout of one request: a later answer would renew a lease that has already run out. */
  requestTimeoutMs(): number {
    return Math.max(1, Math.min(this.o.requestTimeoutMs, this.leaseDurationMs()));
  }

  /** The body of the next heartbeat. At epoch 0 the report is empty (the server ignores it). */
  request(report: LocalReport, nowIso: string): Record<string, unknown> {
    const joining = this.epoch === 0;
    return this.body(this.epoch, joining ? emptyReport(report.inFlight) : report, nowIso, false);
  }

  /** The body of a leave (epoch -1): owns nothing, capacity 0, the given revoke reports. */
  leaveRequest(revoking: LocalRevoke[], nowIso: string): Record<string, unknown> {
    return this.body(-1, { reading: [], revoking, progress: [], inFlight: 0 }, nowIso, true);
  }

  /**
   * Applies a successful answer to a request sent at `sentAt`. `reading` are the shards read
   * now; `draining` those still finishing a stop or REVOKED in no answered request yet, this
   * one's REVOKED reports already taken out (restarted only after they are reported).
   */
  apply(
    a: HeartbeatAnswer,
    sentAt: number,
    reading: ReadonlySet<number>,
    draining: ReadonlySet<number>,
  ): Decision {
    this.lastStatus = a.status;
    this.intervalMs = a.heartbeatIntervalMs;
    if (a.memberLeaseTtlMs !== null) this.leaseTtlMs = a.memberLeaseTtlMs;
    if (a.rebalanceTimeoutMs !== null) this.rebalanceTimeoutMs = a.rebalanceTimeoutMs;
    switch (a.status) {
      case 'OK':
      case 'SYNC_METADATA':
      case 'REVOKE_PENDING': {
        this.epoch = a.memberEpoch;
        this.metadataVersion = a.metadataVersion;
        const ok = a.status === 'OK';
        // SYNC/REVOKE_PENDING are drain-only: keep what is both read and assigned, start nothing.
        const assigned = ok
          ? new Set(a.assignedShards)
          : new Set(a.assignedShards.filter((s) => reading.has(s)));
        this.assigned = assigned;
        this.pending = a.pendingShards;
        const keep = [...reading].filter((s) => assigned.has(s));
        const stop = [...reading].filter((s) => !assigned.has(s));
        const start = ok ? [...assigned].filter((s) => !reading.has(s) && !draining.has(s)) : [];
        // Every revoke reported and answered: the coordinator has nothing left to fence for.
        if (draining.size === 0) this.revokeSince = null;
        if (stop.length > 0) this.revokeSince ??= sentAt;
        // Counted from the SEND time: the server renewed its lease no earlier than that. An
        // unreported revoke caps it: if the report never gets through, the coordinator fences
        // at its rebalance deadline and grants the kept shards away at once.
        const capped = this.revokeSince === null ? null : this.revokeLeaseEnd(this.revokeSince);
        this.leaseUntil = Math.min(sentAt + this.leaseDurationMs(), capped ?? Number.POSITIVE_INFINITY);
        return { kind: 'assignment', keep, stop, start };
      }
      case 'RETRY':
        return { kind: 'retry' };
      default:
        // FENCED / UNKNOWN: the server no longer counts us; rejected: something is off.
        // Either way nothing may be read until an epoch-0 rejoin is answered OK.
        this.dropAll();
        return { kind: 'drop-all', status: a.status };
    }
  }

  /** The member id is held by another process: nothing may be read; the next request rejoins. */
  refused(status: string): void {
    this.lastStatus = status;
    this.dropAll();
  }

  /** Forgets the assignment and lease; the next request rejoins with epoch 0. */
  dropAll(): void {
    this.epoch = 0;
    // 0 is never above the stored version, so the rejoin cannot open a metadata correction.
    this.metadataVersion = 0;
    this.assigned = new Set();
    this.pending = [];
    this.leaseUntil = Number.NEGATIVE_INFINITY;
    this.revokeSince = null;
  }

  /** Ends the local lease now (it lapsed). */
  expireLease(): void {
    this.leaseUntil = Number.NEGATIVE_INFINITY;
  }

  private body(epoch: number, r: LocalReport, nowIso: string, leaving: boolean): Record<string, unknown> {
    const max = this.o.maxInFlightPerMember;
    const seq = ++this.requestSeq;
    return {
      protocolVersion: 1,
      requestId: `${this.requestPrefix}-${seq}`,
      memberId: this.memberId,
      memberName: this.memberId,
      memberEpoch: epoch,
      metadataVersion: this.metadataVersion,
      runtimeConsumerCapacity: {
        runtimeMaxConcurrency: max,
        availableConcurrency: leaving ? 0 : Math.max(0, max - r.inFlight),
      },
      ownedShards: [...r.reading].sort((x, y) => x - y).map((shardIndex) => ({ shardIndex })),
      revokingShards: r.revoking.map((v) => ({
        shard: { shardIndex: v.shard },
        state: v.state,
        inFlight: v.inFlight,
        ackedAt: v.ackedAt,
      })),
      shardProgress: r.progress.map((p) => ({
        shard: { shardIndex: p.shard },
        streamKey: p.streamKey,
        lastDeliveredId: p.lastDeliveredId,
        lastAckedId: p.lastAckedId,
        pendingCount: p.pendingCount,
        updatedAt: nowIso,
      })),
      // Additive fields of our coordinator; the reference ignores unknown fields. The sequence
      // lets the coordinator fence a request of ours that arrives after a later one
      // (docs/protocol.md#request-order): it only means something beside the instance id.
      ...(this.instanceId ? { memberInstanceId: this.instanceId, requestSeq: seq } : {}),
    };
  }
}

/** Least time kept for the hard stop at a local rebalance deadline and its REVOKED report, ms. */
const REVOKE_STOP_SLACK_MS = 500;

/**
 * How long before the coordinator's rebalance deadline a revoked shard is let go: one heartbeat
 * interval, because the coordinator may have set its deadline at the assignment round, up to an
 * interval before the request whose answer told us; then the largest of another interval, a
 * tenth of the timeout and 500 ms, for the hard stop itself (it waits up to 250 ms for acks),
 * the REVOKED report's trip and late timers (the tenth: stalls and clock skew between
 * coordinator instances on long timeouts). At most half the timeout, so it stays positive.
 */
function rebalanceMargin(rebalanceTimeoutMs: number, heartbeatIntervalMs: number): number {
  const stop = Math.max(heartbeatIntervalMs, Math.ceil(rebalanceTimeoutMs / 10), REVOKE_STOP_SLACK_MS);
  return Math.min(heartbeatIntervalMs + stop, Math.floor(rebalanceTimeoutMs / 2));
}

function emptyReport(inFlight: number): LocalReport {
  return { reading: [], revoking: [], progress: [], inFlight };
}
