/**
 * Resharding requests (docs/protocol.md#scale-requests): the official stream route and the compat group route,
 * both acting on the stream's one migration.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import type { ScaleInput } from '../../coordinator-api.js';
import { ADMIN_ERRORS, apiRoute, apiRouter, groupParams, validBody } from '../api-route.js';
import { type AppEnv, principalName, type ResolvedDeps } from '../context.js';
import { invalidRequest } from '../errors.js';
import { type ScaleBody, streamPrefixSchema } from '../schemas.js';
import { migrationView, streamScaleView } from '../views.js';

/** The declared scale operations. */
export const SCALE_ROUTES = {
  scaleStream: apiRoute({
    method: 'post',
    path: '/coord/v1/streams/{streamPrefix}/scale',
    operationId: 'scaleStream',
    tag: 'Resharding',
    summary: 'Scale every group of a stream to a new shard count',
    description:
      'A scale-out never adopts a Redis key the coordinator did not create: a new shard whose key already exists (other than a removed shard of this stream not yet retired) answers 409 `SHARD_KEY_EXISTS` naming the key, before anything is written.',
    access: 'WRITE',
    rateLimit: 'stream',
    params: z.object({ streamPrefix: streamPrefixSchema }),
    body: { component: 'ScaleRequest', required: true },
    success: { status: 202, description: 'Migrations started', body: { component: 'StreamScaleResponse' } },
    errors: [
      ...ADMIN_ERRORS,
      'STREAM_NOT_FOUND',
      'ACTIVE_MIGRATION_EXISTS',
      'METADATA_SYNC_IN_PROGRESS',
      'SHARD_KEY_EXISTS',
    ],
  }),
  scaleGroup: apiRoute({
    method: 'post',
    path: '/coord/v1/streams/{streamPrefix}/groups/{consumerGroup}/scale',
    operationId: 'scaleGroup',
    tag: 'Resharding',
    summary: 'Scale through one group (compatibility route)',
    access: 'WRITE',
    rateLimit: 'group',
    params: z.object(groupParams),
    body: { component: 'ScaleRequest', required: true },
    success: { status: 202, description: 'Migration started', body: { component: 'Migration' } },
    errors: [
      ...ADMIN_ERRORS,
      'GROUP_NOT_FOUND',
      'ACTIVE_MIGRATION_EXISTS',
      'METADATA_SYNC_IN_PROGRESS',
      'SHARD_KEY_EXISTS',
    ],
  }),
};

/** The validated body as the coordinator takes it; a target above the configured maximum is a 400. */
function scaleInput(body: ScaleBody, maxShardCount: number, principal: string | null): ScaleInput {
  if (body.targetShardCount > maxShardCount) {
    throw invalidRequest([`targetShardCount: must be at most ${maxShardCount}`]);
  }
  return {
    targetShardCount: body.targetShardCount,
    requestedBy: body.requestedBy,
    principal,
    reason: body.reason,
    deprecatedAfter: body.deprecatedAfter ?? null,
  };
}

/** `POST /streams/{p}/scale` (202 StreamScaleResponse) and `POST /streams/{p}/groups/{g}/scale` (202 Migration). */
export function scaleRoutes(deps: ResolvedDeps): OpenAPIHono<AppEnv> {
  const { coordinator, config } = deps;
  const r = SCALE_ROUTES;
  const app = apiRouter();

  app.openapi(r.scaleStream.route, async (c) => {
    const { streamPrefix } = c.req.valid('param');
    const body = await validBody(c, r.scaleStream, config.maxBodyBytes);
    const input = scaleInput(body, config.maxShardCount, principalName(c));
    const result = await coordinator.scaleStream(streamPrefix, input);
    return c.json(streamScaleView(result, input.targetShardCount), 202);
  });

  app.openapi(r.scaleGroup.route, async (c) => {
    const { streamPrefix, consumerGroup } = c.req.valid('param');
    const body = await validBody(c, r.scaleGroup, config.maxBodyBytes);
    const result = await coordinator.scaleGroup(
      streamPrefix,
      consumerGroup,
      scaleInput(body, config.maxShardCount, principalName(c)),
    );
    return c.json(migrationView(result.migration), 202);
  });

  return app;
}
