/**
 * Group lifecycle routes: create stream, create/get/delete group (PROTOCOL §2.1–2.4).
 */
import { Hono } from 'hono';
import type { AppEnv, ResolvedDeps } from '../context.js';
import { invalidRequest } from '../errors.js';
import { parseJsonBody, pathParams } from '../input.js';
import { createGroupSchema, createStreamSchema, deleteGroupSchema } from '../schemas.js';
import { refuseWhenTerminating } from '../terminating.js';
import { groupView, streamCreateView } from '../views.js';

/** Rejects a shard count above the configured maximum before the coordinator sees it. */
function checkShardCount(initialShardCount: number | null | undefined, max: number): void {
  if (initialShardCount != null && initialShardCount > max) {
    throw invalidRequest([`initialShardCount: must be at most ${max}`]);
  }
}

/** Routes under `/coord/v1/streams/{p}` that create, read and delete groups. */
export function adminRoutes(deps: ResolvedDeps): Hono<AppEnv> {
  const { coordinator, config } = deps;
  const mutating = refuseWhenTerminating(deps.terminating);
  const app = new Hono<AppEnv>();

  app.post('/streams/:streamPrefix', mutating, async (c) => {
    const { streamPrefix } = pathParams(c, ['streamPrefix']);
    const body = await parseJsonBody(c, createStreamSchema, config.maxBodyBytes);
    checkShardCount(body.initialShardCount, config.maxShardCount);
    const snapshot = await coordinator.createStream(streamPrefix, {
      initialShardCount: body.initialShardCount ?? null,
      consumerGroup: body.consumerGroup ?? null,
      requestedBy: body.requestedBy,
      reason: body.reason ?? null,
    });
    return c.json(streamCreateView(snapshot), 201);
  });

  app.post('/streams/:streamPrefix/groups/:consumerGroup', mutating, async (c) => {
    const { streamPrefix, consumerGroup } = pathParams(c, ['streamPrefix', 'consumerGroup']);
    const body = await parseJsonBody(c, createGroupSchema, config.maxBodyBytes);
    checkShardCount(body.initialShardCount, config.maxShardCount);
    const snapshot = await coordinator.createGroup(streamPrefix, consumerGroup, {
      initialShardCount: body.initialShardCount ?? null,
      requestedBy: body.requestedBy,
      reason: body.reason ?? null,
    });
    return c.json(groupView(snapshot), 201);
  });

  app.get('/streams/:streamPrefix/groups/:consumerGroup', async (c) => {
    const { streamPrefix, consumerGroup } = pathParams(c, ['streamPrefix', 'consumerGroup']);
    return c.json(groupView(await coordinator.getGroup(streamPrefix, consumerGroup)));
  });

  app.delete('/streams/:streamPrefix/groups/:consumerGroup', mutating, async (c) => {
    const { streamPrefix, consumerGroup } = pathParams(c, ['streamPrefix', 'consumerGroup']);
    const body = await parseJsonBody(c, deleteGroupSchema, config.maxBodyBytes);
    const snapshot = await coordinator.deleteGroup(streamPrefix, consumerGroup, {
      requestedBy: body.requestedBy,
      reason: body.reason,
      force: body.force ?? false,
    });
    return c.json(groupView(snapshot));
  });

  return app;
}
