/**
 * Wire shapes of `/coord/v1`: zod schemas for every request body and path parameter, and TS
 * types for every response body (PROTOCOL §2–§3). Field names follow the reference exactly;
 * additive response fields are marked as such.
 */
import { z } from 'zod';
import type { RedisHealth } from '../coordinator-api.js';
import {
  type GroupState,
  type HeartbeatStatus,
  type MemberState,
  type MigrationState,
  REVOKE_STATES,
  type RemovedShardState,
} from '../core/model.js';
import { isWellFormed, NOT_WELL_FORMED } from '../core/well-formed.js';

/** Longest accepted stream prefix, consumer group or member id (path segments). */
export const MAX_NAME_LENGTH = 200;
/** Highest shard index a request may name (a Redis Cluster has 16384 slots; shard counts stop there). */
export const MAX_SHARD_INDEX = 16383;
/** Longest accepted free-text field (`reason`, `memberName`, ids echoed back). */
export const MAX_TEXT_LENGTH = 1024;
/** Java `int` range: fields the reference declares as `Int`. */
const INT32_MAX = 2_147_483_647;

const notBlank = (s: string) => s.trim().length > 0;

/** A required string that is not empty or whitespace only, and well-formed Unicode. */
const nonBlank = (max: number) =>
  z.string().max(max).refine(notBlank, 'must not be blank').refine(isWellFormed, NOT_WELL_FORMED);

/** Body of `POST /auth/login` (optional; unknown fields ignored). */
export const loginRequestSchema = z.object({
  username: z.string().nullish(),
  password: z.string().nullish(),
});

/** `{streamPrefix}`: non-blank, no hash-tag braces (shard keys are `{p}:{i}` without tags). */
export const streamPrefixSchema = nonBlank(MAX_NAME_LENGTH).refine(
  (s) => !s.includes('{') && !s.includes('}'),
  'must not contain { or }',
);

/** `{consumerGroup}`: non-blank. */
export const consumerGroupSchema = nonBlank(MAX_NAME_LENGTH);

/** `{memberId}`: non-blank. */
export const memberIdSchema = nonBlank(MAX_NAME_LENGTH);

/** `memberInstanceId`: our SDK's per-process token (additive), 1–128 of `[A-Za-z0-9._-]`. */
export const memberInstanceIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,128}$/, 'must be 1-128 of A-Za-z0-9._-');

/** `{reshardingId}`: non-blank (`reshard-<uuid>`, or anything the operator copied). */
export const reshardingIdSchema = nonBlank(MAX_NAME_LENGTH);

/** Path parameters the routes use, by name. */
export const pathParamSchemas = {
  streamPrefix: streamPrefixSchema,
  consumerGroup: consumerGroupSchema,
  memberId: memberIdSchema,
  reshardingId: reshardingIdSchema,
} as const;

/** A path parameter name. */
export type PathParamName = keyof typeof pathParamSchemas;

const shardCountSchema = z
  .int()
  .min(1)
  .max(MAX_SHARD_INDEX + 1);
const requestedBySchema = nonBlank(MAX_NAME_LENGTH);
const optionalText = z.string().max(MAX_TEXT_LENGTH).nullish();
/** ISO-8601 instant as the starter's Jackson writes it (`…Z` or with an offset). */
const instant = z.iso.datetime({ offset: true });

/** Body of `POST /streams/{p}`; `consumerGroup` is our additive field (SPEC §8.5). */
export const createStreamSchema = z.object({
  initialShardCount: shardCountSchema.nullish(),
  consumerGroup: consumerGroupSchema.nullish(),
  requestedBy: requestedBySchema,
  reason: optionalText,
});

/** Body of `POST /streams/{p}/groups/{g}`. */
export const createGroupSchema = z.object({
  initialShardCount: shardCountSchema.nullish(),
  requestedBy: requestedBySchema,
  reason: optionalText,
});

/** Body of `DELETE /streams/{p}/groups/{g}`: who and why are both mandatory. */
export const deleteGroupSchema = z.object({
  requestedBy: requestedBySchema,
  reason: nonBlank(MAX_TEXT_LENGTH),
  force: z.boolean().nullish(),
});

/**
 * Body of both scale routes (PROTOCOL §2.6): `targetShardCount` required, 0 allowed (full
 * drain; the configured maximum is checked by the route); `reason` mandatory;
 * `deprecatedAfter` accepted and ignored.
 */
export const scaleSchema = z.object({
  targetShardCount: z
    .int()
    .min(0)
    .max(MAX_SHARD_INDEX + 1),
  requestedBy: requestedBySchema,
  reason: nonBlank(MAX_TEXT_LENGTH),
  deprecatedAfter: z.string().max(MAX_TEXT_LENGTH).nullish(),
});

/** Body of `POST …/migrations/{id}/rollback`: who and why, both mandatory. */
export const rollbackSchema = z.object({
  requestedBy: requestedBySchema,
  reason: nonBlank(MAX_TEXT_LENGTH),
});

