/**
 * The Store port: everything the coordinator asks of Redis, and nothing more.
 *
 * One implementation, `redis-store.ts`, over the Redis port (src/redis/): ioredis on Node
 * (standalone or Cluster) and @upstash/redis on Workers run the same Lua scripts from `scripts/`.
 *
 * Layout 2 (docs/protocol.md#redis-key-layout): per stream a stream hash (document, revision, the compact view
 * heartbeats read); per group a small header, one record per member, one target per member, an
 * ownership index per shard, holder statuses, and time indexes (leases, deadlines, timers). A
 * heartbeat reads O(its own shards) and commits only if what it read is unchanged (the commit
 * script's checks), so heartbeats never wait for each other; whole-group reads (`load`) serve
 * monitoring, admin requests and resharding passes.
 */
import type { HolderStatus, OwnerEntry, PlanOp, RecordAt } from '../core/commit-plan.js';
import type { RetireOutcome, ShardReading } from '../core/drain-evidence.js';
import type { HeartbeatOutput } from '../core/heartbeat-types.js';
import type { GroupHeader } from '../core/member-view.js';
import type { GroupDoc, StreamDoc } from '../core/model.js';
import type { GroupPositions } from './group-positions.js';
import type { StreamHead } from './records.js';

/** A PING's outcome; `error` is a short fixed phrase, safe on a public health endpoint. */
export type PingOutcome = { ok: true } | { ok: false; error: string };

/** A consistent whole read of one stream and (some of) its groups. */
export interface StreamSnapshot {
  /** The stream's `storeRevision` at read time (>= 1); it moves when the stream document does. */
  revision: number;
  stream: StreamDoc;
  /**
   * The requested groups that exist, assembled from their records (each member's lease, last
   * heartbeat time, progress and rebalance deadline merged in from the indexes).
   */
  groups: Record<string, GroupDoc>;
}

/** A group's epochs and version after a commit. */
export interface HeaderValues {
  groupEpoch: number;
  assignmentEpoch: number;
  metadataVersion: number;
}

/** The part of a commit that concerns one group. */
interface GroupPlan {
  name: string;
  /** Creates the group header (the group must not exist). */
  create?: HeaderValues & { at: number };
  /** Deletes every key of the group (after its operations). */
  delete?: boolean;
  /** Checks and writes (see `core/commit-plan.ts`). */
  ops: PlanOp[];
}

/** One atomic commit across a stream's keys: every check holds, then every write applies. */
export interface StreamPlan {
  prefix: string;
  /** The stream revision the plan was decided on, or that the stream must not exist yet. */
  expect?: { rev: number } | 'absent';
  /** A new stream document (with its heartbeat view), or null to delete the stream hash. */
  stream?: { doc: StreamDoc; head: StreamHead } | null;
  /** Records when a resharding pass last ran (does not move the revision). */
  passAt?: number;
  groups: GroupPlan[];
  /**
   * One-time token of this commit attempt: a second send of the same plan (lost reply, client
   * resend) finds it stored and answers as applied instead of failing its checks.
   */
  token?: string;
  /** The stream mutex token the plan was decided under: refused unless the mutex still holds it. */
  lock?: string;
}

/** Outcome of `commit`. */
export type CommitOutcome =
  | {
      ok: true;
      /** The stream revision after the commit (null when the stream was deleted). */
      streamRev: number | null;
      /** Per plan group, its header after the commit (null when it was deleted). */
      headers: Array<HeaderValues | null>;
      /** The plan's token was already stored: an earlier send of it applied (nothing written now). */
      replayed?: boolean;
    }
  | {
      ok: false;
      failedCheck: number;
      /** The stream mutex no longer holds the plan's `lock` token (nothing written). */
      lockLost?: boolean;
    };

/** Input of `readMember`. */
export interface MemberReadRequest {
  prefix: string;
  group: string;
  memberId: string;
  now: number;
  /** The fast-path key (`heartbeatKey`), or null to skip the fast path. */
  fastKey: string | null;
  /** Lease the fast path renews to. */
  leaseExpiresAt: number;
  /** Progress JSON the fast path stores. */
  progressJson: string;
  /** Shards the request names (their ownership entries are read too). */
  shards: readonly number[];
  /** Due members listed at most. */
  maxDue: number;
  /** How long a recovery hold lasts once the read sees a restarted Redis, ms. @default 0 (none) */
  recoveryHoldMs?: number;
}

