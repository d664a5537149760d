/**
 * The use-case surface the HTTP layer calls. Implemented by `Coordinator` in
 * `coordinator.ts` (lock → load → pure core → CAS commit → unlock).
 *
 * Every method validates nothing about wire shapes (zod has done that) but enforces the
 * protocol's own rules, and throws `CoordinatorError` for every refusal.
 */
import type { HeartbeatInput, HeartbeatOutput } from './core/heartbeat-types.js';
import type { GroupDoc, StreamDoc } from './core/model.js';

/** A group together with the stream it belongs to (what every group view is built from). */
export interface GroupSnapshot {
  stream: StreamDoc;
  group: GroupDoc;
}

/** Fields common to admin mutations (audit only). */
export interface AdminRequestMeta {
  requestedBy: string;
  reason: string | null;
}

/** Body of `POST /streams/{p}`. */
export interface CreateStreamInput extends AdminRequestMeta {
  /** @default config.defaultShardCount */
  initialShardCount: number | null;
  /** First consumer group; @default the stream prefix */
  consumerGroup: string | null;
}

/** Body of `POST /streams/{p}/groups/{g}`. */
export interface CreateGroupInput extends AdminRequestMeta {
  initialShardCount: number | null;
}

/** Body of `DELETE /streams/{p}/groups/{g}`. */
export interface DeleteGroupInput extends AdminRequestMeta {
  force: boolean;
}

/** Redis reachability as seen by the health endpoint. */
export type RedisHealth = 'UP' | 'DOWN' | 'UNKNOWN';

/** What the HTTP layer needs from the coordinator. */
export interface CoordinatorApi {
  /** 201: creates the stream and its first group. 409 STREAM_PREFIX_ALREADY_EXISTS if it exists. */
  createStream(prefix: string, input: CreateStreamInput): Promise<GroupSnapshot>;
  /**
   * 201: adds a group to an existing stream (409 SHARD_COUNT_MISMATCH when a different
   * `initialShardCount` is asked), or creates the stream with this group. 409
   * GROUP_ALREADY_EXISTS when the group exists.
   */
  createGroup(prefix: string, group: string, input: CreateGroupInput): Promise<GroupSnapshot>;
  /** Pure read; 404 GROUP_NOT_FOUND. */
  getGroup(prefix: string, group: string): Promise<GroupSnapshot>;
  /** Deletes coordinator metadata only; returns the pre-delete state. 409 GROUP_HAS_ACTIVE_MEMBERS unless forced. */
  deleteGroup(prefix: string, group: string, input: DeleteGroupInput): Promise<GroupSnapshot>;
  /** Pure read used for producer routing; 404 GROUP_NOT_FOUND. */
  getRouting(prefix: string, group: string): Promise<GroupSnapshot>;
  /** The member protocol; always answers (statuses in the output) unless the coordinator cannot decide. */
  heartbeat(prefix: string, group: string, input: HeartbeatInput): Promise<HeartbeatOutput>;
  /** Pure read of every group of every stream (store order). */
  listGroups(): Promise<GroupSnapshot[]>;
  /** Cached Redis PING result. */
  redisHealth(): Promise<RedisHealth>;
}
