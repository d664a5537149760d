/**
 * The member heartbeat (PROTOCOL §2.8, §3): validated here, decided by the core, answered
 * with HTTP 200 and a status for every protocol outcome — except a member id another process
 * still holds (409 MEMBER_ID_IN_USE, only for requests carrying `memberInstanceId`) and a join
 * into a group at its member quota (409 MEMBER_LIMIT_REACHED).
 */
import { Hono } from 'hono';
import type { HeartbeatInput } from '../../core/heartbeat-types.js';
import type { AppEnv, ResolvedDeps } from '../context.js';
import { parseJsonBody, pathParams } from '../input.js';
import { type HeartbeatRequestBody, heartbeatRequestSchema } from '../schemas.js';
import { refuseWhenTerminating } from '../terminating.js';
import { heartbeatView } from '../views.js';

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
export function memberRoutes(deps: ResolvedDeps): Hono<AppEnv> {
  const { coordinator, config } = deps;
  const app = new Hono<AppEnv>();
  app.post(
    '/streams/:streamPrefix/groups/:consumerGroup/members/:memberId/heartbeat',
    refuseWhenTerminating(deps.terminating),
    async (c) => {
      const { streamPrefix, consumerGroup, memberId } = pathParams(c, [
        'streamPrefix',
        'consumerGroup',
        'memberId',
      ]);
      const body = await parseJsonBody(c, heartbeatRequestSchema, config.maxBodyBytes);
      const out = await coordinator.heartbeat(streamPrefix, consumerGroup, toHeartbeatInput(body, memberId));
      return c.json(heartbeatView(out, body.requestId, config));
    },
  );
  return app;
}
