/**
 * zod schemas of every `/coord/v1` response body, for the OpenAPI document (the routes build
 * responses from the TS types in `schemas.ts`; a type test keeps the two identical).
 * Clients must ignore fields they do not know: responses may gain fields (docs/protocol.md#compatibility).
 */
import { z } from 'zod';
import {
  COORDINATOR_CAPABILITIES,
  GROUP_STATES,
  HEARTBEAT_STATUSES,
  MEMBER_STATES,
  MIGRATION_STATES,
  REMOVED_SHARD_STATES,
} from '../core/model.js';
import { ROLES } from './auth/roles.js';
import { shardIdSchema } from './schemas.js';

const instant = z.iso.datetime({ offset: true }).describe('ISO-8601 instant (UTC, `…Z`)');
const count = z.int().min(0);
const text = z.string();

/** Group states (wire enum `GroupState`). */
export const groupStateSchema = z.enum(GROUP_STATES);
/** Member states (wire enum `MemberState`). */
export const memberStateSchema = z.enum(MEMBER_STATES);
/** Migration states (wire enum `MigrationState`). */
export const migrationStateSchema = z.enum(MIGRATION_STATES);
/** Heartbeat outcomes (wire enum `HeartbeatStatus`). */
export const heartbeatStatusSchema = z.enum(HEARTBEAT_STATUSES);
const removedShardStateSchema = z.enum(REMOVED_SHARD_STATES);
/** Additive: the protocol extensions this coordinator serves (unknown values must be ignored). */
const capabilitiesSchema = z
  .array(z.enum(COORDINATOR_CAPABILITIES))
  .describe('additive protocol extensions served here, e.g. BATCH_HEARTBEAT');

/** `ErrorResponse`. */
export const errorResponseSchema = z.object({
  status: text.describe('HTTP status name, e.g. `NOT_FOUND`'),
  errorCode: text.describe('stable machine-readable code, e.g. `GROUP_NOT_FOUND`'),
  message: text,
  requestId: text
    .optional()
    .describe('Additive: the X-Request-Id of the request, to find its access and error log lines'),
});

/** `Migration`. */
export const migrationSchema = z.object({
  reshardingId: text.describe('`reshard-<uuid>`, or `noop` for a scale to the current count'),
  fromShardCount: count,
  toShardCount: count,
  state: migrationStateSchema,
  createdAt: instant,
  updatedAt: instant,
});

/** Additive: a shard removed by a scale-in and not yet retired. */
export const removedShardSchema = z.object({
  shardIndex: count,
  state: removedShardStateSchema,
  reason: text.nullable().describe('why it is not retired yet'),
  updatedAt: instant,
});

/** `GroupResponse` plus the additive `consumableShards` and `removedShards`. */
export const groupResponseSchema = z.object({
  streamPrefix: text,
  consumerGroup: text,
  state: groupStateSchema,
  groupEpoch: z.int(),
  assignmentEpoch: z.int(),
  metadataVersion: z.int(),
  shardCount: count,
  activeMigration: migrationSchema.nullable(),
  targetAssignmentSummary: z.record(text, count).describe('memberId → target shard count'),
  currentAssignmentSummary: z.record(text, count).describe('memberId → currently held shard count'),
  consumableShards: z
    .array(shardIdSchema)
    .describe('additive: shards members may read (incl. draining removed ones)'),
  removedShards: z
    .array(removedShardSchema)
    .describe('additive: shards removed by a scale-in and not yet retired'),
});

/** Additive: what `DELETE /streams/{p}` removed. */
export const streamDeleteResponseSchema = z.object({
  streamPrefix: text,
  deletedGroups: z.array(text).describe('groups whose coordination metadata was deleted'),
  deletedShardKeys: z.array(text).describe('shard stream keys deleted'),
  keptShardKeys: z
    .array(z.object({ streamKey: text, reason: text }))
    .describe('shard keys left in Redis, and why'),
});

/** `StreamCreateResponse` plus the additive `consumerGroup`. */
export const streamCreateResponseSchema = z.object({
  streamPrefix: text,
  consumerGroup: text,
  shardCount: count,
  metadataVersion: z.int(),
});

/** `ProducerRoutingResponse`. */
export const producerRoutingResponseSchema = z.object({
  streamPrefix: text,
  consumerGroup: text,
  metadataVersion: z.int(),
  shardCount: count,
  streamKeyPattern: text.describe('`<prefix>:{shardIndex}`'),
  shards: z.array(
    z.object({
      shardIndex: count,
      streamKey: text,
      redisSlot: z.int().min(0).max(16383).describe('CRC16 Redis Cluster slot of streamKey'),
    }),
  ),
});

/** `HeartbeatResponse` plus the additive `memberLeaseTtlMs`. */
export const heartbeatResponseSchema = z.object({
  responseTo: text.describe('the request’s requestId'),
  status: heartbeatStatusSchema,
  memberId: text,
  memberEpoch: z.int(),
  heartbeatIntervalMs: count,
  rebalanceTimeoutMs: count,
  memberLeaseTtlMs: count,
  groupEpoch: z.int(),
  assignmentEpoch: z.int(),
  metadataVersion: z.int(),
  assignment: z.object({
    assignedShards: z.array(shardIdSchema),
    pendingShards: z.array(shardIdSchema),
    metadataVersion: z.int(),
  }),
  capabilities: capabilitiesSchema,
});

