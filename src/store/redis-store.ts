/**
 * The Store over the Redis port, whatever the client (ioredis on Node, standalone or Cluster;
 * @upstash/redis on the Worker): the Lua scripts with their shared argument encoders and reply
 * decoders, and the few plain commands. All coordinator keys of a stream share one hash tag, so
 * every script runs on one node; `K:streams` and shard streams live in other slots and get their
 * own commands. What differs between clients is the port's (src/redis/).
 */
import type { RetireOutcome, ShardReading } from '../core/drain-evidence.js';
import { planDueAt } from '../core/due.js';
import { CoordinatorError } from '../core/errors.js';
import type { HeartbeatOutput } from '../core/heartbeat-types.js';
import type { RedisPort } from '../redis/port.js';
import { DECLARING } from './declaring-scripts.js';
import { type GroupPositions, redisGroupPositions } from './group-positions.js';
import { dueIndexKeys, groupKeys, streamKeys, streamsIndexKey, tokenSecretKey } from './keys.js';
import { readMaxmemoryPolicy } from './maxmemory-policy.js';
import { RedisShardOps } from './redis-shard-ops.js';
import { ACQUIRE_LOCK } from './scripts/acquire-lock.js';
import { COMMIT } from './scripts/commit.js';
import { decodeCommitReply, encodeCommit, type ScriptCall } from './scripts/commit-args.js';
import { DUE_CLAIM, DUE_MARK, DUE_SEED, DUE_SETTLE } from './scripts/due-index.js';
import { ASSIGNMENT_READ, DUE_READ, GROUP_RECORDS, MEMBERS_READ } from './scripts/group-reads.js';
import { LOAD } from './scripts/load.js';
import { decodeLoadReply, encodeLoad, listedInstead } from './scripts/load-replies.js';
import type { LuaScript } from './scripts/lua-script.js';
import { MEMBER_READ } from './scripts/member-read.js';
import {
  decodeAssignmentRead,
  decodeDue,
  decodeGroupRecords,
  decodeMemberRead,
  decodeMembersRead,
  decodeProbe,
  decodeSteadyRead,
  encodeMemberRead,
  encodeSteadyRead,
  groupCall,
} from './scripts/read-replies.js';
import { REGISTER_STREAM } from './scripts/register-stream.js';
import { RELEASE_LOCK } from './scripts/release-lock.js';
import { RENEW_LOCK } from './scripts/renew-lock.js';
import { STEADY_READ } from './scripts/steady-lua.js';
import { STREAM_PROBE } from './scripts/stream-probe.js';
import type {
  AssignmentRead,
  CommitOutcome,
  DueClaim,
  DueRead,
  GroupRecords,
  MemberRead,
  MemberReadRequest,
  MembersRead,
  PingOutcome,
  ShardDeletion,
  ShardOps,
  SteadyReadRequest,
  Store,
  StreamPlan,
  StreamProbe,
  StreamSnapshot,
} from './store.js';
import { pingError, storeFailure } from './store-failure.js';

/** Options of RedisStore. */
export interface RedisStoreOptions {
  /** Key namespace `K` (config `keyPrefix`). */
  namespace: string;
  /** Whether `close()` closes the port's client. @default false */
  ownsClient?: boolean;
  /** How long `ping()` waits before answering false. @default 1000 */
  pingTimeoutMs?: number;
}

/** Prefixes listed in the due index per seeding call. */
const SEED_CHUNK = 500;

/** Reads of every group of a stream before giving up on a list of groups that keeps changing. */
const LOAD_ATTEMPTS = 4;

/** The Store over one Redis port. */
export class RedisStore implements Store, Required<ShardOps> {
  /** The group names each stream listed at its last whole read (a hint the load script checks). */
  private readonly listedGroups = new Map<string, string[]>();
  private readonly port: RedisPort;
  /** Key namespace `K`. */
  private readonly ns: string;
  /**
   * True when one script may touch keys of any slot (standalone Redis, Upstash): the commit then
   * marks the due index itself. On a Cluster the due index has a slot of its own.
   */
  private readonly oneSlot: boolean;
  private readonly ownsClient: boolean;
  private readonly pingTimeoutMs: number;
  private lastPingError = 'unreachable';
  /** Redis' `maxmemory-policy`, where the port can send INFO (not on Upstash). */
  readonly evictionPolicy?: () => Promise<string | null>;
  /** Consumer-group positions on shard streams (the offsets reset). */
  readonly positions: GroupPositions;
  private readonly shards: RedisShardOps;

