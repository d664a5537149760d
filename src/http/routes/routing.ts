/**
 * Producer routing (PROTOCOL §2.5): a pure read of the stream's shard count.
 */
import { Hono } from 'hono';
import type { AppEnv, ResolvedDeps } from '../context.js';
import { pathParams } from '../input.js';
import { routingView } from '../views.js';

/** `GET /streams/{p}/groups/{g}/producer-routing`. */
export function routingRoutes(deps: ResolvedDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/streams/:streamPrefix/groups/:consumerGroup/producer-routing', async (c) => {
    const { streamPrefix, consumerGroup } = pathParams(c, ['streamPrefix', 'consumerGroup']);
    return c.json(routingView(await deps.coordinator.getRouting(streamPrefix, consumerGroup)));
  });
  return app;
}
