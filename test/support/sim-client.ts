/**
 * The honest consumer of the simulation: follows the correct-client rules of docs/protocol.md#client-rules (adopt
 * assigned shards on OK, stop and report revoked shards, drop everything and rejoin with
 * epoch 0 when fenced or unknown).
 */
import type { HeartbeatInput, HeartbeatOutput } from '../../src/core/heartbeat-types.js';

/** One consumer process as the coordinator sees it through its heartbeats. */
export interface Client {
  id: string;
  running: boolean;
  /** How many heartbeats a revoked shard is reported DRAINING before REVOKED (0 = REVOKED at once). */
  drainBeats: number;
  epoch: number;
  mv: number;
  owned: number[];
  /** Shards being given up → DRAINING reports still to send before REVOKED. */
  draining: Record<number, number>;
  lastRequest: HeartbeatInput | null;
  /** The last answer was lost: the next heartbeat repeats the last request. */
  retry: boolean;
  /** Requests sent so far (leaves excluded): material for delayed duplicates. */
  history: HeartbeatInput[];
}

/** A client that has not started yet. */
export function newClient(id: string): Client {
  return {
    id,
    running: false,
    drainBeats: 0,
    epoch: 0,
    mv: 0,
    owned: [],
    draining: {},
    lastRequest: null,
    retry: false,
    history: [],
  };
}

/** The graceful-leave heartbeat: epoch -1, every owned or draining shard reported REVOKED. */
export function leaveRequest(c: Client, now: number, prefix = 'orders'): HeartbeatInput {
  const revoking = [...c.owned, ...Object.keys(c.draining).map(Number)].map((shard) => ({
    shard,
    state: 'REVOKED' as const,
    inFlight: 0,
    ackedAt: null,
  }));
  return { ...requestOf(c, now, prefix), memberEpoch: -1, revokingShards: revoking, shardProgress: [] };
}

/** The heartbeat a client sends next (docs/protocol.md#client-rules starter-like: owned shards, revoke reports, progress). */
export function requestOf(c: Client, now: number, prefix = 'orders'): HeartbeatInput {
  return {
    protocolVersion: 1,
    requestId: `${c.id}@${now}`,
    memberId: c.id,
    pathMemberId: c.id,
    memberName: c.id,
    memberEpoch: c.epoch,
    metadataVersion: c.mv,
    runtimeMaxConcurrency: 1,
    availableConcurrency: 1,
    ownedShards: [...c.owned],
    revokingShards: Object.entries(c.draining).map(([shard, left]) => ({
      shard: Number(shard),
      state: left > 0 ? ('DRAINING' as const) : ('REVOKED' as const),
      inFlight: left > 0 ? 1 : 0,
      ackedAt: null,
    })),
    shardProgress: c.owned.map((s) => ({
      shard: s,
      streamKey: `${prefix}:${s}`,
      lastDeliveredId: `${now}-0`,
      lastAckedId: `${now}-0`,
      pendingCount: 0,
      updatedAt: null,
    })),
  };
}

/** docs/protocol.md#client-rules correct-client reaction to an answer. */
export function adopt(c: Client, req: HeartbeatInput, res: HeartbeatOutput): void {
  if (res.status === 'INVALID_REQUEST' && req.memberEpoch === 0) {
    // A restarted process reusing the id of a live member that still holds shards: refused
    // until the old lease runs out (docs/protocol.md#epoch-rules). It reads nothing and keeps asking.
    Object.assign(c, { owned: [], draining: {}, epoch: 0, mv: 0 });
    return;
  }
  if (res.status === 'INVALID_REQUEST' || res.status === 'UNSUPPORTED_PROTOCOL' || res.status === 'RETRY') {
    throw new Error(`honest client ${c.id} got ${res.status} for ${JSON.stringify(req)}`);
  }
  if (res.status === 'FENCED_MEMBER_EPOCH' || res.status === 'UNKNOWN_MEMBER_ID') {
    Object.assign(c, { owned: [], draining: {}, epoch: 0, mv: 0 });
    return;
  }
  // Reported drains move on: DRAINING as long as work is in flight, then REVOKED once, then forgotten.
  for (const r of req.revokingShards) {
    const left = c.draining[r.shard];
    if (left === undefined) continue;
    if (r.state === 'DRAINING') c.draining[r.shard] = Math.max(0, left - 1);
    else delete c.draining[r.shard];
  }
  const assigned = res.assignedShards;
  // SYNC_METADATA / REVOKE_PENDING: keep only owned ∩ assigned, start nothing new.
  const next = res.status === 'OK' ? assigned : c.owned.filter((s) => assigned.includes(s));
  for (const s of c.owned) if (!next.includes(s)) c.draining[s] = c.drainBeats;
  for (const s of next) delete c.draining[s];
  c.owned = [...next];
  c.epoch = res.memberEpoch;
  c.mv = res.metadataVersion;
}
