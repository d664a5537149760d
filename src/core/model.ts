/**
 * Domain model of the coordinator: streams, groups, members and migrations.
 *
 * Everything here is plain data (JSON-serialisable). Times are epoch milliseconds; the HTTP
 * layer renders them as ISO-8601. Shards are plain indexes (`number`); the wire's
 * `{shardIndex}` objects are built at the HTTP boundary.
 */

/** Member lifecycle states (wire enum `MemberState`). `STARTING` is never persisted. */
export const MEMBER_STATES = ['STARTING', 'ACTIVE', 'LEAVING', 'EXPIRED', 'FENCED'] as const;
/** A member lifecycle state. */
export type MemberState = (typeof MEMBER_STATES)[number];

/** Group states (wire enum `GroupState`). `ASSIGNING` is never observable. */
export const GROUP_STATES = ['EMPTY', 'ASSIGNING', 'RECONCILING', 'STABLE'] as const;
/** A group state. */
export type GroupState = (typeof GROUP_STATES)[number];

/** Migration states (wire enum `MigrationState`). */
export const MIGRATION_STATES = [
  'PREPARING',
  'ACTIVE',
  'DRAINING',
  'ROLLING_BACK',
  'ROLLED_BACK',
  'DEPRECATED',
] as const;
/** A migration state. */
export type MigrationState = (typeof MIGRATION_STATES)[number];

/** States a member may report for a shard it is giving up. */
export const REVOKE_STATES = ['REVOKING', 'DRAINING', 'REVOKED'] as const;
/** A revoke state. */
export type RevokeState = (typeof REVOKE_STATES)[number];

/** Heartbeat outcomes (wire enum `HeartbeatStatus`). `RETRY` is never produced. */
export const HEARTBEAT_STATUSES = [
  'OK',
  'RETRY',
  'SYNC_METADATA',
  'REVOKE_PENDING',
  'FENCED_MEMBER_EPOCH',
  'UNKNOWN_MEMBER_ID',
  'UNSUPPORTED_PROTOCOL',
  'INVALID_REQUEST',
] as const;
/** A heartbeat outcome. */
export type HeartbeatStatus = (typeof HEARTBEAT_STATUSES)[number];

/**
 * Additive protocol extensions a coordinator may advertise (heartbeat answers' `capabilities`,
 * `/monitoring/compatibility`). Reference clients ignore the field; our SDK uses what is listed.
 */
export const COORDINATOR_CAPABILITIES = ['BATCH_HEARTBEAT'] as const;
/** One advertised extension. */
export type CoordinatorCapability = (typeof COORDINATOR_CAPABILITIES)[number];

/** Per-shard consumption progress as last reported by a member. */
export interface ShardProgress {
  shard: number;
  streamKey: string;
  lastDeliveredId: string | null;
  lastAckedId: string | null;
  pendingCount: number;
  /** ISO string exactly as the member sent it (monitoring only). */
  updatedAt: string | null;
}

/** Why a FENCED member's holdings still block other members (docs/protocol.md#blocking-fences). */
type FenceKind =
  /** Ownership violation: holdings block until epoch-0 rejoin or lease expiry. */
  | 'BLOCKING'
  /** Rebalance timeout: holdings released at once (reference behaviour). */
  | 'RELEASED';

/** One member record inside a group document. */
export interface MemberRecord {
  memberId: string;
  memberName: string;
  state: MemberState;
  memberEpoch: number;
  /**
   * The epoch returned to this member before the latest one, accepted once more when the
   * member's report is within its authority (lost-response tolerance, docs/protocol.md#lost-response-tolerance). Null when
   * there is none (new member, or the previous answer did not change the epoch).
   */
  previousEpoch: number | null;
  metadataVersion: number;
  runtimeMaxConcurrency: number;
  activeConsumerWorkers: number;
  currentAssignment: number[];
  grantedAssignment: number[];
  revoking: number[];
  lastHeartbeatAt: number;
  memberLeaseExpiresAt: number;
  rebalanceTimeoutMs: number;
  rebalanceDeadlineAt: number | null;
  shardProgress: ShardProgress[];
  /** Only meaningful for FENCED members; null otherwise. */
  fence: FenceKind | null;
  /**
   * The `memberInstanceId` of the process that last heartbeated with it (our SDK's token);
   * absent when unknown (reference clients, records written before instance ids).
   */
  memberInstanceId?: string;
  /**
   * The highest `requestSeq` that instance sent in a request recorded here (docs/protocol.md#request-order);
   * absent when unknown (reference clients, older SDKs, records written before it).
   */
  lastRequestSeq?: number;
}

/** An open metadata-correction round (docs/protocol.md#metadata-correction-rounds). */
export interface MetadataCorrection {
  targetMetadataVersion: number;
  observedMetadataVersion: number;
  requestedAt: number;
  updatedAt: number;
  acknowledgedMembers: string[];
}

