/**
 * Resharding requests (PROTOCOL §2.6): the official stream route and the compat group route,
 * both acting on the stream's one migration.
 */
import { Hono } from 'hono';
import type { ScaleInput } from '../../coordinator-api.js';
import type { AppEnv, ResolvedDeps } from '../context.js';
import { invalidRequest } from '../errors.js';
import { parseJsonBody, pathParams } from '../input.js';
import { type ScaleBody, scaleSchema } from '../schemas.js';
import { refuseWhenTerminating } from '../terminating.js';
import { migrationView, streamScaleView } from '../views.js';

/** The validated body as the coordinator takes it; a target above the configured maximum is a 400. */
function scaleInput(body: ScaleBody, maxShardCount: number): ScaleInput {
  if (body.targetShardCount > maxShardCount) {
    throw invalidRequest([`targetShardCount: must be at most ${maxShardCount}`]);
  }
  return {
    targetShardCount: body.targetShardCount,
    requestedBy: body.requestedBy,
    reason: body.reason,
    deprecatedAfter: body.deprecatedAfter ?? null,
  };
}

/** `POST /streams/{p}/scale` (202 StreamScaleResponse) and `POST /streams/{p}/groups/{g}/scale` (202 Migration). */
export function scaleRoutes(deps: ResolvedDeps): Hono<AppEnv> {
  const { coordinator, config } = deps;
  const mutating = refuseWhenTerminating(deps.terminating);
  const app = new Hono<AppEnv>();

  app.post('/streams/:streamPrefix/scale', mutating, async (c) => {
    const { streamPrefix } = pathParams(c, ['streamPrefix']);
    const body = await parseJsonBody(c, scaleSchema, config.maxBodyBytes);
    const input = scaleInput(body, config.maxShardCount);
    const result = await coordinator.scaleStream(streamPrefix, input);
    return c.json(streamScaleView(result, input.targetShardCount), 202);
  });

  app.post('/streams/:streamPrefix/groups/:consumerGroup/scale', mutating, async (c) => {
    const { streamPrefix, consumerGroup } = pathParams(c, ['streamPrefix', 'consumerGroup']);
    const body = await parseJsonBody(c, scaleSchema, config.maxBodyBytes);
    const result = await coordinator.scaleGroup(
      streamPrefix,
      consumerGroup,
      scaleInput(body, config.maxShardCount),
    );
    return c.json(migrationView(result.migration), 202);
  });

  return app;
}
