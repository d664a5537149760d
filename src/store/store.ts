/**
 * The Store port: everything the coordinator asks of Redis, and nothing more.
 *
 * Two implementations: `ioredis-store.ts` (Node, standalone or Cluster) and, later,
 * `upstash-store.ts` (Workers). Both run the same Lua scripts from `scripts/`.
 *
 * Consistency model (SPEC §4–6):
 * - All coordinator keys of one stream share the hash tag `{P}` (see `keys.ts`).
 * - The stream document and the group documents are guarded by one per-stream
 *   `storeRevision`; `commit` applies only when it is unchanged (compare-and-set in Lua).
 * - Member leases, last-heartbeat times and shard progress live outside the documents in
 *   per-group structures written by the fast path and merged by maximum on commit, so a
 *   full-path commit never overwrites a fresher lease.
 */
import type { RetireOutcome, ShardReading } from '../core/drain-evidence.js';
import type { GroupDoc, StreamDoc } from '../core/model.js';

/** A consistent read of one stream and (some of) its groups. */
export interface StreamSnapshot {
  /** The stream's `storeRevision` at read time (>= 1). */
  revision: number;
  stream: StreamDoc;
  /**
   * The requested groups that exist, with leases, last heartbeat times and progress merged
   * in from the lease structures (each member's `memberLeaseExpiresAt` and `lastHeartbeatAt`
   * is the maximum of the document value and the lease structure's value; `shardProgress`
   * is the newer of the two).
   */
  groups: Record<string, GroupDoc>;
}

/** Lease bookkeeping for one member, written by `commit`. */
export interface LeaseWrite {
  memberId: string;
  /** ACTIVE/STARTING members are kept in the lease index; all others are removed from it. */
  live: boolean;
  /** Merged by maximum with the stored value. */
  leaseExpiresAt: number;
  /** Merged by maximum with the stored value. */
  lastHeartbeatAt: number;
}

/** The requesting member's fast-path fingerprint, stored alongside its lease. */
export interface FastPathWrite {
  group: string;
  memberId: string;
  /**
   * Opaque text the fast path must match exactly (built by the core from epoch,
   * metadataVersion and report digest).
   */
  key: string;
  /** The response the fast path returns on a match (JSON text of `HeartbeatOutput`). */
  response: string;
}

/** One atomic write of a stream's coordination state. */
export interface CommitRequest {
  prefix: string;
  /** The revision the caller loaded; 0 creates the stream (fails if it exists). */
  expectedRevision: number;
  /** New stream document, or undefined to leave it unchanged. */
  stream?: StreamDoc;
  /** Deletes the stream document (its last group was deleted). Excludes `stream`. */
  deleteStream?: boolean;
  /** New group documents; `null` deletes the group and all of its per-group keys. */
  groups?: Record<string, GroupDoc | null>;
  /**
   * Expiries this commit records, per group: the commit fails with `conflict` when any of
   * these members' stored lease is now later than the lease the decision was based on.
   */
  expiries?: Record<string, Array<{ memberId: string; observedLeaseExpiresAt: number }>>;
  /** Lease writes per group (merged by maximum). */
  leases?: Record<string, LeaseWrite[]>;
  /** Progress reported by the requesting member (replaces the stored progress). */
  progress?: { group: string; memberId: string; json: string; at: number };
  /**
   * Per written group, the time until which fast-path heartbeats are allowed for it
   * (0 = never: a migration or correction round is open). Required for every group in
   * `groups` that is not deleted.
   */
  fastPathUntil?: Record<string, number>;
  /** Fingerprint for the requesting member; other members' fingerprints of a rewritten group become stale. */
  fastPath?: FastPathWrite;
}

/** Outcome of `commit`. */
export type CommitResult =
  | { ok: true; revision: number }
  | { ok: false; reason: 'conflict' | 'lease-renewed' };

/** Input of the one-round-trip steady-state heartbeat. */
export interface FastHeartbeatRequest {
  prefix: string;
  group: string;
  memberId: string;
  /** Must equal the stored fingerprint key. */
  key: string;
  now: number;
  leaseExpiresAt: number;
  /** Progress JSON to store (replaces the stored progress). */
  progressJson: string;
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
   * CoordinatorError(REDIS_STREAM_PROVISIONING_FAILED) on any other error. Optional while not
   * every Store implements it: without it, a group added mid-migration is not provisioned on
   * removed shards.
   */
  provisionExisting?(streamKey: string, group: string): Promise<boolean>;
}

/**
 * Drain evidence and retirement of removed shards (SPEC §7); each call is one script on the
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
}

/** The Store port. */
export interface Store extends StreamOps, Partial<ShardOps> {
  /** Tries once to take the per-stream mutex with `token` for `ttlMs`. */
  tryLock(prefix: string, token: string, ttlMs: number): Promise<boolean>;
  /** Releases the mutex if it still holds `token` (compare-and-delete). */
  unlock(prefix: string, token: string): Promise<void>;
  /**
   * Reads the stream and the named groups (`'all'` = every group of the stream).
   * Returns null when the stream document does not exist. Throws
   * CoordinatorError(METADATA_CORRUPT) when a stored document exists but cannot be read or
   * misses required fields; never repairs it.
   */
  load(prefix: string, groups: string[] | 'all'): Promise<StreamSnapshot | null>;
  /** Compare-and-set write (see CommitRequest). */
  commit(req: CommitRequest): Promise<CommitResult>;
  /**
   * One-round-trip steady heartbeat: if the member's fingerprint matches `key`, the group is
   * unchanged since it was written, the group's fast-path window is open at `now` and no live
   * member's lease has passed, renews the lease and progress and returns the stored response
   * text. Otherwise returns null and writes nothing.
   */
  fastHeartbeat(req: FastHeartbeatRequest): Promise<string | null>;
  /** Every stream prefix known to this namespace. */
  listStreams(): Promise<string[]>;
  /** Adds a prefix to the listing (idempotent; called before a stream's first commit). */
  registerStream(prefix: string): Promise<void>;
  /** Removes a prefix from the listing (after its stream document is deleted). */
  unregisterStream(prefix: string): Promise<void>;
  /** PING with a short timeout. */
  ping(): Promise<boolean>;
  /** Closes connections the store owns. */
  close(): Promise<void>;
}
