/**
 * `GET /monitoring/streams/{p}/groups/{g}/lag`: the group's lag, pending count and oldest-pending
 * age per shard, read from Redis (`XINFO GROUPS`, `XPENDING` summary) over its consumable
 * shards — the same numbers as the `redis_stream_coord_shard_*` gauges, for deployments that
 * have no Prometheus endpoint (the Worker) and for KEDA's `metrics-api` scaler
 * (`valueLocation: totalLag`). Never cached: each call reads Redis (one read per shard, plus
 * one `XPENDING` per shard with entries pending).
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { readGroupLag } from '../../metrics/group-lag.js';
import { apiRoute, apiRouter, groupParams, REDIS_READ_ERRORS } from '../api-route.js';
import type { AppEnv, ResolvedDeps } from '../context.js';
import { requireInspector } from '../monitoring-query.js';
import type { groupLagResponseSchema } from '../openapi-monitoring-responses.js';

/** The declared lag operation. */
export const LAG_ROUTES = {
  lag: apiRoute({
    method: 'get',
    path: '/coord/v1/monitoring/streams/{streamPrefix}/groups/{consumerGroup}/lag',
    operationId: 'getGroupLag',
    tag: 'Monitoring',
    summary: 'Lag, pending and oldest-pending age per shard (read from Redis; KEDA metrics-api: totalLag)',
    access: 'READ',
    params: z.object(groupParams),
    success: { status: 200, description: 'Lag', body: { component: 'GroupLagResponse' } },
    errors: REDIS_READ_ERRORS,
  }),
};

/** The body of the lag route. */
type GroupLagJson = z.output<typeof groupLagResponseSchema>;

/** The lag route. */
export function lagRoutes(deps: ResolvedDeps): OpenAPIHono<AppEnv> {
  const app = apiRouter();
  app.openapi(LAG_ROUTES.lag.route, async (c) => {
    const { streamPrefix, consumerGroup } = c.req.valid('param');
    const inspector = requireInspector(deps.inspector);
    const snap = await deps.coordinator.getGroup(streamPrefix, consumerGroup);
    const body: GroupLagJson = await readGroupLag(inspector, snap, deps.now());
    return c.json(body, 200);
  });
  return app;
}