/** Input of `readSteady`: the steady heartbeats of one batch to one group. */
export interface SteadyReadRequest {
  prefix: string;
  group: string;
  now: number;
  /** Lease the answers renew to. */
  leaseExpiresAt: number;
  /** One entry per member: its fast-path key (`heartbeatKey`) and the progress JSON to store. */
  members: ReadonlyArray<{ memberId: string; fastKey: string; progressJson: string }>;
}

/** Everything a heartbeat decides from. */
export interface MemberReadView {
  kind: 'view';
  streamRev: number;
  head: StreamHead;
  header: GroupHeader;
  /** The member's record (lease, heartbeat time and deadline merged in), null when unknown. */
  member: RecordAt | null;
  target: number[];
  /** Whether a target is stored at all (an empty one counts). */
  targetStored: boolean;
  /** Ownership entries of the target and of the requested shards (null = nobody). */
  owners: Map<number, OwnerEntry | null>;
  /** Status of each other member named by those entries (null = no status stored). */
  holders: Map<string, HolderStatus | null>;
  /** Members whose lease passed, whose deadline came, or whose timer is due (at most `maxDue` each). */
  due: { expired: string[]; deadlines: string[]; timers: string[] };
  /** The member is in the open round's acknowledged set; how many are; how many are live. */
  acknowledged: boolean;
  acknowledgements: number;
  liveMembers: number;
}

/** Outcome of `readMember`. */
export type MemberRead =
  | { kind: 'fast'; response: HeartbeatOutput }
  | { kind: 'no-stream' }
  | { kind: 'no-group'; streamRev: number; head: StreamHead }
  | MemberReadView;

/** What an assignment round reads. */
export interface AssignmentRead {
  streamRev: number;
  head: StreamHead;
  header: GroupHeader;
  /** Members in the lease index whose lease has not run out, earliest lease first. */
  live: string[];
  /**
   * Their lease expiries: each heartbeat renews a lease to its time + the lease TTL, so these
   * order the members by when their next heartbeats are due.
   */
  leaseOf: Map<string, number>;
  targets: Map<string, number[]>;
  owners: Map<number, OwnerEntry>;
  deadlines: Map<string, number>;
}

/** Records of named members (for maintenance and the grant after a join). */
export interface MembersRead {
  streamRev: number;
  head: StreamHead;
  header: GroupHeader;
  members: Map<string, { stored: RecordAt | null; target: number[] }>;
}

/** A group's source of truth as stored, for rebuilding its indexes. */
export interface GroupRecords {
  /** The group header; null when it is lost or unreadable. */
  header: GroupHeader | null;
  /** Each member's stored record (lease and heartbeat time not merged) with its revision. */
  members: Map<string, RecordAt>;
  /** Members whose stored record does not decode. */
  unreadable: string[];
  /** Lease-index scores of the members found there. */
  leases: Map<string, number>;
  /** Last heartbeat times (the live entries) of the members found there. */
  heartbeats: Map<string, number>;
  /** The highest group epoch the group ever reached (kept in the stream hash); 0 when unknown. */
  highestEpoch: number;
  /** How many member records the header recorded at the last commit; null when it recorded none. */
  recordedMembers: number | null;
}

/** Members of a group that maintenance is due for, and whether its assignment round is. */
export interface DueRead {
  expired: string[];
  deadlines: string[];
  timers: string[];
  assignmentDue: boolean;
}

/** What the sweep learns about a stream in one round trip. */
export interface StreamProbe {
  streamRev: number;
  head: StreamHead;
  groups: Array<{
    name: string;
    exists: boolean;
    assignmentDue: boolean;
    leaseDue: boolean;
    deadlineDue: boolean;
    timerDue: boolean;
    roundOpen: boolean;
    /** The earliest time anything of the group falls due (now when something is due already; null: never). */
    nextAt: number | null;
  }>;
}

