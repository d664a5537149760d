/**
 * Producer routing (docs/protocol.md#producer-routing): a pure read of the stream's shard count.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { apiRoute, apiRouter, groupParams, READ_ERRORS } from '../api-route.js';
import type { AppEnv, ResolvedDeps } from '../context.js';
import { routingView } from '../views.js';

/** The declared routing operation. */
export const ROUTING_ROUTES = {
  producerRouting: apiRoute({
    method: 'get',
    path: '/coord/v1/streams/{streamPrefix}/groups/{consumerGroup}/producer-routing',
    operationId: 'getProducerRouting',
    tag: 'Routing',
    summary: 'Shard count and stream keys producers route to (routeV1)',
    access: 'READ',
    params: z.object(groupParams),
    success: { status: 200, description: 'Routing', body: { component: 'ProducerRoutingResponse' } },
    errors: [...READ_ERRORS, 'GROUP_NOT_FOUND'],
  }),
};

/** `GET /streams/{p}/groups/{g}/producer-routing`. */
export function routingRoutes(deps: ResolvedDeps): OpenAPIHono<AppEnv> {
  const app = apiRouter();
  app.openapi(ROUTING_ROUTES.producerRouting.route, async (c) => {
    const { streamPrefix, consumerGroup } = c.req.valid('param');
    return c.json(routingView(await deps.coordinator.getRouting(streamPrefix, consumerGroup)), 200);
  });
  return app;
}
