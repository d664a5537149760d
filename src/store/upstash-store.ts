/**
 * The Store on @upstash/redis (Redis over HTTPS), for Cloudflare Workers. Same Lua scripts,
 * same argument encoders and reply decoders as the ioredis store; every call is one REST
 * request (two on a NOSCRIPT fallback), counted through `onRequest` so the Worker can budget
 * its subrequests. Imports neither ioredis nor any `node:` module.
 *
 * Reply differences handled here: with base64 response encoding the client hands back every
 * string already decoded (UTF-8) and integers as numbers, which is what the shared decoders
 * accept. Status replies are not compared by text ("OK", "PONG"): the REST endpoint may send
 * them un-encoded, and the client would then base64-decode them into garbage.
 */
import type { RetireOutcome, ShardReading } from '../core/drain-evidence.js';
import { CoordinatorError } from '../core/errors.js';
import { streamKeys, streamsIndexKey, sweepCursorKey } from './keys.js';
import { COMMIT } from './scripts/commit.js';
import { decodeCommitReply, encodeCommit, type ScriptCall } from './scripts/commit-args.js';
import { FAST_HEARTBEAT } from './scripts/fast-heartbeat.js';
import { decodeFastHeartbeatReply, encodeFastHeartbeat } from './scripts/fast-heartbeat-args.js';
import { LOAD } from './scripts/load.js';
import { decodeLoadReply, encodeLoad } from './scripts/load-reply.js';
import type { LuaScript } from './scripts/lua-script.js';
import { PROVISION } from './scripts/provision.js';
import { PROVISION_EXISTING } from './scripts/provision-existing.js';
import { RELEASE_LOCK } from './scripts/release-lock.js';
import { RETIRE_SHARD } from './scripts/retire-shard.js';
import { decodeProvisionExisting, decodeRetireReply, decodeShardReading } from './scripts/shard-args.js';
import { SHARD_EVIDENCE } from './scripts/shard-evidence.js';
import type {
  CommitRequest,
  CommitResult,
  FastHeartbeatRequest,
  ShardOps,
  Store,
  StreamSnapshot,
} from './store.js';
import type { UpstashCommands } from './upstash-client.js';
import { upstashFailure } from './upstash-errors.js';
import { runUpstashScript } from './upstash-script.js';

/** Options of UpstashStore. */
export interface UpstashStoreOptions {
  /** Key namespace `K` (config `keyPrefix`). */
  namespace: string;
  /** Called once per REST request (each one is a Worker subrequest). @default no-op */
  onRequest?: () => void;
  /** How long `ping()` waits before answering false. @default 1000 */
  pingTimeoutMs?: number;
}

/** Store implementation over one @upstash/redis client. */
export class UpstashStore implements Store, Required<ShardOps> {
  private readonly client: UpstashCommands;
  private readonly ns: string;
  private readonly onRequest: () => void;
  private readonly pingTimeoutMs: number;

  constructor(client: UpstashCommands, options: UpstashStoreOptions) {
    this.client = client;
    this.ns = options.namespace;
    this.onRequest = options.onRequest ?? (() => undefined);
    this.pingTimeoutMs = options.pingTimeoutMs ?? 1000;
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    this.onRequest();
    try {
      return await fn();
    } catch (err) {
      throw upstashFailure(err);
    }
  }

  private async script(script: LuaScript, c: ScriptCall): Promise<unknown> {
    try {
      return await runUpstashScript(this.client, script, c.keys, c.args, this.onRequest);
    } catch (err) {
      throw upstashFailure(err);
    }
  }

  async tryLock(prefix: string, token: string, ttlMs: number): Promise<boolean> {
    const key = streamKeys(this.ns, prefix).lock;
    const px = Math.max(1, Math.floor(ttlMs));
    // NX answers nil when the lock is taken, a status reply when it was set.
    const r = await this.call(() => this.client.set(key, token, { nx: true, px }));
    return r !== null && r !== undefined;
  }

  async unlock(prefix: string, token: string): Promise<void> {
    await this.script(RELEASE_LOCK, { keys: [streamKeys(this.ns, prefix).lock], args: [token] });
  }

