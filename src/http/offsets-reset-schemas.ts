/**
 * Wire shapes of the offsets reset (docs/operating.md#replaying-or-skipping-records): its request
 * body (the `OffsetsResetRequest` component, validated by the route) and its answer (declared with
 * the route as `OffsetsResetResponse`). Additive: the reference coordinator has no such operation.
 */
import { z } from 'zod';
import { MAX_SHARD_INDEX, optionalText, requestedBySchema, shardIdSchema } from './schemas.js';

/** Where a reset can move the group. */
const RESET_TARGETS = ['earliest', 'latest', 'timestamp', 'id'] as const;
/** The latest instant `Date` represents, ms. */
const MAX_INSTANT_MS = 8.64e15;

const count = z.int().min(0);

/** Body of `POST /admin/streams/{p}/groups/{g}/offsets/reset`. */
export const offsetsResetRequestSchema = z
  .object({
    to: z
      .enum(RESET_TARGETS)
      .describe(
        '`earliest`: every record the shards hold is delivered again; `latest`: nothing written so far is delivered; `timestamp`: records at or after `timestamp` are delivered; `id`: records after `id` are delivered',
      ),
    timestamp: z
      .int()
      .min(0)
      .max(MAX_INSTANT_MS)
      .nullish()
      .describe('epoch ms; required with `to: timestamp`, refused otherwise'),
    id: z
      .string()
      .regex(/^\d{1,20}-\d{1,20}$/, 'must be a Redis stream id (<ms>-<seq>)')
      .nullish()
      .describe('a stream id `<ms>-<seq>`; required with `to: id`, refused otherwise'),
    shards: z
      .array(z.int().min(0).max(MAX_SHARD_INDEX))
      .min(1)
      .max(MAX_SHARD_INDEX + 1)
      .nullish()
      .describe('shard indexes to move; default every consumable shard of the stream'),
    dryRun: z
      .boolean()
      .nullish()
      .describe('default true: answer what the reset would do and write nothing; false to move the group'),
    requestedBy: requestedBySchema,
    reason: optionalText,
  })
  .superRefine((body, ctx) => {
    for (const field of ['timestamp', 'id'] as const) {
      const given = body[field] !== undefined && body[field] !== null;
      if (body.to === field && !given)
        ctx.addIssue({ code: 'custom', path: [field], message: `is required with to "${field}"` });
      if (body.to !== field && given)
        ctx.addIssue({ code: 'custom', path: [field], message: `goes only with to "${field}"` });
    }
  });

/** One shard of the answer. */
const shardResetSchema = z.object({
  shard: shardIdSchema,
  streamKey: z.string(),
  lastDeliveredIdBefore: z.string().describe("the group's last-delivered-id before the reset"),
  lastDeliveredIdAfter: z.string().describe('its last-delivered-id after the reset (to be, in a dry run)'),
  skippedRecords: count.describe('records the group will not get (moving forward)'),
  replayedRecords: count.describe('records the group gets again (moving back)'),
  countExact: z
    .boolean()
    .describe('false when counting stopped at 1,000,000 records: the counts are then lower bounds'),
  lagAfter: count.nullable().describe('records after the new position; null when not counted to the end'),
  pendingCount: count
    .nullable()
    .describe('delivered and not acknowledged: the reset leaves these pending (claim or acknowledge them)'),
});

/** What `POST /admin/streams/{p}/groups/{g}/offsets/reset` answers. */
export const offsetsResetResponseSchema = z.object({
  streamPrefix: z.string(),
  consumerGroup: z.string(),
  to: z.enum(RESET_TARGETS),
  timestamp: count.nullable(),
  id: z.string().nullable(),
  dryRun: z.boolean().describe('true: nothing was written'),
  shards: z.array(shardResetSchema),
  totalSkippedRecords: count,
  totalReplayedRecords: count,
  countsExact: z.boolean().describe('false when some shard’s count is a lower bound'),
});

/** A parsed offsets reset body (`to` plus its `timestamp` or `id`). */
export type OffsetsResetBody = z.input<typeof offsetsResetRequestSchema>;
/** The offsets reset's answer. */
export type OffsetsResetResponseJson = z.output<typeof offsetsResetResponseSchema>;
