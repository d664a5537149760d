/**
 * Stream and group lifecycle routes: create stream, create/get/delete group (docs/protocol.md#streams-and-groups–2.4),
 * and the additive group repair and stream delete.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { ADMIN_ERRORS, apiRoute, apiRouter, groupParams, READ_ERRORS, validBody } from '../api-route.js';
import { type AppEnv, principalName, type ResolvedDeps } from '../context.js';
import { invalidRequest } from '../errors.js';
import { streamPrefixSchema } from '../schemas.js';
import { groupView, streamCreateView } from '../views.js';

const STREAM = '/coord/v1/streams/{streamPrefix}';
const GROUP = `${STREAM}/groups/{consumerGroup}`;
const params = z.object(groupParams);

/** The declared group lifecycle operations. */
export const ADMIN_ROUTES = {
  createStream: apiRoute({
    method: 'post',
    path: STREAM,
    operationId: 'createStream',
    tag: 'Streams and groups',
    summary: 'Create a stream and its first consumer group',
    description:
      'Creates `initialShardCount` shards (default from configuration) and the group `consumerGroup` (default: the prefix), provisioning the Redis consumer group on every shard. Beyond `COORDINATOR_MAX_STREAMS` streams it answers 409 `STREAM_LIMIT_REACHED` and writes nothing.',
    access: 'WRITE',
    rateLimit: 'stream',
    params: z.object({ streamPrefix: streamPrefixSchema }),
    body: { component: 'CreateStreamRequest', required: true },
    success: { status: 201, description: 'Created', body: { component: 'StreamCreateResponse' } },
    errors: [
      ...ADMIN_ERRORS,
      'STREAM_PREFIX_ALREADY_EXISTS',
      'STREAM_LIMIT_REACHED',
      'REDIS_STREAM_PROVISIONING_FAILED',
    ],
  }),
  createGroup: apiRoute({
    method: 'post',
    path: GROUP,
    operationId: 'createGroup',
    tag: 'Streams and groups',
    summary: 'Add a consumer group to a stream (or create the stream with it)',
    description:
      'Beyond `COORDINATOR_MAX_GROUPS_PER_STREAM` groups on the stream it answers 409 `GROUP_LIMIT_REACHED` before the group is provisioned on any shard; creating the stream beyond `COORDINATOR_MAX_STREAMS` answers 409 `STREAM_LIMIT_REACHED`.',
    access: 'WRITE',
    rateLimit: 'group',
    params,
    body: { component: 'CreateGroupRequest', required: true },
    success: { status: 201, description: 'Created', body: { component: 'GroupResponse' } },
    errors: [
      ...ADMIN_ERRORS,
      'GROUP_ALREADY_EXISTS',
      'STREAM_PREFIX_ALREADY_EXISTS',
      'SHARD_COUNT_MISMATCH',
      'GROUP_LIMIT_REACHED',
      'STREAM_LIMIT_REACHED',
      'STREAM_NOT_FOUND',
      'REDIS_STREAM_PROVISIONING_FAILED',
    ],
  }),
  getGroup: apiRoute({
    method: 'get',
    path: GROUP,
    operationId: 'getGroup',
    tag: 'Streams and groups',
    summary: 'Read a consumer group',
    access: 'READ',
    params,
    success: { status: 200, description: 'The group', body: { component: 'GroupResponse' } },
    errors: [...READ_ERRORS, 'GROUP_NOT_FOUND'],
  }),
  deleteGroup: apiRoute({
    method: 'delete',
    path: GROUP,
    operationId: 'deleteGroup',
    tag: 'Streams and groups',
    summary: 'Delete a consumer group’s coordination metadata',
    description:
      'Redis streams and consumer groups are left alone. Refused while members are active unless `force` is true. Answers the group as it was before deletion.',
    access: 'WRITE',
    rateLimit: 'group',
    params,
    body: { component: 'DeleteGroupRequest', required: true },
    success: { status: 200, description: 'The deleted group', body: { component: 'GroupResponse' } },
    errors: [...ADMIN_ERRORS, 'GROUP_NOT_FOUND', 'GROUP_HAS_ACTIVE_MEMBERS'],
  }),
  repairGroup: apiRoute({
    method: 'post',
    path: `${GROUP}/repair`,
    operationId: 'repairGroup',
    tag: 'Streams and groups',
    summary: 'Repair a consumer group that lost part of its Redis state',
    description:
      'Additive, for a group answered 500 `METADATA_CORRUPT` because part of its Redis state is lost (see the operator guide, running-redis.md, “When a group is reported corrupt”). `rebuild` restores the derived indexes (holder status, owners, targets through a new assignment round, leases, timers) from the member records; when the records or the group header are damaged it answers 500 `METADATA_CORRUPT` and changes nothing: use `reset`. `reset` deletes the group’s assignment state under a higher group epoch: every member is answered `UNKNOWN_MEMBER_ID` and rejoins at epoch 0, and for one member lease no member is granted a shard it does not report. Audited. Answers the group afterwards.',
    access: 'ADMIN',
    rateLimit: 'group',
    params,
    body: { component: 'RepairGroupRequest', required: true },
    success: { status: 200, description: 'The group after the repair', body: { component: 'GroupResponse' } },
    errors: [...ADMIN_ERRORS, 'GROUP_NOT_FOUND'],
  }),
  deleteStream: apiRoute({
    method: 'delete',
    path: STREAM,
    operationId: 'deleteStream',
    tag: 'Streams and groups',
    summary: 'Delete a stream: its groups’ metadata and the shard keys the coordinator created',
    description:
      'Additive. Without `force` nothing is lost: refused (409 `GROUP_HAS_ACTIVE_MEMBERS`) while any group has a live member, and (409 `STREAM_NOT_DRAINED`) while a shard holds an entry some consumer group has not read and acknowledged — each shard key is re-checked and deleted in one script, so a late write keeps it and the stream stays. With `force` the shard keys are deleted whatever they hold. A key that is not a stream is never touched; with provisioning off no key is deleted (`keptShardKeys` says why). Afterwards the same name can be created again.',
    access: 'ADMIN',
    rateLimit: 'stream',
    params: z.object({ streamPrefix: streamPrefixSchema }),
    body: { component: 'DeleteStreamRequest', required: true },
    success: { status: 200, description: 'What was deleted', body: { component: 'StreamDeleteResponse' } },
    errors: [
      ...ADMIN_ERRORS,
      'STREAM_NOT_FOUND',
      'GROUP_HAS_ACTIVE_MEMBERS',
      'STREAM_NOT_DRAINED',
      'REDIS_NOT_CONFIGURED',
    ],
  }),
};