/**
 * Additive: answer of `POST …/groups/{g}/heartbeats`, one item per request item, in order. An
 * item is what the single route would have answered: `httpStatus` 200 with `heartbeat`, or the
 * refusal's status with its `ErrorResponse` in `error`.
 */
export const heartbeatBatchResponseSchema = z.object({
  results: z.array(
    z.object({
      memberId: text,
      httpStatus: z.int().min(200).max(599),
      heartbeat: heartbeatResponseSchema.nullable(),
      error: errorResponseSchema.nullable(),
    }),
  ),
});

const shardProgressSchema = z.object({
  shard: shardIdSchema,
  streamKey: text,
  lastDeliveredId: text.nullable(),
  lastAckedId: text.nullable(),
  pendingCount: count,
  updatedAt: text.nullable().describe('as the member reported it'),
});

/** `MemberMetadata`. */
export const memberSchema = z.object({
  memberId: text,
  memberName: text,
  state: memberStateSchema,
  memberEpoch: z.int(),
  metadataVersion: z.int(),
  runtimeMaxConcurrency: count,
  activeConsumerWorkers: count,
  currentAssignment: z.array(shardIdSchema),
  grantedAssignment: z.array(shardIdSchema),
  revoking: z.array(shardIdSchema),
  lastHeartbeatAt: instant,
  memberLeaseExpiresAt: instant,
  rebalanceTimeoutMs: count,
  rebalanceDeadlineAt: instant.nullable(),
  shardProgress: z.array(shardProgressSchema),
});

/** `{members}` of a group, sorted by memberId. */
export const membersResponseSchema = z.object({ members: z.array(memberSchema) });

/**
 * A page of `{groups}` in (stream, group) order; the reference's answer is `{groups}` of every
 * stream, and the paging fields are additive (docs/protocol.md#listing-groups-in-pages).
 */
export const groupsResponseSchema = z.object({
  groups: z.array(groupResponseSchema),
  nextCursor: text
    .nullable()
    .describe('additive: pass as `cursor` for the next page; null when this page ends the list'),
  limit: z.int().min(1).describe('additive: the page size applied'),
  totalStreams: count.describe('additive: streams in the namespace when the page was read'),
  totalGroups: count
    .nullable()
    .describe('additive: every group, when this page holds them all; null otherwise (not counted)'),
});

/** Target, current and revoking shards per member, plus invariant checks. */
export const assignmentsResponseSchema = z.object({
  targetAssignment: z.record(text, z.array(shardIdSchema)),
  currentAssignments: z.record(text, z.array(shardIdSchema)),
  revokeProgress: z.record(text, z.array(shardIdSchema)),
  invariantViolations: z.array(text),
});

/** Every member's last accepted per-shard progress. */
export const consumptionResponseSchema = z.object({
  progress: z.array(
    shardProgressSchema.extend({
      streamPrefix: text,
      consumerGroup: text,
      memberId: text,
      memberName: text,
      memberState: memberStateSchema,
    }),
  ),
});

/** `/monitoring/health`. */
export const healthResponseSchema = z.object({
  status: z.enum(['UP', 'DEGRADED']),
  coordinatorId: text,
  redis: z.enum(['UP', 'DOWN', 'UNKNOWN']),
  loop: z.literal('UP'),
});

const versionSchema = z.object({
  major: count,
  minor: count,
  patch: count,
  qualifier: text.nullable(),
  version: text,
});

/** `/monitoring/compatibility`. */
export const compatibilityResponseSchema = z.object({
  currentCoordinationVersion: z.int(),
  supportedCoordinationVersions: z.object({ min: z.int(), max: z.int() }),
  coordinationVersions: z.array(
    z.object({
      version: z.int(),
      status: z.literal('ACTIVE'),
      introducedIn: versionSchema,
      deprecatedIn: versionSchema.nullable(),
      minimumSupportedUntil: versionSchema,
      removedIn: versionSchema.nullable(),
      timingDefaults: z.object({
        heartbeatInterval: text.describe('ISO-8601 duration, e.g. PT3S'),
        memberLeaseTtl: text,
        rebalanceTimeout: text,
      }),
    }),
  ),
  capabilities: capabilitiesSchema,
  heartbeatBatchMaxItems: z.int().min(0).describe('items one batched heartbeat may carry (0: no batching)'),
  maxShardCount: z
    .int()
    .min(1)
    .describe('the largest shard count a create or scale may ask for (COORDINATOR_MAX_SHARD_COUNT)'),
});

/** `/monitoring/session`. */
export const sessionResponseSchema = z.object({
  authenticated: z.boolean(),
  username: text.nullable(),
  roles: z.array(z.enum(ROLES)),
});

/** `POST /auth/login` answer. */
export const loginResponseSchema = z.object({
  accessToken: text,
  tokenType: z.literal('Bearer'),
  expiresAt: instant,
  expiresInSeconds: count,
  roles: z.array(z.enum(ROLES)),
});

const actuatorStatus = z.enum(['UP', 'DOWN']);
const healthComponent = z.object({
  status: actuatorStatus,
  /** Why a component is DOWN, e.g. `{"error": "credentials refused"}` or `{"state": "terminating"}`. */
  details: z.record(z.string(), text).optional(),
});

/** `/actuator/health` and its readiness and liveness groups (liveness carries `status` only). */
export const actuatorHealthSchema = z.object({
  status: actuatorStatus,
  components: z.object({ redis: healthComponent, lifecycle: healthComponent }).optional(),
});

/** `/actuator/info`. */
export const actuatorInfoSchema = z.object({ app: z.object({ name: text, version: text }) });
