/**
 * Producer routing (docs/protocol.md#producer-routing): a pure read of the stream's shard count,
 * with an `ETag` so a producer can revalidate it for the price of the read alone: a matching
 * `If-None-Match` is answered 304 without a body (docs/producing.md#routing-after-a-scale).
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { etag } from 'hono/etag';
import { z } from 'zod';
import { murmur3Hash32Unsigned } from '../../routing/murmur3.js';
import { apiRoute, apiRouter, groupParams, honoPath, READ_ERRORS } from '../api-route.js';
import type { AppEnv, ResolvedDeps } from '../context.js';
import type { ProducerRoutingResponseJson } from '../schemas.js';
import { routingView } from '../views.js';

/** The declared routing operation. */
export const ROUTING_ROUTES = {
  producerRouting: apiRoute({
    method: 'get',
    path: '/coord/v1/streams/{streamPrefix}/groups/{consumerGroup}/producer-routing',
    operationId: 'getProducerRouting',
    tag: 'Routing',
    summary: 'Shard count and stream keys producers route to (routeV1)',
    description:
      'Answers with an `ETag`; a request whose `If-None-Match` names it is answered 304 Not Modified without a body, so a producer can ask cheaply whether the routing changed.',
    access: 'READ',
    params: z.object(groupParams),
    success: { status: 200, description: 'Routing', body: { component: 'ProducerRoutingResponse' } },
    errors: [...READ_ERRORS, 'GROUP_NOT_FOUND'],
  }),
};

const utf8 = new TextEncoder();

/**
 * A strong validator of one routing answer: its metadata version and shard count (readable in
 * logs) and a hash of the answer's bytes, so any change to the body changes the tag.
 */
function routingEtag(view: ProducerRoutingResponseJson): string {
  const hash = murmur3Hash32Unsigned(utf8.encode(JSON.stringify(view)));
  return `"${view.metadataVersion}-${view.shardCount}-${hash.toString(16).padStart(8, '0')}"`;
}

/** `GET /streams/{p}/groups/{g}/producer-routing`. */
export function routingRoutes(deps: ResolvedDeps): OpenAPIHono<AppEnv> {
  const app = apiRouter();
  const spec = ROUTING_ROUTES.producerRouting;
  // hono's etag middleware answers a matching If-None-Match (weak comparison, `*` included) with a
  // bodiless 304 that keeps ETag and Cache-Control; it hashes nothing, since the route sets the tag.
  app.use(honoPath(spec.path), etag());
  app.openapi(spec.route, async (c) => {
    const { streamPrefix, consumerGroup } = c.req.valid('param');
    const view = routingView(await deps.coordinator.getRouting(streamPrefix, consumerGroup));
    c.header('etag', routingEtag(view));
    // Caches in between must ask again every time: a stored answer would hide a scale.
    c.header('cache-control', 'no-cache');
    return c.json(view, 200);
  });
  return app;
}
