/**
 * Input and output of the member protocol core (docs/protocol.md#heartbeat), independent of HTTP.
 */
import type { HeartbeatStatus, RevokeState, ShardProgress } from './model.js';

/** One entry of `revokingShards` in a heartbeat. */
export interface RevokeReport {
  shard: number;
  state: RevokeState;
  inFlight: number;
  ackedAt: string | null;
}

/** A validated heartbeat request (docs/protocol.md#heartbeat-request), shards as plain indexes. */
export interface HeartbeatInput {
  protocolVersion: number;
  requestId: string;
  /** `memberId` from the body. */
  memberId: string;
  /** `{m}` from the URL path. */
  pathMemberId: string;
  memberName: string | null;
  memberEpoch: number;
  metadataVersion: number;
  runtimeMaxConcurrency: number;
  availableConcurrency: number;
  ownedShards: number[];
  revokingShards: RevokeReport[];
  shardProgress: ShardProgress[];
  /** Our SDK's random token of the sending process (additive field); absent from reference clients. */
  memberInstanceId?: string | null;
  /**
   * Our SDK's per-instance request counter (additive field; docs/protocol.md#request-order): a
   * request older than one already recorded for the same instance is fenced. Absent from
   * reference clients.
   */
  requestSeq?: number | null;
}

/**
 * The protocol part of a heartbeat answer (docs/protocol.md#heartbeat-response). The HTTP layer adds `responseTo`,
 * `heartbeatIntervalMs`, `rebalanceTimeoutMs` and `memberLeaseTtlMs` from configuration.
 */
export interface HeartbeatOutput {
  status: HeartbeatStatus;
  memberId: string;
  memberEpoch: number;
  groupEpoch: number;
  assignmentEpoch: number;
  metadataVersion: number;
  assignedShards: number[];
  pendingShards: number[];
  /** `assignment.metadataVersion` on the wire. */
  assignmentMetadataVersion: number;
  /**
   * A shorter interval than the configured one, for a member with work in progress (pending
   * or revoking shards, or no target yet): server-paced convergence. Absent = the configured one.
   */
  heartbeatIntervalMs?: number;
}