/** Rejects a shard count above the configured maximum before the coordinator sees it. */
function checkShardCount(initialShardCount: number | null | undefined, max: number): void {
  if (initialShardCount != null && initialShardCount > max) {
    throw invalidRequest([`initialShardCount: must be at most ${max}`]);
  }
}

/** Routes under `/coord/v1/streams/{p}` that create, read and delete groups. */
export function adminRoutes(deps: ResolvedDeps): OpenAPIHono<AppEnv> {
  const { coordinator, config } = deps;
  const r = ADMIN_ROUTES;
  const app = apiRouter();

  app.openapi(r.createStream.route, async (c) => {
    const { streamPrefix } = c.req.valid('param');
    const body = await validBody(c, r.createStream, config.maxBodyBytes);
    checkShardCount(body.initialShardCount, config.maxShardCount);
    const snapshot = await coordinator.createStream(streamPrefix, {
      initialShardCount: body.initialShardCount ?? null,
      consumerGroup: body.consumerGroup ?? null,
      requestedBy: body.requestedBy,
      principal: principalName(c),
      reason: body.reason ?? null,
    });
    return c.json(streamCreateView(snapshot), 201);
  });

  app.openapi(r.createGroup.route, async (c) => {
    const { streamPrefix, consumerGroup } = c.req.valid('param');
    const body = await validBody(c, r.createGroup, config.maxBodyBytes);
    checkShardCount(body.initialShardCount, config.maxShardCount);
    const snapshot = await coordinator.createGroup(streamPrefix, consumerGroup, {
      initialShardCount: body.initialShardCount ?? null,
      requestedBy: body.requestedBy,
      principal: principalName(c),
      reason: body.reason ?? null,
    });
    return c.json(groupView(snapshot), 201);
  });

  app.openapi(r.getGroup.route, async (c) => {
    const { streamPrefix, consumerGroup } = c.req.valid('param');
    return c.json(groupView(await coordinator.getGroup(streamPrefix, consumerGroup)), 200);
  });

  app.openapi(r.deleteGroup.route, async (c) => {
    const { streamPrefix, consumerGroup } = c.req.valid('param');
    const body = await validBody(c, r.deleteGroup, config.maxBodyBytes);
    const snapshot = await coordinator.deleteGroup(streamPrefix, consumerGroup, {
      requestedBy: body.requestedBy,
      principal: principalName(c),
      reason: body.reason,
      force: body.force ?? false,
    });
    return c.json(groupView(snapshot), 200);
  });

  app.openapi(r.repairGroup.route, async (c) => {
    const { streamPrefix, consumerGroup } = c.req.valid('param');
    const body = await validBody(c, r.repairGroup, config.maxBodyBytes);
    const snapshot = await coordinator.repairGroup(streamPrefix, consumerGroup, {
      mode: body.mode,
      requestedBy: body.requestedBy,
      principal: principalName(c),
      reason: body.reason ?? null,
    });
    return c.json(groupView(snapshot), 200);
  });

  app.openapi(r.deleteStream.route, async (c) => {
    const { streamPrefix } = c.req.valid('param');
    const body = await validBody(c, r.deleteStream, config.maxBodyBytes);
    const deleted = await coordinator.deleteStream(streamPrefix, {
      requestedBy: body.requestedBy,
      principal: principalName(c),
      reason: body.reason,
      force: body.force ?? false,
    });
    return c.json(deleted, 200);
  });

  return app;
}
