/**
 * The named schemas of the OpenAPI document (`#/components/schemas/<name>`): the request
 * schemas the routes validate with, and the response schemas of `openapi-*responses.ts`.
 */
import { z } from 'zod';
import { offsetsResetRequestSchema } from './offsets-reset-schemas.js';
import {
  grafanaAssignmentRowSchema,
  grafanaGroupRowSchema,
  grafanaMemberRowSchema,
  grafanaMessageRowSchema,
  grafanaOptionSchema,
  grafanaShardRowSchema,
  groupLagResponseSchema,
  messagesPageSchema,
  offsetsResponseSchema,
} from './openapi-monitoring-responses.js';
import {
  drainEvidenceSchema,
  migrationsResponseSchema,
  streamScaleResponseSchema,
} from './openapi-resharding-responses.js';
import {
  actuatorHealthSchema,
  actuatorInfoSchema,
  assignmentsResponseSchema,
  compatibilityResponseSchema,
  consumptionResponseSchema,
  errorResponseSchema,
  groupResponseSchema,
  groupsResponseSchema,
  healthResponseSchema,
  heartbeatBatchResponseSchema,
  heartbeatResponseSchema,
  loginResponseSchema,
  memberSchema,
  membersResponseSchema,
  migrationSchema,
  producerRoutingResponseSchema,
  removedShardSchema,
  sessionResponseSchema,
  streamCreateResponseSchema,
  streamDeleteResponseSchema,
} from './openapi-responses.js';
import {
  createGroupSchema,
  createStreamSchema,
  deleteGroupSchema,
  deleteStreamSchema,
  heartbeatBatchRequestSchema,
  heartbeatRequestSchema,
  loginRequestSchema,
  repairGroupSchema,
  rollbackSchema,
  scaleSchema,
  shardIdSchema,
} from './schemas.js';

/** Every named schema, by component name. */
export const COMPONENTS = {
  ErrorResponse: errorResponseSchema,
  ShardId: shardIdSchema,
  CreateStreamRequest: createStreamSchema,
  CreateGroupRequest: createGroupSchema,
  DeleteGroupRequest: deleteGroupSchema,
  DeleteStreamRequest: deleteStreamSchema,
  RepairGroupRequest: repairGroupSchema,
  ScaleRequest: scaleSchema,
  RollbackMigrationRequest: rollbackSchema,
  OffsetsResetRequest: offsetsResetRequestSchema,
  HeartbeatRequest: heartbeatRequestSchema,
  HeartbeatBatchRequest: heartbeatBatchRequestSchema,
  LoginRequest: loginRequestSchema,
  LoginResponse: loginResponseSchema,
  SessionResponse: sessionResponseSchema,
  StreamCreateResponse: streamCreateResponseSchema,
  StreamDeleteResponse: streamDeleteResponseSchema,
  StreamScaleResponse: streamScaleResponseSchema,
  Migration: migrationSchema,
  MigrationsResponse: migrationsResponseSchema,
  RemovedShard: removedShardSchema,
  DrainEvidence: drainEvidenceSchema,
  GroupResponse: groupResponseSchema,
  GroupsResponse: groupsResponseSchema,
  ProducerRoutingResponse: producerRoutingResponseSchema,
  HeartbeatResponse: heartbeatResponseSchema,
  HeartbeatBatchResponse: heartbeatBatchResponseSchema,
  MemberMetadata: memberSchema,
  MembersResponse: membersResponseSchema,
  AssignmentsResponse: assignmentsResponseSchema,
  ConsumptionProgressResponse: consumptionResponseSchema,
  HealthResponse: healthResponseSchema,
  CompatibilityResponse: compatibilityResponseSchema,
  StreamShardOffsetsResponse: offsetsResponseSchema,
  GroupLagResponse: groupLagResponseSchema,
  StreamMessagesPageResponse: messagesPageSchema,
  GrafanaOption: grafanaOptionSchema,
  GrafanaGroupRow: grafanaGroupRowSchema,
  GrafanaMemberRow: grafanaMemberRowSchema,
  GrafanaShardRow: grafanaShardRowSchema,
  GrafanaAssignmentRow: grafanaAssignmentRowSchema,
  GrafanaMessageRow: grafanaMessageRowSchema,
  ActuatorHealth: actuatorHealthSchema,
  ActuatorInfo: actuatorInfoSchema,
} as const satisfies Record<string, z.ZodType>;

/** A component name. */
export type ComponentName = keyof typeof COMPONENTS;

/**
 * JSON Schema of every component (and of `declared`, the response schemas routes declare with
 * themselves), with cross-references as `#/components/schemas/<name>`.
 */
export function componentSchemas(
  declared: Record<string, z.ZodType> = {},
): Record<string, Record<string, unknown>> {
  const taken = Object.keys(declared).filter((id) => id in COMPONENTS);
  if (taken.length > 0) throw new Error(`route-declared schema names already used: ${taken.join(', ')}`);
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries({ ...COMPONENTS, ...declared })) registry.add(schema, { id });
  const out = z.toJSONSchema(registry, {
    uri: (id) => `#/components/schemas/${id}`,
    // Requests are documented as accepted; responses carry no defaults or transforms either way.
    io: 'input',
    unrepresentable: 'any',
  });
  const schemas: Record<string, Record<string, unknown>> = {};
  for (const [id, s] of Object.entries(out.schemas)) {
    // Components inherit the document's dialect; per-schema `$schema`/`$id` only add noise.
    const { $schema: _dialect, $id: _id, ...rest } = s as Record<string, unknown>;
    schemas[id] = rest;
  }
  return schemas as Record<ComponentName, Record<string, unknown>>;
}
