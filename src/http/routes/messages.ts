/**
 * `GET /monitoring/streams/{p}/groups/{g}/shards/{i}/messages` (docs/protocol.md#monitoring-views): a cursor page
 * of one consumable shard, read with XRANGE/XREVRANGE only, so consumer-group state never moves.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { consumableShards } from '../../core/model.js';
import { apiRoute, apiRouter, groupParams, REDIS_READ_ERRORS } from '../api-route.js';
import type { AppEnv, ResolvedDeps } from '../context.js';
import { readCursorPage } from '../message-pages.js';
import { parseShardNumber, requireConsumable, requireInspector } from '../monitoring-query.js';
import { messageRecordView, type StreamMessagesPageJson, shardKey } from '../monitoring-views.js';
import { directionParam, limitParam, queryValue, streamIdParam } from '../query-params.js';

const cursorParam = streamIdParam('cursor', 'nextCursor of the previous page');

/** The declared messages operation. */
export const MESSAGES_ROUTES = {
  messages: apiRoute({
    method: 'get',
    path: '/coord/v1/monitoring/streams/{streamPrefix}/groups/{consumerGroup}/shards/{shardIndex}/messages',
    operationId: 'getMessages',
    tag: 'Monitoring',
    summary: 'A page of one shard’s entries (XRANGE/XREVRANGE; never moves group state)',
    access: 'READ',
    params: z.object(groupParams),
    query: [directionParam, cursorParam, limitParam],
    success: { status: 200, description: 'Page', body: { component: 'StreamMessagesPageResponse' } },
    errors: REDIS_READ_ERRORS,
  }),
};

/** The messages route. */
export function messagesRoutes(deps: ResolvedDeps): OpenAPIHono<AppEnv> {
  const app = apiRouter();
  app.openapi(MESSAGES_ROUTES.messages.route, async (c) => {
    const { streamPrefix, consumerGroup } = c.req.valid('param');
    const shardIndex = parseShardNumber('shardIndex', c.req.param('shardIndex') ?? '');
    const direction = queryValue(c, directionParam);
    const limit = queryValue(c, limitParam);
    const cursor = queryValue(c, cursorParam);
    const inspector = requireInspector(deps.inspector);
    const { stream, group } = await deps.coordinator.getGroup(streamPrefix, consumerGroup);
    requireConsumable('shardIndex', shardIndex, consumableShards(stream));

    const cursors = new Map<number, string>(cursor === null ? [] : [[shardIndex, cursor]]);
    const page = await readCursorPage(
      inspector,
      stream.streamPrefix,
      [shardIndex],
      direction,
      cursors,
      limit,
    );
    const body: StreamMessagesPageJson = {
      streamPrefix: group.streamPrefix,
      consumerGroup: group.consumerGroup,
      shard: { shardIndex },
      streamKey: shardKey(stream.streamPrefix, shardIndex),
      direction,
      limit,
      records: page.records.map((r) => messageRecordView(group, r.shard, r.record)),
      nextCursor: page.next?.get(shardIndex) ?? null,
    };
    return c.json(body, 200);
  });
  return app;
}