/** Streams a sweep claimed from the due index. */
export interface DueClaim {
  prefixes: string[];
  /** Entries still due after this claim (what the sweep leaves for later calls or instances). */
  backlog: number;
}

/** Redis Streams operations used for provisioning and checks. */
export interface StreamOps {
  /**
   * Creates consumer group `group` on `streamKey` at the tail (`XGROUP CREATE key group $
   * MKSTREAM ENTRIESREAD <entries-added>`), ignoring BUSYGROUP. Throws
   * CoordinatorError(REDIS_STREAM_PROVISIONING_FAILED) on any other error.
   */
  provision(streamKey: string, group: string): Promise<void>;
  /** Number of the given keys that exist (keys may live in different slots). */
  countExisting(keys: string[]): Promise<number>;
  /**
   * Like `provision` but only when `streamKey` exists (never creates the key): true when the
   * group is there now, false when the key is absent. Throws
   * CoordinatorError(REDIS_STREAM_PROVISIONING_FAILED) on any other error.
   */
  provisionExisting?(streamKey: string, group: string): Promise<boolean>;
}

/**
 * Drain evidence and retirement of removed shards (docs/protocol.md#resharding); each call is one script on the
 * shard key. Optional in `Store` while not every implementation has them: a store without them
 * yields no drain evidence, so removed shards keep draining and are never deleted (fail safe).
 */
export interface ShardOps {
  /**
   * Type, length, entries-added and every consumer group's pending and lag of `streamKey`,
   * in one read-only round trip. Never throws: a failure comes back as `{ kind: 'error' }`.
   */
  readShard(streamKey: string): Promise<ShardReading>;
  /**
   * Re-checks the drain evidence of `streamKey` (every consumer group on it, and each of
   * `managedGroups` present unless the stream is empty) and deletes the key in the same
   * script. Never throws: a failure to run comes back as `{ kind: 'error' }`.
   */
  retireShard(streamKey: string, managedGroups: readonly string[]): Promise<RetireOutcome>;
  /**
   * Deletes `streamKey` whatever it holds, but only if it is a stream (a key of another type is
   * not a shard this coordinator made), and the keys kept beside it (as `clearShardKeys`) in the
   * same script. Throws a CoordinatorError when Redis cannot be reached.
   */
  deleteShard(streamKey: string): Promise<ShardDeletion>;
  /**
   * Deletes the keys kept beside `streamKey` in its slot (fenced-ack tokens, idempotency
   * incarnation) once the stream key is gone, so a re-created stream or a re-added shard starts
   * clean; run after every retirement. False, and nothing done, while the stream key exists.
   * With `streamKept` (a stream deleted while the operator keeps its shard keys) only the tokens
   * go, whether or not the key exists. Throws a CoordinatorError when Redis cannot be reached.
   */
  clearShardKeys(streamKey: string, streamKept?: boolean): Promise<boolean>;
}

/** What `deleteShard` did. */
export type ShardDeletion = 'deleted' | 'absent' | 'not-a-stream';

