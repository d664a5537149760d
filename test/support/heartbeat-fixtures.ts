/**
 * Plain fixtures of the member protocol: default timings, a start instant, heartbeat requests
 * built from what a test says about them, and deep freezing (so code that mutates its input throws).
 */

import { own } from '../../src/core/dict.js';
import { membersInOrder } from '../../src/core/group.js';
import type { HeartbeatInput, RevokeReport } from '../../src/core/heartbeat-types.js';
import { DEFAULT_PROTOCOL_CONFIG, type GroupDoc, isLive, type ProtocolConfig } from '../../src/core/model.js';

/** The default timings (heartbeat 3 s, lease 15 s, rebalance timeout 60 s, retention 10 min). */
export const CONFIG: ProtocolConfig = DEFAULT_PROTOCOL_CONFIG;

/** The instant every driver's clock starts at. */
export const T0 = 1_700_000_000_000;

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
  /** `requestSeq` (our SDK's per-instance request counter); absent like a reference client. */
  seq?: number;
}

/** Builds a heartbeat request for member `id` of stream `prefix`. */
export function hb(id: string, spec: HbSpec, prefix = 'orders'): HeartbeatInput {
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
      streamKey: `${prefix}:${s}`,
      lastDeliveredId: '1-0',
      lastAckedId: '1-0',
      pendingCount: 0,
      updatedAt: null,
    })),
    ...(spec.instance === undefined ? {} : { memberInstanceId: spec.instance }),
    ...(spec.seq === undefined ? {} : { requestSeq: spec.seq }),
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

/** Members that are live (ACTIVE/STARTING) in `before` and EXPIRED in `after`, with the lease `before` had. */
export function newlyExpired(
  before: GroupDoc,
  after: GroupDoc,
): Array<{ memberId: string; observedLeaseExpiresAt: number }> {
  return membersInOrder(before)
    .filter((b) => isLive(b.state) && own(after.members, b.memberId)?.state === 'EXPIRED')
    .map((b) => ({ memberId: b.memberId, observedLeaseExpiresAt: b.memberLeaseExpiresAt }));
}
