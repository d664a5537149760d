/**
 * Wire shapes of `/coord/v1`: zod schemas for every request body and path parameter, and the
 * types of every response body, read off the documented response schemas (docs/protocol.md#endpoints-and-roles, docs/protocol.md#heartbeat). Field names follow the reference exactly;
 * additive response fields are marked as such.
 */
import { z } from 'zod';
import { REVOKE_STATES } from '../core/model.js';
import { isWellFormed, NOT_WELL_FORMED } from '../core/well-formed.js';
import type * as M from './openapi-monitoring-responses.js';
import type * as S from './openapi-resharding-responses.js';
import type * as R from './openapi-responses.js';

/** Longest accepted stream prefix, consumer group or member id (path segments). */
const MAX_NAME_LENGTH = 200;
/** Highest shard index a request may name (a Redis Cluster has 16384 slots; shard counts stop there). */
export const MAX_SHARD_INDEX = 16383;
/** Longest accepted free-text field (`reason`, `memberName`, ids echoed back). */
const MAX_TEXT_LENGTH = 1024;
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
const memberInstanceIdSchema = z.string().regex(/^[A-Za-z0-9._-]{1,128}$/, 'must be 1-128 of A-Za-z0-9._-');

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
/** `requestedBy` of admin mutations: who the client says it acts for (audit only). */
export const requestedBySchema = nonBlank(MAX_NAME_LENGTH);
/** An optional free-text field (`reason`). */
export const optionalText = z.string().max(MAX_TEXT_LENGTH).nullish();
/** ISO-8601 instant as the starter's Jackson writes it (`…Z` or with an offset). */
const instant = z.iso.datetime({ offset: true });

/** Body of `POST /streams/{p}`; `consumerGroup` is our additive field (docs/protocol.md#deviation-one-shard-count-per-stream). */
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
 * Body of `DELETE /streams/{p}` (additive): the same audit fields as a group delete.
 * @alias its own OpenAPI component (`DeleteStreamRequest`), so the two can part later
 */
export const deleteStreamSchema = deleteGroupSchema;

/**
 * Body of `POST /streams/{p}/groups/{g}/repair` (additive): `rebuild` the group's derived indexes
 * from its member records, or `reset` its assignment so every member rejoins
 * (docs/running-redis.md#when-a-group-is-reported-corrupt). Who is mandatory, why optional.
 */
export const repairGroupSchema = z.object({
  mode: z.enum(['rebuild', 'reset']),
  requestedBy: requestedBySchema,
  reason: optionalText,
});

/**
 * Body of both scale routes (docs/protocol.md#scale-requests): `targetShardCount` required, 0 allowed (full
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
 * Body of a heartbeat (docs/protocol.md#heartbeat-request). Deliberately permissive where the core decides:
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
  /**
   * Additive: our SDK's per-instance request counter (docs/protocol.md#request-order); a request
   * older than one recorded for the same instance is fenced, not the member.
   */
  requestSeq: z.int().min(0).max(Number.MAX_SAFE_INTEGER).nullish(),
});

/** Most heartbeats one batch may carry (`POST …/groups/{g}/heartbeats`); beyond → 400. */
export const HEARTBEAT_BATCH_MAX_ITEMS = 64;

/**
 * Additive: body of the batched heartbeat, one single-route body per member. Each item names its
 * member in `memberId` (it is the path id too); a member appears at most once, so no two items
 * race for the same member record inside one request.
 */
export const heartbeatBatchRequestSchema = z.object({
  heartbeats: z
    .array(heartbeatRequestSchema)
    .min(1)
    .max(HEARTBEAT_BATCH_MAX_ITEMS)
    .superRefine((items, ctx) => {
      const seen = new Set<string>();
      items.forEach((item, i) => {
        if (seen.has(item.memberId))
          ctx.addIssue({ code: 'custom', path: [i, 'memberId'], message: 'repeats an earlier item' });
        seen.add(item.memberId);
      });
    }),
});

/** A parsed `POST /streams/{p}` body. */
export type CreateStreamBody = z.infer<typeof createStreamSchema>;
/** A parsed `DELETE /streams/{p}/groups/{g}` body. */
export type DeleteGroupBody = z.infer<typeof deleteGroupSchema>;
/** `DELETE /streams/{p}` body. */
export type DeleteStreamBody = z.infer<typeof deleteStreamSchema>;
/** A parsed `POST /streams/{p}/groups/{g}/repair` body. */
export type RepairGroupBody = z.infer<typeof repairGroupSchema>;
/** A parsed heartbeat body. */
export type HeartbeatRequestBody = z.infer<typeof heartbeatRequestSchema>;
/** A parsed scale body. */
export type ScaleBody = z.infer<typeof scaleSchema>;
/** A parsed rollback body. */
export type RollbackBody = z.infer<typeof rollbackSchema>;

