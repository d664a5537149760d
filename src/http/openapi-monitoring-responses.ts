/**
 * zod schemas of the Redis-backed monitoring responses (offsets, message pages) and the
 * Grafana rows, for the OpenAPI document. A type test keeps them identical to the TS types
 * the views build.
 */
import { z } from 'zod';
import { groupStateSchema, memberStateSchema } from './openapi-responses.js';
import { shardIdSchema } from './schemas.js';

const text = z.string();
const count = z.int().min(0);
const nullableText = text.nullable();
const nullableInt = z.int().nullable();
const instant = z.iso.datetime({ offset: true });
const directionSchema = z.enum(['FORWARD', 'BACKWARD']);
const rate = z
  .number()
  .nullable()
  .describe('per second over this instance’s last two observations; null at first');

/** Placement and Redis readings of one shard, shared by offsets and Grafana shard rows. */
const shardReadings = {
  streamKey: text,
  redisSlot: z.int().min(0).max(16383),
  redisNodeEndpoint: nullableText.describe('Cluster only'),
  redisNodeId: nullableText.describe('Cluster only'),
  redisSlotRangeStart: nullableInt.describe('Cluster only'),
  redisSlotRangeEnd: nullableInt.describe('Cluster only'),
  streamLength: count,
  firstRecordId: nullableText,
  lastRecordId: nullableText,
  lastGeneratedId: nullableText,
  groupLastDeliveredId: nullableText,
  consumerLastDeliveredId: nullableText,
  consumerLastAckedId: nullableText,
  pendingCount: count,
  lag: nullableInt.describe('null when Redis cannot tell'),
  memoryUsageBytes: nullableInt,
  removed: z.boolean().describe('additive: removed by a scale-in, still draining'),
};

/** One shard of `StreamShardOffsetsResponse`. */
export const shardOffsetSchema = z.object({
  streamPrefix: text,
  consumerGroup: text,
  shard: shardIdSchema,
  ...shardReadings,
  ownerMemberIds: z.array(text),
});

/** `StreamShardOffsetsResponse`. */
export const offsetsResponseSchema = z.object({
  streamPrefix: text,
  consumerGroup: text,
  shards: z.array(shardOffsetSchema),
  totalStreamLength: count,
  totalPendingCount: count,
  totalLag: nullableInt.describe('null when any shard’s lag is unknown'),
  totalMemoryUsageBytes: count,
  memoryUsageKnown: z.boolean(),
});

/** One stream entry of a message page. */
export const messageRecordSchema = z.object({
  streamPrefix: text,
  consumerGroup: text,
  shard: shardIdSchema,
  streamKey: text,
  recordId: text,
  fields: z.record(text, text),
  payload: nullableText.describe('the `payload` field, if any'),
  recordTimestampMs: nullableInt,
  recordTime: instant.nullable(),
});

/** `StreamMessagesPageResponse`. */
export const messagesPageSchema = z.object({
  streamPrefix: text,
  consumerGroup: text,
  shard: shardIdSchema,
  streamKey: text,
  direction: directionSchema,
  limit: count,
  records: z.array(messageRecordSchema),
  nextCursor: nullableText.describe('pass as `cursor` for the next page; null on the last page'),
});

/** A Grafana variable option. */
export const grafanaOptionSchema = z.object({ __text: text, __value: text });

/** `/grafana/groups` row. */
export const grafanaGroupRowSchema = z.object({
  streamPrefix: text,
  consumerGroup: text,
  state: groupStateSchema,
  groupEpoch: z.int(),
  assignmentEpoch: z.int(),
  metadataVersion: z.int(),
  shardCount: count,
  activeMembers: count,
  totalMembers: count,
  currentShards: count,
  targetShards: count,
  assignedShardRatio: text.describe('`<current> / <shardCount>`'),
  revokingShards: count,
  totalStreamLength: count,
  totalPendingCount: count,
  totalLag: nullableInt,
  producedPerSecond: rate,
  consumedPerSecond: rate,
  totalMemoryUsageBytes: count,
  memoryUsageKnown: z.boolean(),
});

/** `/grafana/members` row. */
export const grafanaMemberRowSchema = z.object({
  streamPrefix: text,
  consumerGroup: text,
  memberId: text,
  memberName: text,
  state: memberStateSchema,
  memberEpoch: z.int(),
  metadataVersion: z.int(),
  currentShardCount: count,
  revokingShardCount: count,
  runtimeMaxConcurrency: count,
  activeConsumerWorkers: count,
  lastHeartbeatAt: instant,
  memberLeaseExpiresAt: instant,
});

/** `/grafana/shards` row. */
export const grafanaShardRowSchema = z.object({
  streamPrefix: text,
  consumerGroup: text,
  shardCount: count,
  shardIndex: count,
  shardLabel: text.describe('`:<shardIndex>`'),
  ...shardReadings,
  lagKnown: z.boolean(),
  producedPerSecond: rate,
  consumedPerSecond: rate,
  memoryUsageKnown: z.boolean(),
  targetOwnerMemberIds: text.describe('comma-joined, sorted'),
  currentOwnerMemberIds: text.describe('comma-joined, sorted'),
  ownerState: z.enum(['UNASSIGNED', 'PENDING_ACK', 'CURRENT', 'TRANSITIONING']),
  ownerMemberIds: text.describe('comma-joined, sorted'),
});

/** `/grafana/assignments` row. */
export const grafanaAssignmentRowSchema = z.object({
  streamPrefix: text,
  consumerGroup: text,
  shardIndex: count,
  targetOwners: text,
  currentOwners: text,
  revokingOwners: text,
});

/** `/grafana/messages` row. */
export const grafanaMessageRowSchema = z.object({
  streamPrefix: text,
  consumerGroup: text,
  shardIndex: count,
  shardSelector: text,
  shardLabel: text,
  streamKey: text,
  recordId: text,
  payload: nullableText,
  fieldsJson: text.describe('the entry’s fields as a JSON object'),
  pageDirection: directionSchema,
  pageLimit: count,
  pageNextCursor: nullableText,
  pageTotalMessages: count,
  recordTimestampMs: nullableInt,
  recordTime: instant.nullable(),
});

/** One shard of `GroupLagResponse`. */
const shardLagSchema = z.object({
  shardIndex: count,
  streamKey: text,
  streamLength: count,
  lag: nullableInt.describe(
    'XINFO GROUPS lag: entries not yet delivered to the group; null when Redis cannot tell',
  ),
  pending: count.describe('XINFO GROUPS pending: delivered, not acknowledged'),
  entriesRead: nullableInt.describe('Redis ≥ 7'),
  lastDeliveredId: nullableText,
  oldestPendingId: nullableText.describe('smallest pending id (XPENDING summary)'),
  oldestPendingAgeMs: nullableInt.describe(
    'now minus the oldest pending id’s time; null when nothing is pending',
  ),
  memoryUsageBytes: nullableInt,
  lastRecordId: nullableText,
  lastGeneratedId: nullableText,
});

/** `GroupLagResponse`: KEDA's `metrics-api` scaler reads `totalLag`. */
export const groupLagResponseSchema = z.object({
  streamPrefix: text,
  consumerGroup: text,
  totalLag: count.describe('sum of the known shard lags (KEDA valueLocation: totalLag)'),
  totalPending: count,
  oldestPendingAgeMs: nullableInt.describe('largest over the shards; null when nothing is pending'),
  lagUnknownShards: count.describe('shards whose lag Redis could not tell (left out of totalLag)'),
  readAtMs: count.describe('when Redis was read, epoch ms'),
  shards: z.array(shardLagSchema),
});
