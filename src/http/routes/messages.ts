/**
 * `GET /monitoring/streams/{p}/groups/{g}/shards/{i}/messages` (PROTOCOL §2.9): a cursor page
 * of one consumable shard, read with XRANGE/XREVRANGE only, so consumer-group state never moves.
 */
import { Hono } from 'hono';
import { consumableShards } from '../../core/model.js';
import type { AppEnv, ResolvedDeps } from '../context.js';
import { pathParams } from '../input.js';
import { readCursorPage } from '../message-pages.js';
import {
  parseDirection,
  parseIdParam,
  parseLimit,
  parseShardNumber,
  queryText,
  requireConsumable,
  requireInspector,
} from '../monitoring-query.js';
import { messageRecordView, type StreamMessagesPageJson, shardKey } from '../monitoring-views.js';

/** The messages route. */
export function messagesRoutes(deps: ResolvedDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get(
    '/monitoring/streams/:streamPrefix/groups/:consumerGroup/shards/:shardIndex/messages',
    async (c) => {
      const { streamPrefix, consumerGroup } = pathParams(c, ['streamPrefix', 'consumerGroup']);
      const shardIndex = parseShardNumber('shardIndex', c.req.param('shardIndex') ?? '');
      const direction = parseDirection(queryText(c, 'direction'));
      const limit = parseLimit(queryText(c, 'limit'));
      const rawCursor = queryText(c, 'cursor');
      const cursor = rawCursor === null ? null : parseIdParam('cursor', rawCursor);
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
      return c.json(body);
    },
  );
  return app;
}
