/**
 * Test fixtures for the protocol core: documents, requests, and a small driver that keeps a
 * group and a clock the way the coordinator would (process, keep the returned group).
 */
import { newGroupDoc } from '../group.js';
import { processHeartbeat } from '../heartbeat.js';
import type { HeartbeatInput, HeartbeatOutput, RevokeReport } from '../heartbeat-types.js';
import { housekeepGroup } from '../housekeeping.js';
import { DEFAULT_PROTOCOL_CONFIG, type GroupDoc, type ProtocolConfig, type StreamDoc } from '../model.js';

/** The default timings (heartbeat 3 s, lease 15 s, rebalance timeout 60 s, retention 10 min). */
export const CONFIG: ProtocolConfig = DEFAULT_PROTOCOL_CONFIG;

/** A start instant for simulated clocks. */
export const T0 = 1_700_000_000_000;

/** A stream document with `shardCount` shards and nothing removed. */
export function streamDoc(shardCount: number, prefix = 'orders'): StreamDoc {
  return {
    streamPrefix: prefix,
    shardCount,
    removedShards: [],
    migrations: [],
    activeReshardingId: null,
    groups: [prefix],
    createdAt: T0,
    updatedAt: T0,
  };
}

/** What a test says about a heartbeat; everything else takes a sensible default. */
export interface HbSpec {
  epoch: number;
  mv: number;
  owned?: number[];
  revoking?: Array<Pick<RevokeReport, 'shard' | 'state'> & Partial<RevokeReport>>;
  progress?: number[];
  name?: string | null;
  pathMemberId?: string;
  protocolVersion?: number;
  capacity?: { max: number; available: number };
  /** `memberInstanceId` (our SDK's per-process token); absent like a reference client. */
  instance?: string;
}

/** Builds a heartbeat request for member `id`. */
export function hb(id: string, spec: HbSpec): HeartbeatInput {
  return {
    protocolVersion: spec.protocolVersion ?? 1,
    requestId: `r-${id}-${spec.epoch}`,
    memberId: id,
    pathMemberId: spec.pathMemberId ?? id,
    memberName: spec.name === undefined ? id : spec.name,
    memberEpoch: spec.epoch,
    metadataVersion: spec.mv,
    runtimeMaxConcurrency: spec.capacity?.max ?? 1,
    availableConcurrency: spec.capacity?.available ?? 1,
    ownedShards: spec.owned ?? [],
    revokingShards: (spec.revoking ?? []).map((r) => ({
      shard: r.shard,
      state: r.state,
      inFlight: r.inFlight ?? (r.state === 'REVOKED' ? 0 : 1),
      ackedAt: r.ackedAt ?? null,
    })),
    shardProgress: (spec.progress ?? []).map((s) => ({
      shard: s,
      streamKey: `orders:${s}`,
      lastDeliveredId: '1-0',
      lastAckedId: '1-0',
      pendingCount: 0,
      updatedAt: null,
    })),
    ...(spec.instance === undefined ? {} : { memberInstanceId: spec.instance }),
  };
}

/** Freezes plain data recursively, so any mutation by the code under test throws. */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** A group and a clock driven like the coordinator drives the core. */
export class Driver {
  group: GroupDoc;
  now = T0;

  constructor(
    public stream: StreamDoc,
    public config: ProtocolConfig = CONFIG,
  ) {
    this.group = newGroupDoc(stream.streamPrefix, stream.streamPrefix, T0);
  }

  /** Processes one heartbeat (inputs frozen) and keeps the resulting group. */
  send(req: HeartbeatInput): HeartbeatOutput {
    const out = processHeartbeat({
      stream: deepFreeze(structuredClone(this.stream)),
      group: deepFreeze(structuredClone(this.group)),
      request: deepFreeze(structuredClone(req)),
      config: this.config,
      now: this.now,
    });
    if (out.group) this.group = out.group;
    return out.response;
  }

  /** Shorthand for `send(hb(id, spec))`. */
  beat(id: string, spec: HbSpec): HeartbeatOutput {
    return this.send(hb(id, spec));
  }

  /** Moves the clock. */
  advance(ms: number): void {
    this.now += ms;
  }

  /** Runs the sweep's housekeeping once. */
  housekeep(): GroupDoc {
    this.group = housekeepGroup({
      stream: this.stream,
      group: this.group,
      config: this.config,
      now: this.now,
    });
    return this.group;
  }

  /** The stored record of a member (throws if absent). */
  member(id: string) {
    const m = this.group.members[id];
    if (!m) throw new Error(`no member ${id}`);
    return m;
  }

  /** Joins `id` and acknowledges its first assignment; returns the acknowledging answer. */
  joinAndSettle(id: string): HeartbeatOutput {
    const joined = this.beat(id, { epoch: 0, mv: 0 });
    return this.beat(id, {
      epoch: joined.memberEpoch,
      mv: joined.metadataVersion,
      owned: joined.assignedShards,
    });
  }
}