/** The Store port. */
export interface Store extends StreamOps, Partial<ShardOps> {
  /**
   * Takes the stream's mutex (or, with `group`, the group's assignment lock) with `token` for
   * `ttlMs`, or renews it when it already holds `token`. False when someone else holds it.
   */
  tryLock(prefix: string, token: string, ttlMs: number, group?: string): Promise<boolean>;
  /** Extends the mutex (or the group's assignment lock) to `ttlMs` only if it still holds `token`. */
  renewLock(prefix: string, token: string, ttlMs: number, group?: string): Promise<boolean>;
  /** Releases the mutex (or the group's assignment lock) if it still holds `token`. */
  unlock(prefix: string, token: string, group?: string): Promise<void>;
  /**
   * Reads the stream and the named groups whole (`'all'` = every group of the stream). Null
   * when the stream does not exist. Throws CoordinatorError(METADATA_CORRUPT) when stored
   * metadata exists but cannot be read, a layout-1 stream included (layout 1 is refused).
   */
  load(prefix: string, groups: string[] | 'all'): Promise<StreamSnapshot | null>;
  /** A heartbeat's read (or its fast-path answer). Throws METADATA_CORRUPT like `load`. */
  readMember(req: MemberReadRequest): Promise<MemberRead>;
  /**
   * The fast path of several members of one group in one call: per member, in order, its stored
   * answer (renewed as `readMember`'s fast path renews it) or null when it needs the full path.
   */
  readSteady?(req: SteadyReadRequest): Promise<Array<HeartbeatOutput | null>>;
  /**
   * An assignment round's read, taking (or renewing) the group's assignment lock with `token`
   * for `lockMs` in the same round trip. `'busy'` when someone else holds the lock; null when
   * the stream or group is gone. Throws METADATA_CORRUPT like `load`.
   */
  readAssignment(
    prefix: string,
    group: string,
    now: number,
    token: string,
    lockMs: number,
  ): Promise<AssignmentRead | 'busy' | null>;
  /** Records of `memberIds`; null when the stream or group is gone. Throws METADATA_CORRUPT like `load`. */
  readMembers(prefix: string, group: string, memberIds: readonly string[]): Promise<MembersRead | null>;
  /**
   * Every member record of a group with its lease-index score and heartbeat time, read whatever
   * the derived indexes hold (what rebuilding them starts from); null when the group is gone.
   */
  readGroupRecords(prefix: string, group: string): Promise<GroupRecords | null>;
  /** Members due for maintenance in one group (at most `max` per kind); null when it is gone. */
  readDue(prefix: string, group: string, now: number, max: number): Promise<DueRead | null>;
  /** What is due in each group of the stream; null when the stream does not exist. */
  probeStream(prefix: string, now: number): Promise<StreamProbe | null>;
  /**
   * One atomic, checked commit (see StreamPlan). A plan that creates time-driven work first
   * lowers the stream's due time in the due index (see `claimDue`), so no commit is applied
   * whose due work the sweep would not find.
   */
  commit(plan: StreamPlan): Promise<CommitOutcome>;
  /**
   * Claims up to `max` streams with work due at `now` in the namespace's due index, until
   * `until` (another sweep takes them again after that). Null when the index is not complete
   * (new, or lost): the caller seeds it with `seedDue` first.
   */
  claimDue(now: number, until: number, max: number): Promise<DueClaim | null>;
  /** Ends a claim taken `until`: the stream's next due time (null: nothing due), or not listed. */
  settleDue(prefix: string, until: number, next: number | null): Promise<void>;
  /** Lists every one of `prefixes` as due at `at` and marks the due index complete. */
  seedDue(prefixes: readonly string[], at: number): Promise<void>;
  /** Every stream prefix known to this namespace. */
  listStreams(): Promise<string[]>;
  /**
   * Adds a prefix to the listing (idempotent; the critical section calls it around a stream's
   * first commit), unless the listing holds `limit` other prefixes already: false then, and
   * nothing written. @default limit 0 (none)
   */
  registerStream(prefix: string, limit?: number): Promise<boolean>;
  /** Removes a prefix from the listing (the critical section, after the stream hash is deleted). */
  unregisterStream(prefix: string): Promise<void>;
  /**
   * The deployment's generated token secret: stores `candidate` when none is stored yet and
   * answers the stored one, so every instance signs with the same key. @default none (the
   * coordinator then keeps `candidate` for this instance only)
   */
  tokenSecret?(candidate: string): Promise<string>;
  /** PING with a short timeout. */
  ping(): Promise<boolean>;
  /** PING with a short timeout, saying why it failed (health details). @default from `ping()` */
  pingOutcome?(): Promise<PingOutcome>;
  /**
   * Redis' `maxmemory-policy` as `INFO memory` reports it (on a Cluster the riskiest of its
   * masters); null when the reply does not say. Throws when INFO is refused. @default not readable
   */
  evictionPolicy?(): Promise<string | null>;
  /**
   * Consumer-group positions on shard streams (the offsets reset). @default none (the reset then
   * answers 503 REDIS_NOT_CONFIGURED)
   */
  positions?: GroupPositions;
  /** Closes connections the store owns. */
  close(): Promise<void>;
}