// ---- responses: the documented schemas' outputs (openapi-*responses.ts), never restated ----

/** `ShardId` on the wire. */
export type ShardIdJson = z.output<typeof shardIdSchema>;
/** `ErrorResponse`: `status` is the HTTP status enum name (`BAD_REQUEST`, …). */
export type ErrorResponseJson = z.output<typeof R.errorResponseSchema>;
/** `Migration`. */
export type MigrationJson = z.output<typeof R.migrationSchema>;
/** Additive: a shard removed by a scale-in and not yet retired (docs/protocol.md#resharding). */
export type RemovedShardJson = z.output<typeof R.removedShardSchema>;
/** `GroupResponse` (docs/protocol.md#streams-and-groups) plus additive `consumableShards` and `removedShards`. */
export type GroupResponseJson = z.output<typeof R.groupResponseSchema>;
/** `StreamScaleResponse` (docs/protocol.md#scale-requests): the stream's one migration, once per affected group. */
export type StreamScaleResponseJson = z.output<typeof S.streamScaleResponseSchema>;
/** Additive: one drain-evidence read of a removed shard. */
export type DrainEvidenceJson = z.output<typeof S.drainEvidenceSchema>;
/** `GET /monitoring/…/migrations` (docs/protocol.md#monitoring-views) plus additive operator fields. */
export type MigrationsResponseJson = z.output<typeof S.migrationsResponseSchema>;
/** Additive: what `DELETE /streams/{p}` removed. */
export type StreamDeleteResponseJson = z.output<typeof R.streamDeleteResponseSchema>;
/** `StreamCreateResponse` plus additive `consumerGroup` (the stream's first group). */
export type StreamCreateResponseJson = z.output<typeof R.streamCreateResponseSchema>;
/** `ProducerRoutingResponse` (docs/protocol.md#producer-routing). */
export type ProducerRoutingResponseJson = z.output<typeof R.producerRoutingResponseSchema>;
/** `HeartbeatResponse` (docs/protocol.md#heartbeat-response) plus additive `memberLeaseTtlMs` (docs/protocol.md#deviation-additive-fields). */
export type HeartbeatResponseJson = z.output<typeof R.heartbeatResponseSchema>;
/** Additive: the batched heartbeat's answer, one single-route answer per item, in order. */
export type HeartbeatBatchResponseJson = z.output<typeof R.heartbeatBatchResponseSchema>;
/** One item of `HeartbeatBatchResponse`. */
export type HeartbeatBatchItemJson = HeartbeatBatchResponseJson['results'][number];
/** `MemberMetadata` of the members view (docs/protocol.md#monitoring-views). */
export type MemberJson = z.output<typeof R.memberSchema>;
/** `ShardConsumptionProgress` as stored on a member. */
export type ShardProgressJson = MemberJson['shardProgress'][number];
/** `AssignmentsResponse`. */
export type AssignmentsResponseJson = z.output<typeof R.assignmentsResponseSchema>;
/** One row of `ConsumptionProgressResponse`. */
export type ConsumerShardProgressJson = z.output<typeof R.consumptionResponseSchema>['progress'][number];
/** `HealthResponse` of `/monitoring/health`. */
export type HealthResponseJson = z.output<typeof R.healthResponseSchema>;
/** `/monitoring/compatibility` (docs/protocol.md#monitoring-views); durations are ISO-8601 (`PT3S`). */
export type CompatibilityResponseJson = z.output<typeof R.compatibilityResponseSchema>;
/** A version as the reference's compatibility view renders it. */
export type VersionJson = CompatibilityResponseJson['coordinationVersions'][number]['introducedIn'];
/** `POST /auth/login`'s answer. */
export type LoginResponseJson = z.output<typeof R.loginResponseSchema>;
/** `GET /monitoring/session`. */
export type SessionResponseJson = z.output<typeof R.sessionResponseSchema>;
/** `GET /monitoring/groups`. */
export type GroupsResponseJson = z.output<typeof R.groupsResponseSchema>;
/** `GET /monitoring/…/members`. */
export type MembersResponseJson = z.output<typeof R.membersResponseSchema>;
/** `/monitoring/grafana/groups` row (also `GrafanaGroupRowJson` of grafana-views.ts). */
export type GroupRowJson = z.output<typeof M.grafanaGroupRowSchema>;