/** Per-group coordination document. */
export interface GroupDoc {
  streamPrefix: string;
  consumerGroup: string;
  groupEpoch: number;
  assignmentEpoch: number;
  metadataVersion: number;
  state: GroupState;
  /** memberId -> sorted target shard indexes (live members only). */
  targetAssignments: Record<string, number[]>;
  members: Record<string, MemberRecord>;
  metadataCorrection: MetadataCorrection | null;
  createdAt: number;
  updatedAt: number;
}

/** Drain progress of one shard removed by a scale-in (docs/protocol.md#resharding). */
export const REMOVED_SHARD_STATES = ['DRAINING', 'DRAINED', 'RETIRING', 'RETIRED'] as const;
/** A removed shard's state. */
type RemovedShardState = (typeof REMOVED_SHARD_STATES)[number];

/** One consumer group as the last drain-evidence read saw it (`XINFO GROUPS`). */
export interface ConsumerGroupEvidence {
  name: string;
  /** Null when Redis did not report it. */
  pending: number | null;
  /** Null when Redis cannot tell (e.g. an entry beyond the group's position was deleted). */
  lag: number | null;
  /** The group's `last-delivered-id`; null when Redis did not report it (absent in older records). */
  lastDeliveredId?: string | null;
  /** Whether an entry follows `lastDeliveredId`; null when unknown (absent in older records). */
  entryAfterLastDelivered?: boolean | null;
}

/** The last drain-evidence read of a removed shard (cached: at most one read per heartbeat interval). */
export interface DrainEvidence {
  checkedAt: number;
  /** Whether this read was positive evidence that nothing is left unread or pending. */
  drained: boolean;
  /** Null when the read failed. */
  keyExists: boolean | null;
  /** `XLEN`; null when the key is absent or the read failed. */
  length: number | null;
  /** Every consumer group on the key; null when the key is absent or the read failed. */
  consumerGroups: ConsumerGroupEvidence[] | null;
  /** The read's error text, null when it succeeded. */
  error: string | null;
}

/** A shard index `>= shardCount` that is still consumable until retired. */
export interface RemovedShard {
  shard: number;
  state: RemovedShardState;
  /** Operator-facing explanation of why it is not yet retired (null once retired). */
  reason: string | null;
  updatedAt: number;
  /** The migration that removed it (absent in documents written before it was recorded). */
  reshardingId?: string | null;
  /** The last drain-evidence read (absent or null before the first one). */
  evidence?: DrainEvidence | null;
}

/** One resharding of a stream (wire `Migration` plus internal bookkeeping). */
export interface Migration {
  reshardingId: string;
  fromShardCount: number;
  toShardCount: number;
  state: MigrationState;
  createdAt: number;
  updatedAt: number;
}

/** Per-stream document: the shard count and everything stream-wide. */
export interface StreamDoc {
  streamPrefix: string;
  shardCount: number;
  /** Removed shards not yet retired; they stay consumable (docs/protocol.md#resharding). */
  removedShards: RemovedShard[];
  migrations: Migration[];
  activeReshardingId: string | null;
  /** Consumer groups of this stream, sorted by name. */
  groups: string[];
  createdAt: number;
  updatedAt: number;
}

/** Timing and limits the protocol core needs (all milliseconds). */
export interface ProtocolConfig {
  heartbeatIntervalMs: number;
  memberLeaseTtlMs: number;
  rebalanceTimeoutMs: number;
  staleMemberRetentionMs: number;
}

/** Default protocol timings (docs/protocol.md#housekeeping). */
export const DEFAULT_PROTOCOL_CONFIG: ProtocolConfig = {
  heartbeatIntervalMs: 3000,
  memberLeaseTtlMs: 15000,
  rebalanceTimeoutMs: 60000,
  staleMemberRetentionMs: 600000,
};

/** The only coordination protocol version we speak. */
export const PROTOCOL_VERSION = 1;

/** Member states that take part in assignment and hold shards. */
export function isLive(state: MemberState): boolean {
  return state === 'ACTIVE' || state === 'STARTING';
}

/**
 * Consumable shards of a stream (docs/protocol.md#resharding): `[0, shardCount)` plus removed shards not yet
 * retired, sorted ascending.
 */
export function consumableShards(stream: Pick<StreamDoc, 'shardCount' | 'removedShards'>): number[] {
  const out: number[] = [];
  for (let i = 0; i < stream.shardCount; i++) out.push(i);
  for (const r of stream.removedShards) {
    if (r.state !== 'RETIRED' && r.shard >= stream.shardCount) out.push(r.shard);
  }
  return [...new Set(out)].sort((a, b) => a - b);
}

/**
 * Shards that may appear in targets: the consumable set minus removed shards whose drain
 * evidence is in (DRAINED and later leave every target, docs/protocol.md#resharding).
 */
export function assignableShards(stream: Pick<StreamDoc, 'shardCount' | 'removedShards'>): number[] {
  const out: number[] = [];
  for (let i = 0; i < stream.shardCount; i++) out.push(i);
  for (const r of stream.removedShards) {
    if (r.state === 'DRAINING' && r.shard >= stream.shardCount) out.push(r.shard);
  }
  return [...new Set(out)].sort((a, b) => a - b);
}
