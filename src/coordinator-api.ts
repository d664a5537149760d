/**
 * The use-case surface the HTTP layer calls. Implemented by `Coordinator` in
 * `coordinator.ts` (lock → load → pure core → CAS commit → unlock).
 *
 * Every method validates nothing about wire shapes (zod has done that) but enforces the
 * protocol's own rules, and throws `CoordinatorError` for every refusal.
 */
import type { DrainVerdict, ShardReading } from './core/drain-evidence.js';
import type { HeartbeatInput, HeartbeatOutput } from './core/heartbeat-types.js';
import type { GroupDoc, Migration, RemovedShard, StreamDoc } from './core/model.js';
import type { ResetTarget, ShardMove } from './core/offsets-reset-plan.js';
import type { ShardHolder } from './core/stream-state.js';

/** A group together with the stream it belongs to (what every group view is built from). */
export interface GroupSnapshot {
  stream: StreamDoc;
  group: GroupDoc;
}

/** Where a page starts: strictly after this group of this stream. */
export interface GroupPosition {
  stream: string;
  group: string;
}

/** What a page asks for. */
export interface GroupPageQuery {
  /** Groups on the page at most (≥ 1). */
  limit: number;
  /** The last group of the previous page; null for the first page. */
  after: GroupPosition | null;
}

/** One page of groups in (stream, group) order. */
export interface GroupPage {
  groups: GroupSnapshot[];
  /** The last group of this page when more may follow; null when the walk ended. */
  next: GroupPosition | null;
  /** Streams in the namespace when the names were read (exact, one read). */
  totalStreams: number;
  /** Every group of the namespace when this page holds them all (first page, nothing after); else null. */
  totalGroups: number | null;
}

/** Who asked for an admin mutation (audit only). */
interface Audited {
  /** Free text from the client's body: whoever the client says it acts for. */
  requestedBy: string;
  /**
   * Who the request authenticated as (username or token subject), set by the HTTP layer from the
   * credentials it checked, never from the body; null without authentication (open mode). @default null
   */
  principal?: string | null;
}

/** Fields common to admin mutations (audit only). */
export interface AdminRequestMeta extends Audited {
  reason: string | null;
}