/** `ShardId` = `{shardIndex}`. */
export const shardIdSchema = z.object({ shardIndex: z.int().min(0).max(MAX_SHARD_INDEX) });

const revokeReportSchema = z.object({
  shard: shardIdSchema,
  state: z.enum(REVOKE_STATES),
  inFlight: z.int().min(0).max(INT32_MAX).nullish(),
  ackedAt: instant.nullish(),
});

const shardProgressSchema = z.object({
  shard: shardIdSchema,
  streamKey: nonBlank(MAX_TEXT_LENGTH),
  lastDeliveredId: z.string().max(MAX_TEXT_LENGTH).nullish(),
  lastAckedId: z.string().max(MAX_TEXT_LENGTH).nullish(),
  pendingCount: z.int().min(0).nullish(),
  updatedAt: instant.nullish(),
});

/** An optional list with at most one item per possible shard. */
const perShard = <T extends z.ZodType>(item: T) =>
  z
    .array(item)
    .max(MAX_SHARD_INDEX + 1)
    .nullish();

/**
 * Body of a heartbeat (PROTOCOL §3.1). Deliberately permissive where the core decides:
 * `protocolVersion` above the supported range, a body `memberId` that differs from the path,
 * and `memberEpoch < -1` are protocol answers (HTTP 200), not 400s.
 */
export const heartbeatRequestSchema = z.object({
  protocolVersion: z.int().min(1),
  requestId: nonBlank(MAX_TEXT_LENGTH),
  memberId: nonBlank(MAX_TEXT_LENGTH),
  memberName: z.string().max(MAX_TEXT_LENGTH).nullish(),
  memberEpoch: z.int(),
  metadataVersion: z.int(),
  runtimeConsumerCapacity: z.object({
    runtimeMaxConcurrency: z.int().min(1).max(INT32_MAX),
    availableConcurrency: z.int().min(0).max(INT32_MAX),
  }),
  ownedShards: perShard(shardIdSchema),
  revokingShards: perShard(revokeReportSchema),
  shardProgress: perShard(shardProgressSchema),
  /** Additive: our SDK's per-process token; a live member's id is refused to another (409 MEMBER_ID_IN_USE). */
  memberInstanceId: memberInstanceIdSchema.nullish(),
});

/** A parsed `POST /streams/{p}` body. */
export type CreateStreamBody = z.infer<typeof createStreamSchema>;
/** A parsed `POST /streams/{p}/groups/{g}` body. */
export type CreateGroupBody = z.infer<typeof createGroupSchema>;
/** A parsed `DELETE /streams/{p}/groups/{g}` body. */
export type DeleteGroupBody = z.infer<typeof deleteGroupSchema>;
/** A parsed heartbeat body. */
export type HeartbeatRequestBody = z.infer<typeof heartbeatRequestSchema>;
/** A parsed scale body. */
export type ScaleBody = z.infer<typeof scaleSchema>;
/** A parsed rollback body. */
export type RollbackBody = z.infer<typeof rollbackSchema>;

// ---- responses ----

/** `ShardId` on the wire. */
export interface ShardIdJson {
  shardIndex: number;
}

/** `ErrorResponse`: `status` is the HTTP status enum name (`BAD_REQUEST`, …). */
export interface ErrorResponseJson {
  status: string;
  errorCode: string;
  message: string;
}

/** `Migration`. */
export interface MigrationJson {
  reshardingId: string;
  fromShardCount: number;
  toShardCount: number;
  state: MigrationState;
  createdAt: string;
  updatedAt: string;
}

/** Additive: a shard removed by a scale-in and not yet retired (SPEC §7). */
export interface RemovedShardJson {
  shardIndex: number;
  state: RemovedShardState;
  reason: string | null;
  updatedAt: string;
}

/** `GroupResponse` (PROTOCOL §2.2) plus additive `consumableShards` and `removedShards`. */
export interface GroupResponseJson {
  streamPrefix: string;
  consumerGroup: string;
  state: GroupState;
  groupEpoch: number;
  assignmentEpoch: number;
  metadataVersion: number;
  shardCount: number;
  activeMigration: MigrationJson | null;
  targetAssignmentSummary: Record<string, number>;
  currentAssignmentSummary: Record<string, number>;
  consumableShards: ShardIdJson[];
  removedShards: RemovedShardJson[];
}

/** `StreamScaleResponse` (PROTOCOL §2.6): the stream's one migration, once per affected group. */
export interface StreamScaleResponseJson {
  streamPrefix: string;
  targetShardCount: number;
  affectedConsumerGroups: string[];
  migrations: MigrationJson[];
}

/** Additive: one consumer group as a drain-evidence read saw it. */
export interface ConsumerGroupEvidenceJson {
  consumerGroup: string;
  pendingCount: number | null;
  lag: number | null;
}

/** Additive: one drain-evidence read of a removed shard. */
export interface DrainEvidenceJson {
  checkedAt: string;
  drained: boolean;
  keyExists: boolean | null;
  streamLength: number | null;
  consumerGroups: ConsumerGroupEvidenceJson[] | null;
  error: string | null;
  /** Why it is (not) drained; null for the stored read (its reason is the shard's `reason`). */
  reason: string | null;
}

