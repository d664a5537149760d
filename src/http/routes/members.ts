/**
 * The member heartbeat (PROTOCOL §2.8, §3): validated here, decided by the core, answered
 * with HTTP 200 and a status for every protocol outcome — except a member id another process
 * still holds (409 MEMBER_ID_IN_USE, only for requests carrying `memberInstanceId`) and a join
 * into a group at its member quota (409 MEMBER_LIMIT_REACHED).
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import type { HeartbeatInput } from '../../core/heartbeat-types.js';
import { apiRoute, apiRouter, groupParams, MUTATION_ERRORS, validBody } from '../api-route.js';
import type { AppEnv, ResolvedDeps } from '../context.js';
import { type HeartbeatRequestBody, memberIdSchema } from '../schemas.js';
import { heartbeatView } from '../views.js';

/** The declared member operation. */
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
  };
}

/** `POST /streams/{p}/groups/{g}/members/{m}/heartbeat`. */
export function memberRoutes(deps: ResolvedDeps): OpenAPIHono<AppEnv> {
  const { coordinator, config } = deps;
  const r = MEMBER_ROUTES;
  const app = apiRouter();
  app.openapi(r.heartbeat.route, async (c) => {
    const { streamPrefix, consumerGroup, memberId } = c.req.valid('param');
    const body = await validBody(c, r.heartbeat, config.maxBodyBytes);
    const out = await coordinator.heartbeat(streamPrefix, consumerGroup, toHeartbeatInput(body, memberId));
    return c.json(heartbeatView(out, body.requestId, config), 200);
  });
  return app;
}