/** Body of a group repair: what to do. */
export interface RepairGroupInput extends AdminRequestMeta {
  mode: 'rebuild' | 'reset';
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

/** Body of `DELETE /streams/{p}`. */
export interface DeleteStreamInput extends AdminRequestMeta {
  /** Delete even with live members or entries not yet consumed. */
  force: boolean;
}

/** What `DELETE /streams/{p}` removed. */
export interface StreamDeletion {
  streamPrefix: string;
  /** Groups whose coordination metadata was deleted. */
  deletedGroups: string[];
  /** Shard stream keys deleted. */
  deletedShardKeys: string[];
  /** Shard keys left in Redis, and why. */
  keptShardKeys: Array<{ streamKey: string; reason: string }>;
}

/** Body of `POST /streams/{p}/scale` and `POST /streams/{p}/groups/{g}/scale`. */
export interface ScaleInput extends Audited {
  targetShardCount: number;
  reason: string;
  /** Accepted and ignored, as by the reference (docs/protocol.md#scale-requests). */
  deprecatedAfter: string | null;
}

/** Body of `POST …/migrations/{id}/rollback`. */
export interface RollbackInput extends Audited {
  reason: string;
}

/** Body of an offsets reset (docs/operating.md#replaying-or-skipping-records). */
export interface OffsetsResetInput extends AdminRequestMeta {
  target: ResetTarget;
  /** Shards to move, each a consumable shard of the stream; null: every consumable shard. */
  shards: number[] | null;
  /** Answer what the reset would do and write nothing. */
  dryRun: boolean;
}

/** One shard of an offsets reset: where the group was, where it goes, and what that skips or replays. */
export interface ShardReset extends Omit<ShardMove, 'entriesRead'> {
  shard: number;
  streamKey: string;
  /** The group's last-delivered-id before the reset. */
  before: string;
  /** Its last-delivered-id after the reset (to be, in a dry run). */
  after: string;
  /** Entries delivered and not acknowledged; the reset leaves them pending. Null when Redis did not say. */
  pendingCount: number | null;
}

/** What an offsets reset found and, unless it was a dry run, did. */
export interface OffsetsReset {
  target: ResetTarget;
  dryRun: boolean;
  /** The shards asked for, ascending. */
  shards: ShardReset[];
}

/** What a stream scale did: the stream's one migration, listed for every group. */
export interface StreamScaleResult {
  stream: StreamDoc;
  /** The stream's consumer groups, sorted. */
  groups: string[];
  /** The migration (ACTIVE once provisioned), or the synthetic `noop`. */
  migration: Migration;
}

/** One removed shard in the migrations view, with who holds it and a live drain-evidence read. */
interface RemovedShardOverview {
  record: RemovedShard;
  /** Members of any group still holding it (current, granted or revoking). */
  holders: ShardHolder[];
  /** A read taken for this view (null for retired shards or when the store cannot read). */
  live: { reading: ShardReading; verdict: DrainVerdict } | null;
}

/** Everything `GET /monitoring/…/migrations` shows. */
export interface MigrationsOverview {
  stream: StreamDoc;
  /** Removed shards not yet retired, plus the retired ones of the active migration. */
  removedShards: RemovedShardOverview[];
  /** Whether the active migration could be rolled back now, and why not. */
  rollback: { allowed: boolean; reason: string | null };
  /** When the live reads were taken. */
  readAt: number;
}

/** Redis reachability as seen by the health endpoint. */
export type RedisHealth = 'UP' | 'DOWN' | 'UNKNOWN';

/** Redis reachability and, when DOWN, why (a short fixed phrase such as `credentials refused`). */
export interface RedisCheck {
  status: RedisHealth;
  error?: string;
}

/** What the HTTP layer needs from the coordinator. */
export interface CoordinatorApi {
  /** 201: creates the stream and its first group. 409 STREAM_PREFIX_ALREADY_EXISTS if it exists, STREAM_LIMIT_REACHED at the quota. */
  createStream(prefix: string, input: CreateStreamInput): Promise<GroupSnapshot>;
  /**
   * 201: adds a group to an existing stream (409 SHARD_COUNT_MISMATCH when a different
   * `initialShardCount` is asked), or creates the stream with this group. 409
   * GROUP_ALREADY_EXISTS when the group exists; GROUP_LIMIT_REACHED / STREAM_LIMIT_REACHED at a quota.
   */
  createGroup(prefix: string, group: string, input: CreateGroupInput): Promise<GroupSnapshot>;
  /** Pure read; 404 GROUP_NOT_FOUND. */
  getGroup(prefix: string, group: string): Promise<GroupSnapshot>;
  /** Deletes coordinator metadata only; returns the pre-delete state. 409 GROUP_HAS_ACTIVE_MEMBERS unless forced. */
  deleteGroup(prefix: string, group: string, input: DeleteGroupInput): Promise<GroupSnapshot>;
  /**
   * Repairs a group reported corrupt (docs/running-redis.md#when-a-group-is-reported-corrupt):
   * `rebuild` its derived indexes from the member records, or `reset` its assignment so every
   * member rejoins. Answers the group afterwards.
   */
  repairGroup(prefix: string, group: string, input: RepairGroupInput): Promise<GroupSnapshot>;
  /**
   * `DELETE /streams/{p}`: the stream, its groups' metadata and its shard keys. 404
   * STREAM_NOT_FOUND; without force 409 GROUP_HAS_ACTIVE_MEMBERS / STREAM_NOT_DRAINED.
   */
  deleteStream(prefix: string, input: DeleteStreamInput): Promise<StreamDeletion>;
  /** Pure read used for producer routing; 404 GROUP_NOT_FOUND. */
  getRouting(prefix: string, group: string): Promise<GroupSnapshot>;
  /**
   * The member protocol; always answers (statuses in the output) unless the coordinator cannot
   * decide, or refuses: 409 MEMBER_ID_IN_USE, or MEMBER_LIMIT_REACHED for a join at the quota.
   */
  heartbeat(
    prefix: string,
    group: string,
    input: HeartbeatInput,
    options?: { fastPathTried?: boolean | undefined },
  ): Promise<HeartbeatOutput>;
  /**
   * The fast path of a batch's heartbeats to one group in one store call: per input, its
   * answer, or null when it needs `heartbeat` (with `fastPathTried`). Absent: every item takes
   * `heartbeat`.
   */
  steadyHeartbeats?(
    prefix: string,
    group: string,
    inputs: readonly HeartbeatInput[],
  ): Promise<Array<HeartbeatOutput | null>>;
  /** Pure read of every group of every stream (store order). */
  listGroups(): Promise<GroupSnapshot[]>;
  /**
   * Pure read of one page of groups in (stream, group) order, reading only the streams the page
   * needs (docs/protocol.md#listing-groups-in-pages). @default a page cut from `listGroups()`
   */
  listGroupPage?(query: GroupPageQuery): Promise<GroupPage>;
  /** Cached Redis PING result. */
  redisHealth(): Promise<RedisHealth>;
  /**
   * The bearer-token secret generated once per deployment (used when COORDINATOR_TOKEN_SECRET is
   * not set): `candidate` is kept when none exists yet, and the kept one answered. @default none
   * (a per-instance random secret)
   */
  tokenSecret?(candidate: string): Promise<string>;
  /** Redis PING result cached briefly, with the reason when DOWN (readiness). @default from `redisHealth()` */
  redisReadiness?(): Promise<RedisCheck>;
  /**
   * 202: reshards the stream (its one migration across all groups, one atomic commit).
   * 404 STREAM_NOT_FOUND, 409 ACTIVE_MIGRATION_EXISTS / METADATA_SYNC_IN_PROGRESS, 503
   * REDIS_STREAM_PROVISIONING_FAILED (the migration stays PREPARING; repeating resumes it).
   */
  scaleStream(prefix: string, input: ScaleInput): Promise<StreamScaleResult>;
  /** The compat route: the same stream migration, for an existing group (404 GROUP_NOT_FOUND). */
  scaleGroup(prefix: string, group: string, input: ScaleInput): Promise<StreamScaleResult>;
  /** Pure read; 404 GROUP_NOT_FOUND / MIGRATION_NOT_FOUND. */
  getMigration(prefix: string, group: string, reshardingId: string): Promise<Migration>;
  /** 202 with the migration; 422 ROLLBACK_NOT_ALLOWED, 409 METADATA_SYNC_IN_PROGRESS, 404s. */
  rollbackMigration(
    prefix: string,
    group: string,
    reshardingId: string,
    input: RollbackInput,
  ): Promise<Migration>;
  /** Pure read (live drain-evidence reads included); 404 GROUP_NOT_FOUND. */
  migrationsOverview(prefix: string, group: string): Promise<MigrationsOverview>;
  /**
   * Moves the group's last-delivered-id on some or all shards (docs/operating.md#replaying-or-skipping-records),
   * or with `dryRun` only says what that would skip or replay. 404 STREAM_NOT_FOUND /
   * GROUP_NOT_FOUND, 400 INVALID_REQUEST (a shard not of the stream, an id after a shard's last),
   * 409 GROUP_HAS_ACTIVE_MEMBERS while a member's lease runs; nothing is written on a refusal.
   * @default absent (the route answers 503 REDIS_NOT_CONFIGURED)
   */
  resetOffsets?(prefix: string, group: string, input: OffsetsResetInput): Promise<OffsetsReset>;
}