/** Additive: a member holding a removed shard. */
export interface ShardHolderJson {
  consumerGroup: string;
  memberId: string;
  memberState: MemberState;
}

/** Additive: a removed shard in the migrations view. */
export interface RemovedShardDetailJson extends RemovedShardJson {
  streamKey: string;
  reshardingId: string | null;
  holders: ShardHolderJson[];
  /** The read the state machine last decided on (null before the first one). */
  lastEvidence: DrainEvidenceJson | null;
  /** A read taken for this answer (null for retired shards). */
  liveEvidence: DrainEvidenceJson | null;
}

/** `GET /monitoring/…/migrations` (PROTOCOL §2.9) plus additive operator fields. */
export interface MigrationsResponseJson {
  migrations: MigrationJson[];
  activeReshardingId: string | null;
  shardCount: number;
  removedShards: RemovedShardDetailJson[];
  rollback: { allowed: boolean; reason: string | null };
}

/** `StreamCreateResponse` plus additive `consumerGroup` (the stream's first group). */
export interface StreamCreateResponseJson {
  streamPrefix: string;
  consumerGroup: string;
  shardCount: number;
  metadataVersion: number;
}

/** One shard of `ProducerRoutingResponse`. */
export interface ProducerRoutingShardJson {
  shardIndex: number;
  streamKey: string;
  redisSlot: number;
}

/** `ProducerRoutingResponse` (PROTOCOL §2.5). */
export interface ProducerRoutingResponseJson {
  streamPrefix: string;
  consumerGroup: string;
  metadataVersion: number;
  shardCount: number;
  streamKeyPattern: string;
  shards: ProducerRoutingShardJson[];
}

/** `HeartbeatResponse` (PROTOCOL §3.2) plus additive `memberLeaseTtlMs` (SPEC §8.10). */
export interface HeartbeatResponseJson {
  responseTo: string;
  status: HeartbeatStatus;
  memberId: string;
  memberEpoch: number;
  heartbeatIntervalMs: number;
  rebalanceTimeoutMs: number;
  memberLeaseTtlMs: number;
  groupEpoch: number;
  assignmentEpoch: number;
  metadataVersion: number;
  assignment: {
    assignedShards: ShardIdJson[];
    pendingShards: ShardIdJson[];
    metadataVersion: number;
  };
}

/** `ShardConsumptionProgress` as stored on a member. */
export interface ShardProgressJson {
  shard: ShardIdJson;
  streamKey: string;
  lastDeliveredId: string | null;
  lastAckedId: string | null;
  pendingCount: number;
  updatedAt: string | null;
}

/** `MemberMetadata` of the members view (PROTOCOL §2.9). */
export interface MemberJson {
  memberId: string;
  memberName: string;
  state: MemberState;
  memberEpoch: number;
  metadataVersion: number;
  runtimeMaxConcurrency: number;
  activeConsumerWorkers: number;
  currentAssignment: ShardIdJson[];
  grantedAssignment: ShardIdJson[];
  revoking: ShardIdJson[];
  lastHeartbeatAt: string;
  memberLeaseExpiresAt: string;
  rebalanceTimeoutMs: number;
  rebalanceDeadlineAt: string | null;
  shardProgress: ShardProgressJson[];
}

/** `AssignmentsResponse`. */
export interface AssignmentsResponseJson {
  targetAssignment: Record<string, ShardIdJson[]>;
  currentAssignments: Record<string, ShardIdJson[]>;
  revokeProgress: Record<string, ShardIdJson[]>;
  invariantViolations: string[];
}

/** One row of `ConsumptionProgressResponse`. */
export interface ConsumerShardProgressJson extends ShardProgressJson {
  streamPrefix: string;
  consumerGroup: string;
  memberId: string;
  memberName: string;
  memberState: MemberState;
}

/** `HealthResponse` of `/monitoring/health`. */
export interface HealthResponseJson {
  status: 'UP' | 'DEGRADED';
  coordinatorId: string;
  redis: RedisHealth;
  loop: 'UP';
}

/** A version as the reference's compatibility view renders it. */
export interface VersionJson {
  major: number;
  minor: number;
  patch: number;
  qualifier: string | null;
  version: string;
}

/** `/monitoring/compatibility` (PROTOCOL §2.9); durations are ISO-8601 (`PT3S`). */
export interface CompatibilityResponseJson {
  currentCoordinationVersion: number;
  supportedCoordinationVersions: { min: number; max: number };
  coordinationVersions: {
    version: number;
    status: 'ACTIVE';
    introducedIn: VersionJson;
    deprecatedIn: VersionJson | null;
    minimumSupportedUntil: VersionJson;
    removedIn: VersionJson | null;
    timingDefaults: { heartbeatInterval: string; memberLeaseTtl: string; rebalanceTimeout: string };
  }[];
}
