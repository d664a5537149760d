/**
 * `POST /admin/streams/{p}/groups/{g}/offsets/reset` (docs/operating.md#replaying-or-skipping-records):
 * moves a consumer group's position on some or all shards, or (the default) says what that would
 * skip or replay. Additive.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import type { OffsetsReset } from '../../coordinator-api.js';
import { CoordinatorError } from '../../core/errors.js';
import { canonicalId, type ResetTarget } from '../../core/offsets-reset-plan.js';
import { ADMIN_ERRORS, apiRoute, apiRouter, groupParams, validBody } from '../api-route.js';
import { type AppEnv, principalName, type ResolvedDeps } from '../context.js';
import { invalidRequest } from '../errors.js';
import {
  type OffsetsResetResponseJson,
  type offsetsResetRequestSchema,
  offsetsResetResponseSchema,
} from '../offsets-reset-schemas.js';

/** The declared offsets reset operation. */
export const OFFSETS_RESET_ROUTES = {
  resetOffsets: apiRoute({
    method: 'post',
    path: '/coord/v1/admin/streams/{streamPrefix}/groups/{consumerGroup}/offsets/reset',
    operationId: 'resetOffsets',
    tag: 'Streams and groups',
    summary: 'Move a consumer group’s position: replay or skip records (dry run by default)',
    description:
      "Additive, like Kafka's `kafka-consumer-groups --reset-offsets`. Sets the group's last-delivered-id on each shard named in `shards` (default: every consumable shard) with `XGROUP SETID`: to `0-0` (`earliest`), to the stream's last id (`latest`), to just before the first record at or after `timestamp` (epoch ms), or to `id`. Per shard it answers the position before and after and how many records that skips or replays. `dryRun` defaults to true: nothing is written unless it is false. Refused, before anything is written, while the group has a live member (409 `GROUP_HAS_ACTIVE_MEMBERS`: stop its consumers and let their leases end), for a shard the stream does not have or an `id` after a shard's last id (400 `INVALID_REQUEST`), and when the stream, the group, or the group on a shard key is missing (404). Records delivered and not acknowledged stay pending. Audited.",
    access: 'WRITE',
    rateLimit: 'group',
    params: z.object(groupParams),
    body: { component: 'OffsetsResetRequest', required: true },
    success: {
      status: 200,
      description: 'What the reset did (or, in a dry run, would do) on each shard',
      body: { schema: offsetsResetResponseSchema, name: 'OffsetsResetResponse' },
    },
    errors: [
      ...ADMIN_ERRORS,
      'STREAM_NOT_FOUND',
      'GROUP_NOT_FOUND',
      'GROUP_HAS_ACTIVE_MEMBERS',
      'REDIS_NOT_CONFIGURED',
    ],
  }),
};

/** The validated body's target. */
function targetOf(body: z.output<typeof offsetsResetRequestSchema>): ResetTarget {
  switch (body.to) {
    case 'earliest':
    case 'latest':
      return { to: body.to };
    case 'timestamp':
      return { to: 'timestamp', timestamp: body.timestamp! };
    case 'id': {
      const id = canonicalId(body.id!);
      if (id === null) throw invalidRequest(['id: must be a Redis stream id (<ms>-<seq>) within 64 bits']);
      return { to: 'id', id };
    }
  }
}

/** The answer: the target, each shard, and the totals. */
function resetView(prefix: string, group: string, r: OffsetsReset): OffsetsResetResponseJson {
  const shards = r.shards.map((s) => ({
    shard: { shardIndex: s.shard },
    streamKey: s.streamKey,
    lastDeliveredIdBefore: s.before,
    lastDeliveredIdAfter: s.after,
    skippedRecords: s.skippedRecords,
    replayedRecords: s.replayedRecords,
    countExact: s.countExact,
    lagAfter: s.lagAfter,
    pendingCount: s.pendingCount,
  }));
  return {
    streamPrefix: prefix,
    consumerGroup: group,
    to: r.target.to,
    timestamp: r.target.to === 'timestamp' ? r.target.timestamp : null,
    id: r.target.to === 'id' ? r.target.id : null,
    dryRun: r.dryRun,
    shards,
    totalSkippedRecords: shards.reduce((n, s) => n + s.skippedRecords, 0),
    totalReplayedRecords: shards.reduce((n, s) => n + s.replayedRecords, 0),
    countsExact: shards.every((s) => s.countExact),
  };
}

/** The offsets reset route. */
export function offsetsResetRoutes(deps: ResolvedDeps): OpenAPIHono<AppEnv> {
  const { coordinator, config } = deps;
  const r = OFFSETS_RESET_ROUTES.resetOffsets;
  const app = apiRouter();
  app.openapi(r.route, async (c) => {
    const { streamPrefix, consumerGroup } = c.req.valid('param');
    const body = await validBody(c, r, config.maxBodyBytes);
    if (!coordinator.resetOffsets) {
      throw new CoordinatorError('REDIS_NOT_CONFIGURED', 'this coordinator cannot move consumer groups');
    }
    const result = await coordinator.resetOffsets(streamPrefix, consumerGroup, {
      target: targetOf(body),
      shards: body.shards ?? null,
      dryRun: body.dryRun ?? true,
      requestedBy: body.requestedBy,
      principal: principalName(c),
      reason: body.reason ?? null,
    });
    return c.json(resetView(streamPrefix, consumerGroup, result), 200);
  });
  return app;
}
