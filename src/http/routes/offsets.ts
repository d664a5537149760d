/**
 * `GET /monitoring/streams/{p}/groups/{g}/offsets` (docs/protocol.md#monitoring-views): per-shard length, ids, lag,
 * pending and memory over the consumable set (docs/protocol.md#resharding), with Cluster placement when clustered.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import type { GroupSnapshot } from '../../coordinator-api.js';
import { consumableShards } from '../../core/model.js';
import { redisSlot } from '../../routing/slot.js';
import { groupOf, type SlotOwner, type StreamInspector } from '../../store/inspector.js';
import { apiRoute, apiRouter, groupParams, REDIS_READ_ERRORS } from '../api-route.js';
import type { AppEnv, ResolvedDeps } from '../context.js';
import { requireInspector } from '../monitoring-query.js';
import { offsetsView, type StreamShardOffsetsJson, shardKey } from '../monitoring-views.js';
import type { ShardSample } from '../shard-rates.js';

/** The declared offsets operation. */
export const OFFSETS_ROUTES = {
  offsets: apiRoute({
    method: 'get',
    path: '/coord/v1/monitoring/streams/{streamPrefix}/groups/{consumerGroup}/offsets',
    operationId: 'getOffsets',
    tag: 'Monitoring',
    summary: 'Per-shard length, ids, pending, lag and memory (read from Redis)',
    access: 'READ',
    params: z.object(groupParams),
    success: { status: 200, description: 'Offsets', body: { component: 'StreamShardOffsetsResponse' } },
    errors: REDIS_READ_ERRORS,
  }),
};

/** Offsets of a group plus the raw samples rate observation needs. */
export interface GroupOffsets {
  offsets: StreamShardOffsetsJson;
  samples: ShardSample[];
}

/** Reads every consumable shard of the group's stream and builds its offsets. */
export async function readGroupOffsets(
  inspector: StreamInspector,
  snap: GroupSnapshot,
): Promise<GroupOffsets> {
  const shards = consumableShards(snap.stream);
  const keys = shards.map((i) => shardKey(snap.stream.streamPrefix, i));
  const [readings, owners] = await Promise.all([
    inspector.readShards(keys),
    inspector.clustered ? inspector.slotOwners(keys.map(redisSlot)) : new Map<number, SlotOwner>(),
  ]);
  const samples = shards.map((shard, i): ShardSample => {
    const reading = readings[i];
    return {
      shard,
      streamLength: reading?.stream?.length ?? 0,
      entriesAdded: reading?.stream?.entriesAdded ?? null,
      lag: reading ? (groupOf(reading, snap.group.consumerGroup)?.lag ?? null) : null,
    };
  });
  return { offsets: offsetsView(snap, shards, readings, owners), samples };
}

/** The offsets route. */
export function offsetsRoutes(deps: ResolvedDeps): OpenAPIHono<AppEnv> {
  const app = apiRouter();
  app.openapi(OFFSETS_ROUTES.offsets.route, async (c) => {
    const { streamPrefix, consumerGroup } = c.req.valid('param');
    const inspector = requireInspector(deps.inspector);
    const snap = await deps.coordinator.getGroup(streamPrefix, consumerGroup);
    return c.json((await readGroupOffsets(inspector, snap)).offsets, 200);
  });
  return app;
}