  constructor(port: RedisPort, options: RedisStoreOptions) {
    this.port = port;
    this.ns = options.namespace;
    this.oneSlot = port.oneSlot;
    this.ownsClient = options.ownsClient ?? false;
    this.pingTimeoutMs = options.pingTimeoutMs ?? 1000;
    this.positions = redisGroupPositions(port, (err) => this.failure(err));
    this.shards = new RedisShardOps(
      (script, c) => this.script(script, c),
      (err) => this.failure(err),
    );
    const info = port.infoOfMasters?.bind(port);
    if (info) {
      // On a Cluster every master is asked and the riskiest policy wins.
      this.evictionPolicy = () =>
        this.call(async () =>
          readMaxmemoryPolicy((await info('memory')).map((text) => ({ info: async () => text }))),
        );
    }
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw this.failure(err);
    }
  }

  /** Runs `script` (EVALSHA with NOSCRIPT fallback), mapping failures to CoordinatorError. */
  protected script(script: LuaScript, c: ScriptCall): Promise<unknown> {
    return this.call(() =>
      this.port.runScript(this.port.scriptAs(script, DECLARING.has(script)), c.keys, c.args),
    );
  }

  /** Maps a client failure to a CoordinatorError without connection details. */
  protected failure(err: unknown): CoordinatorError {
    return storeFailure(this.port, err);
  }

  async listStreams(): Promise<string[]> {
    return (await this.call(() => this.port.smembers(streamsIndexKey(this.ns)))).sort();
  }

  async unregisterStream(prefix: string): Promise<void> {
    await this.call(() => this.port.srem(streamsIndexKey(this.ns), prefix));
  }

  async tokenSecret(candidate: string): Promise<string> {
    const key = tokenSecretKey(this.ns);
    // NX: the first instance's candidate wins; everyone then reads the winner.
    await this.call(() => this.port.setNx(key, candidate));
    const stored = await this.call(() => this.port.get(key));
    if (typeof stored !== 'string' || stored === '')
      throw this.failure(new Error('token secret missing after SET NX'));
    return stored;
  }

  countExisting(keys: string[]): Promise<number> {
    return this.call(() => this.port.exists(keys));
  }

  async ping(): Promise<boolean> {
    return (await this.pingOutcome()).ok;
  }

  async pingOutcome(): Promise<PingOutcome> {
    // Between reconnect attempts a PING would only wait in the offline queue: answer at once,
    // with the reason the last attempt failed (a refused password stays "credentials refused").
    if (this.port.offline?.()) return { ok: false, error: this.lastPingError };
    const outcome = await this.timedPing();
    this.lastPingError = outcome.ok ? 'unreachable' : outcome.error;
    return outcome;
  }

  private async timedPing(): Promise<PingOutcome> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('ping timed out')), this.pingTimeoutMs);
    });
    try {
      const pong = await Promise.race([this.port.ping(), timeout]);
      return pong ? { ok: true } : { ok: false, error: 'unexpected PING reply' };
    } catch (err) {
      return { ok: false, error: pingError(this.port, err) };
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    if (this.ownsClient) await this.port.close?.();
  }

  private lockKey(prefix: string, group?: string): string {
    return group === undefined
      ? streamKeys(this.ns, prefix).lock
      : groupKeys(this.ns, prefix, group).assignLock;
  }

  /** Takes (or renews, when it holds `token` already) the stream mutex or a group's assignment lock. */
  async tryLock(prefix: string, token: string, ttlMs: number, group?: string): Promise<boolean> {
    const ttl = String(Math.max(1, Math.floor(ttlMs)));
    const reply = await this.script(ACQUIRE_LOCK, {
      keys: [this.lockKey(prefix, group)],
      args: [token, ttl],
    });
    return Number(reply) === 1;
  }

  /** Extends the lock only while it holds `token` (never takes it again once lost). */
  async renewLock(prefix: string, token: string, ttlMs: number, group?: string): Promise<boolean> {
    const ttl = String(Math.max(1, Math.floor(ttlMs)));
    const reply = await this.script(RENEW_LOCK, { keys: [this.lockKey(prefix, group)], args: [token, ttl] });
    return Number(reply) === 1;
  }

  /** Releases the lock if it still holds `token` (compare-and-delete). */
  async unlock(prefix: string, token: string, group?: string): Promise<void> {
    await this.script(RELEASE_LOCK, { keys: [this.lockKey(prefix, group)], args: [token] });
  }

  /** One-round-trip consistent whole read of a stream and its groups. */
  async load(prefix: string, groups: string[] | 'all'): Promise<StreamSnapshot | null> {
    if (groups !== 'all') {
      return decodeLoadReply(
        prefix,
        await this.script(LOAD, encodeLoad(this.ns, prefix, 'named', groups)),
        groups,
      );
    }
    // Every key a script touches is declared, so reading every group needs their names first:
    // the last list seen, corrected by the script when the stream lists others now.
    let names = this.listedGroups.get(prefix) ?? [];
    for (let attempt = 1; attempt <= LOAD_ATTEMPTS; attempt++) {
      const reply = await this.script(LOAD, encodeLoad(this.ns, prefix, 'all', names));
      const listed = listedInstead(reply);
      if (listed === null) return decodeLoadReply(prefix, reply, 'all');
      names = listed;
      this.listedGroups.set(prefix, listed);
    }
    throw new CoordinatorError(
      'STATE_VERSION_CONFLICT',
      `the groups of stream "${prefix}" kept changing while it was read`,
    );
  }

  /** A heartbeat's read of its group, or the fast-path answer. */
  async readMember(req: MemberReadRequest): Promise<MemberRead> {
    return decodeMemberRead(req, await this.script(MEMBER_READ, encodeMemberRead(this.ns, req)));
  }

  /** The fast path of a batch's members in one call. */
  async readSteady(req: SteadyReadRequest): Promise<Array<HeartbeatOutput | null>> {
    if (req.members.length === 0) return [];
    return decodeSteadyRead(req, await this.script(STEADY_READ, encodeSteadyRead(this.ns, req)));
  }

  /** An assignment round's read. */
  async readAssignment(
    prefix: string,
    group: string,
    now: number,
    token: string,
    lockMs: number,
  ): Promise<AssignmentRead | 'busy' | null> {
    const args = [String(Math.floor(now)), token, String(Math.max(1, Math.floor(lockMs)))];
    const reply = await this.script(ASSIGNMENT_READ, groupCall(this.ns, prefix, group, args));
    return decodeAssignmentRead(prefix, group, reply);
  }

  /** Records of the named members. */
  async readMembers(
    prefix: string,
    group: string,
    memberIds: readonly string[],
  ): Promise<MembersRead | null> {
    const reply = await this.script(MEMBERS_READ, groupCall(this.ns, prefix, group, [...memberIds]));
    return decodeMembersRead(prefix, group, memberIds, reply);
  }

  /** Every record of a group, whatever its indexes hold (what a rebuild starts from). */
  async readGroupRecords(prefix: string, group: string): Promise<GroupRecords | null> {
    const reply = await this.script(GROUP_RECORDS, groupCall(this.ns, prefix, group, []));
    return decodeGroupRecords(prefix, group, reply);
  }

  /** Members of a group due for maintenance. */
  async readDue(prefix: string, group: string, now: number, max: number): Promise<DueRead | null> {
    const reply = await this.script(
      DUE_READ,
      groupCall(this.ns, prefix, group, [String(Math.floor(now)), String(max)]),
    );
    return decodeDue(prefix, group, reply);
  }

  /** What is due in each group of the stream. */
  async probeStream(prefix: string, now: number): Promise<StreamProbe | null> {
    const reply = await this.script(STREAM_PROBE, {
      keys: [streamKeys(this.ns, prefix).stream],
      args: [String(Math.floor(now))],
    });
    return decodeProbe(prefix, reply);
  }

  /**
   * One checked, atomic commit, and the due index knows of the time-driven work it creates: in
   * the same script where every key shares one slot, else by a mark sent first (early is
   * harmless, late would lose work).
   */
  async commit(plan: StreamPlan): Promise<CommitOutcome> {
    const due = planDueAt(plan);
    if (due !== null && this.oneSlot) {
      const reply = await this.script(COMMIT, encodeCommit(this.ns, plan, { at: due }));
      return decodeCommitReply(reply, plan);
    }
    if (due !== null) {
      const k = dueIndexKeys(this.ns);
      await this.script(DUE_MARK, {
        keys: [k.at, k.claims, k.late],
        args: [plan.prefix, String(Math.floor(due))],
      });
    }
    return decodeCommitReply(await this.script(COMMIT, encodeCommit(this.ns, plan)), plan);
  }

  /** Claims the streams due at `now` until `until`; null while the due index is not complete. */
  async claimDue(now: number, until: number, max: number): Promise<DueClaim | null> {
    const k = dueIndexKeys(this.ns);
    const reply = await this.script(DUE_CLAIM, {
      keys: [k.at, k.claims],
      args: [String(Math.floor(now)), String(Math.floor(until)), String(Math.max(0, Math.floor(max)))],
    });
    const [code, prefixes, backlog] = Array.isArray(reply) ? reply : [];
    if (Number(code) !== 1) return null;
    return { prefixes: (Array.isArray(prefixes) ? prefixes : []).map(String), backlog: Number(backlog) };
  }

  /** Ends the claim taken `until` on `prefix` with its next due time (null: nothing due). */
  async settleDue(prefix: string, until: number, next: number | null): Promise<void> {
    const k = dueIndexKeys(this.ns);
    await this.script(DUE_SETTLE, {
      keys: [k.at, k.claims, k.late],
      args: [prefix, next === null ? '' : String(Math.floor(next)), String(Math.floor(until))],
    });
  }

  /** Lists `prefixes` as due at `at`, SEED_CHUNK at a time, then marks the due index complete. */
  async seedDue(prefixes: readonly string[], at: number): Promise<void> {
    const k = dueIndexKeys(this.ns);
    let from = 0;
    do {
      const chunk = prefixes.slice(from, from + SEED_CHUNK);
      from += SEED_CHUNK;
      const last = from >= prefixes.length ? '1' : '0';
      await this.script(DUE_SEED, { keys: [k.at], args: [String(Math.floor(at)), last, ...chunk] });
    } while (from < prefixes.length);
  }

  /** Lists `prefix` in the streams index unless it holds `limit` others already (0 = no limit). */
  async registerStream(prefix: string, limit = 0): Promise<boolean> {
    const reply = await this.script(REGISTER_STREAM, {
      keys: [streamsIndexKey(this.ns)],
      args: [prefix, String(Math.max(0, Math.floor(limit)))],
    });
    return Number(reply) === 1;
  }

  /** Creates `group` on `streamKey` at the tail (BUSYGROUP is success). */
  provision(streamKey: string, group: string): Promise<void> {
    return this.shards.provision(streamKey, group);
  }

  /** Creates `group` on `streamKey` only if the key exists; false when it does not. */
  provisionExisting(streamKey: string, group: string): Promise<boolean> {
    return this.shards.provisionExisting(streamKey, group);
  }

  /** Drain evidence of one shard; a failed read is never evidence. */
  readShard(streamKey: string): Promise<ShardReading> {
    return this.shards.readShard(streamKey);
  }

  /** Re-checks the evidence and deletes the shard key in one script. */
  retireShard(streamKey: string, managedGroups: readonly string[]): Promise<RetireOutcome> {
    return this.shards.retireShard(streamKey, managedGroups);
  }

  /** Deletes the shard key whatever it holds, if it is a stream (a forced stream delete), and its side keys. */
  deleteShard(streamKey: string): Promise<ShardDeletion> {
    return this.shards.deleteShard(streamKey);
  }

  /** Deletes the keys kept beside a shard whose stream key is gone (`streamKept`: its tokens only); false while the key exists. */
  clearShardKeys(streamKey: string, streamKept = false): Promise<boolean> {
    return this.shards.clearShardKeys(streamKey, streamKept);
  }
}
