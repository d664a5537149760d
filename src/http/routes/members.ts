/**
 * The member heartbeat (docs/protocol.md#heartbeat): validated here, decided by the core, answered
 * with HTTP 200 and a status for every protocol outcome — except a member id another process
 * still holds (409 MEMBER_ID_IN_USE, only for requests carrying `memberInstanceId`) and a join
 * into a group at its member quota (409 MEMBER_LIMIT_REACHED).
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { CoordinatorError } from '../../core/errors.js';
import type { HeartbeatInput } from '../../core/heartbeat-types.js';
import { apiRoute, apiRouter, groupParams, MUTATION_ERRORS, validBody } from '../api-route.js';
import {
  BatchGate,
  batchLimits,
  checkNesting,
  checkShardEntries,
  refuseDeclaredLength,
} from '../batch-limits.js';
import type { AppEnv, ResolvedDeps } from '../context.js';
import { runHeartbeatBatch } from '../heartbeat-batch.js';
import { HEARTBEAT_BATCH_MAX_ITEMS, type HeartbeatRequestBody, memberIdSchema } from '../schemas.js';
import { heartbeatView } from '../views.js';

/** The declared member operations. */
export const MEMBER_ROUTES = {
  heartbeat: apiRoute({
    method: 'post',
    path: '/coord/v1/streams/{streamPrefix}/groups/{consumerGroup}/members/{memberId}/heartbeat',
    operationId: 'heartbeat',
    tag: 'Members',
    summary: 'Member heartbeat',
    description:
      'Always 200 for protocol outcomes: the `status` field carries them (OK, SYNC_METADATA, REVOKE_PENDING, FENCED_MEMBER_EPOCH, UNKNOWN_MEMBER_ID, UNSUPPORTED_PROTOCOL, INVALID_REQUEST). Two exceptions, where nothing is written: for requests carrying the additive `memberInstanceId`, a member id still held by another instance (live, or fenced with blocking holdings) answers 409 `MEMBER_ID_IN_USE` (reference clients never send the field and are never refused for it); and a join (or rejoin) into a group that already has `COORDINATOR_MAX_MEMBERS_PER_GROUP` live members answers 409 `MEMBER_LIMIT_REACHED` (live members are never refused by it).',
    access: 'MEMBER_API',
    params: z.object({ ...groupParams, memberId: memberIdSchema }),
    body: { component: 'HeartbeatRequest', required: true },
    success: { status: 200, description: 'Heartbeat outcome', body: { component: 'HeartbeatResponse' } },
    errors: [...MUTATION_ERRORS, 'MEMBER_ID_IN_USE', 'MEMBER_LIMIT_REACHED'],
  }),
  heartbeatBatch: apiRoute({
    method: 'post',
    path: '/coord/v1/streams/{streamPrefix}/groups/{consumerGroup}/heartbeats',
    operationId: 'heartbeatBatch',
    tag: 'Members',
    summary: 'Batched member heartbeats (additive)',
    description: `Additive (capability \`BATCH_HEARTBEAT\`): up to ${HEARTBEAT_BATCH_MAX_ITEMS} heartbeats of distinct members of one group in one request, each a single-route body whose \`memberId\` is also its path id. Answered 200 with one item per heartbeat, in order, each exactly what \`POST …/members/{memberId}/heartbeat\` would answer: \`httpStatus\` 200 and \`heartbeat\`, or the refusal's status (409 \`MEMBER_ID_IN_USE\`, 409 \`MEMBER_LIMIT_REACHED\`, 409 \`STATE_VERSION_CONFLICT\`, 500, 503) and its \`ErrorResponse\` in \`error\`. Steady items (those the fast path answers) are answered first, together, in one Redis call; the others then run one after another, in order, with the single route's per-member atomicity; after an item (or the steady call) answered 503 \`REDIS_UNAVAILABLE\` or \`COORDINATOR_TERMINATING\` the rest get the same entry without being attempted. One authentication check for the whole request (the single heartbeat's access and stream scope). A body that is not a valid batch (a bad item, more than ${HEARTBEAT_BATCH_MAX_ITEMS} items, a repeated memberId, an item listing more than \`COORDINATOR_MAX_SHARD_COUNT\` shards in one list, more than 3 × \`COORDINATOR_MAX_SHARD_COUNT\` shard entries in all) is a 400 for the whole request; a body over \`COORDINATOR_MAX_BATCH_BODY_BYTES\` (256 KiB) a 413, refused on its \`Content-Length\` before it is read. Beyond \`COORDINATOR_MAX_CONCURRENT_BATCHES\` batches in flight, 503 \`COORDINATOR_BUSY\` with \`Retry-After\` at once (send the heartbeats alone meanwhile); a body that has not arrived within \`COORDINATOR_BATCH_READ_TIMEOUT_MS\` (5 s), 408 \`REQUEST_TIMEOUT\` and the connection closed. 404 when \`COORDINATOR_BATCH_HEARTBEATS=false\`.`,
    access: 'MEMBER_API',
    params: z.object(groupParams),
    body: { component: 'HeartbeatBatchRequest', required: true },
    success: {
      status: 200,
      description: 'One single-route answer per heartbeat, in request order',
      body: { component: 'HeartbeatBatchResponse' },
    },
    errors: [...MUTATION_ERRORS, 'NOT_FOUND', 'COORDINATOR_BUSY', 'REQUEST_TIMEOUT'],
  }),
};