  async load(prefix: string, groups: string[] | 'all'): Promise<StreamSnapshot | null> {
    const reply = await this.script(LOAD, encodeLoad(this.ns, prefix, groups));
    return decodeLoadReply(prefix, reply, groups);
  }

  async commit(req: CommitRequest): Promise<CommitResult> {
    const c = encodeCommit(this.ns, req);
    return decodeCommitReply(await this.script(COMMIT, c));
  }

  async fastHeartbeat(req: FastHeartbeatRequest): Promise<string | null> {
    return decodeFastHeartbeatReply(await this.script(FAST_HEARTBEAT, encodeFastHeartbeat(this.ns, req)));
  }

  async listStreams(): Promise<string[]> {
    const members = await this.call(() => this.client.smembers<string[]>(streamsIndexKey(this.ns)));
    return (Array.isArray(members) ? members.map(String) : []).sort();
  }

  async registerStream(prefix: string): Promise<void> {
    await this.call(() => this.client.sadd(streamsIndexKey(this.ns), prefix));
  }

  async unregisterStream(prefix: string): Promise<void> {
    await this.call(() => this.client.srem(streamsIndexKey(this.ns), prefix));
  }

  async provision(streamKey: string, group: string): Promise<void> {
    const reply = await this.script(PROVISION, { keys: [streamKey], args: [group] });
    const [code, text] = Array.isArray(reply) ? reply : [];
    if (Number(code) === 1 || Number(code) === 2) return;
    throw new CoordinatorError(
      'REDIS_STREAM_PROVISIONING_FAILED',
      `could not create consumer group "${group}" on stream "${streamKey}": ${String(text ?? 'unexpected reply')}`,
    );
  }

  async provisionExisting(streamKey: string, group: string): Promise<boolean> {
    const r = decodeProvisionExisting(
      await this.script(PROVISION_EXISTING, { keys: [streamKey], args: [group] }),
    );
    if (typeof r === 'boolean') return r;
    throw new CoordinatorError(
      'REDIS_STREAM_PROVISIONING_FAILED',
      `could not create consumer group "${group}" on stream "${streamKey}": ${r.error}`,
    );
  }

  async readShard(streamKey: string): Promise<ShardReading> {
    try {
      return decodeShardReading(await this.script(SHARD_EVIDENCE, { keys: [streamKey], args: [] }));
    } catch (err) {
      // Never evidence: a failed read keeps the shard draining.
      return { kind: 'error', message: upstashFailure(err).message };
    }
  }

  async retireShard(streamKey: string, managedGroups: readonly string[]): Promise<RetireOutcome> {
    try {
      return decodeRetireReply(
        await this.script(RETIRE_SHARD, { keys: [streamKey], args: [...managedGroups] }),
      );
    } catch (err) {
      return { kind: 'error', message: upstashFailure(err).message };
    }
  }

  async countExisting(keys: string[]): Promise<number> {
    if (keys.length === 0) return 0;
    // One EXISTS for all keys: Upstash is not slot-partitioned towards the client.
    return Number(await this.call(() => this.client.exists(...keys)));
  }

  async ping(): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('ping timed out')), this.pingTimeoutMs);
    });
    try {
      // Any reply proves reachability; its text is not compared (see the file comment).
      await Promise.race([this.call(() => this.client.ping()), timeout]);
      return true;
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Nothing to close: every call is a stateless HTTPS request. */
  async close(): Promise<void> {}

  // ---- Worker sweep cursor (outside the Store port) ----------------------------------------

  /** The prefix the next cron sweep starts at, or null when none was saved. */
  async readSweepCursor(): Promise<string | null> {
    const v = await this.call(() => this.client.get<string>(sweepCursorKey(this.ns)));
    return typeof v === 'string' && v !== '' ? v : null;
  }

  /** Saves the prefix the next cron sweep starts at. */
  async writeSweepCursor(prefix: string): Promise<void> {
    await this.call(() => this.client.set(sweepCursorKey(this.ns), prefix));
  }
}
