/**
 * zod schemas of the resharding responses (scale, migrations view) for the OpenAPI document; a
 * type test keeps them identical to the TS types in `schemas.ts`.
 */
import { z } from 'zod';
import { memberStateSchema, migrationSchema, removedShardSchema } from './openapi-responses.js';

const instant = z.iso.datetime({ offset: true });

/** `StreamScaleResponse` (docs/protocol.md#scale-requests): the stream's migration, listed once per group. */
export const streamScaleResponseSchema = z.object({
  streamPrefix: z.string(),
  targetShardCount: z.int().min(0),
  affectedConsumerGroups: z.array(z.string()),
  migrations: z.array(migrationSchema),
});

/** One drain-evidence read of a removed shard (`XINFO GROUPS` of every group on it). */
export const drainEvidenceSchema = z.object({
  checkedAt: instant,
  drained: z.boolean().describe('positive evidence that nothing is left unread or pending'),
  keyExists: z.boolean().nullable(),
  streamLength: z.int().min(0).nullable(),
  consumerGroups: z
    .array(
      z.object({
        consumerGroup: z.string(),
        pendingCount: z.int().min(0).nullable(),
        lag: z.int().min(0).nullable(),
      }),
    )
    .nullable(),
  error: z.string().nullable().describe('why the read failed (never counts as drained)'),
  reason: z.string().nullable(),
});

/** `GET /monitoring/…/migrations`: history, drain state of removed shards, rollback eligibility. */
export const migrationsResponseSchema = z.object({
  migrations: z.array(migrationSchema).describe('oldest first'),
  activeReshardingId: z.string().nullable(),
  shardCount: z.int().min(0),
  removedShards: z.array(
    removedShardSchema.extend({
      streamKey: z.string(),
      reshardingId: z.string().nullable(),
      holders: z.array(
        z.object({ consumerGroup: z.string(), memberId: z.string(), memberState: memberStateSchema }),
      ),
      lastEvidence: drainEvidenceSchema.nullable(),
      liveEvidence: drainEvidenceSchema.nullable(),
    }),
  ),
  rollback: z.object({ allowed: z.boolean(), reason: z.string().nullable() }),
});