/** First-seen order without repeats (the reference reads `ownedShards` into a set). */
function distinct(shards: number[]): number[] {
  return [...new Set(shards)];
}

/** Maps a validated body to the core's input; absent and `null` optional fields mean empty. */
export function toHeartbeatInput(body: HeartbeatRequestBody, pathMemberId: string): HeartbeatInput {
  return {
    protocolVersion: body.protocolVersion,
    requestId: body.requestId,
    memberId: body.memberId,
    pathMemberId,
    memberName: body.memberName ?? null,
    memberEpoch: body.memberEpoch,
    metadataVersion: body.metadataVersion,
    runtimeMaxConcurrency: body.runtimeConsumerCapacity.runtimeMaxConcurrency,
    availableConcurrency: body.runtimeConsumerCapacity.availableConcurrency,
    ownedShards: distinct((body.ownedShards ?? []).map((s) => s.shardIndex)),
    revokingShards: (body.revokingShards ?? []).map((r) => ({
      shard: r.shard.shardIndex,
      state: r.state,
      inFlight: r.inFlight ?? 0,
      ackedAt: r.ackedAt ?? null,
    })),
    shardProgress: (body.shardProgress ?? []).map((p) => ({
      shard: p.shard.shardIndex,
      streamKey: p.streamKey,
      lastDeliveredId: p.lastDeliveredId ?? null,
      lastAckedId: p.lastAckedId ?? null,
      pendingCount: p.pendingCount ?? 0,
      updatedAt: p.updatedAt ?? null,
    })),
    // Absent for reference clients, whose input stays exactly what it always was.
    ...(body.memberInstanceId ? { memberInstanceId: body.memberInstanceId } : {}),
    ...(typeof body.requestSeq === 'number' ? { requestSeq: body.requestSeq } : {}),
  };
}

/** `POST /streams/{p}/groups/{g}/members/{m}/heartbeat` and the batched `…/groups/{g}/heartbeats`. */
export function memberRoutes(deps: ResolvedDeps): OpenAPIHono<AppEnv> {
  const { coordinator, config, log } = deps;
  const r = MEMBER_ROUTES;
  const app = apiRouter();
  const limits = batchLimits(config);
  const batches = new BatchGate(limits.maxConcurrent);
  app.openapi(r.heartbeat.route, async (c) => {
    const { streamPrefix, consumerGroup, memberId } = c.req.valid('param');
    const body = await validBody(c, r.heartbeat, config.maxBodyBytes);
    const out = await coordinator.heartbeat(streamPrefix, consumerGroup, toHeartbeatInput(body, memberId));
    return c.json(heartbeatView(out, body.requestId, config), 200);
  });
  app.openapi(r.heartbeatBatch.route, async (c) => {
    const { streamPrefix, consumerGroup } = c.req.valid('param');
    if (!config.batchHeartbeats) {
      throw new CoordinatorError(
        'NOT_FOUND',
        'batched heartbeats are switched off (COORDINATOR_BATCH_HEARTBEATS)',
      );
    }
    // Before a slot is taken or a byte read; what one batch may hold: src/http/batch-limits.ts.
    refuseDeclaredLength(c.req.raw, limits.maxBodyBytes);
    return batches.run(async () => {
      const body = await validBody(c, r.heartbeatBatch, limits.maxBodyBytes, {
        readTimeoutMs: config.batchReadTimeoutMs,
        beforeParse: (bytes) => checkNesting(bytes, limits.maxContainers),
      });
      checkShardEntries(body.heartbeats, limits);
      const deps = { coordinator, config, log, toInput: toHeartbeatInput };
      const results = await runHeartbeatBatch(deps, streamPrefix, consumerGroup, body.heartbeats);
      return c.json({ results }, 200);
    });
  });
  return app;
}
