/**
 * The Store on ioredis: Node, standalone Redis or Redis Cluster. All coordinator keys of a
 * stream share one hash tag, so every script runs on one node; `K:streams` and shard streams
 * live in other slots and get their own commands.
 */
import { Cluster, Redis } from 'ioredis';
import { CoordinatorError, isCoordinatorError } from '../core/errors.js';
import { streamsIndexKey } from './keys.js';
import { runScript } from './run-script.js';
import { ScriptStore } from './script-store.js';
import type { ScriptCall } from './scripts/commit-args.js';
import type { LuaScript } from './scripts/lua-script.js';
import type { ShardOps, Store } from './store.js';

/** Options of IoredisStore. */
export interface IoredisStoreOptions {
  /** Key namespace `K` (config `keyPrefix`). */
  namespace: string;
  /** Whether `close()` quits the client. @default false */
  ownsClient?: boolean;
  /** How long `ping()` waits before answering false. @default 1000 */
  pingTimeoutMs?: number;
}

/** Connection settings of `createIoredisClient`. */
export interface IoredisClientOptions {
  /** `redis://` or `rediss://` URL of a standalone server (ignored when `clusterNodes` is set). */
  url?: string;
  /** `host:port` seeds; when non-empty the client runs in Cluster mode. */
  clusterNodes?: string[];
}

// RESP2 keeps raw replies (XINFO, script tables) in one shape; few retries so a dead Redis
// turns into a quick 503 instead of a hanging request. Commands issued in the same tick leave in
// one socket write (auto-pipelining): under load, many heartbeats' scripts share a syscall.
const CONNECTION_DEFAULTS = {
  protocol: 2,
  maxRetriesPerRequest: 2,
  connectTimeout: 5000,
  enableAutoPipelining: true,
} as const;

/** Creates the ioredis client the Node service uses (standalone or Cluster). */
export function createIoredisClient(opts: IoredisClientOptions): Redis | Cluster {
  if (opts.clusterNodes && opts.clusterNodes.length > 0) {
    const nodes = opts.clusterNodes.map((hp) => {
      const i = hp.lastIndexOf(':');
      return { host: hp.slice(0, i), port: Number(hp.slice(i + 1)) };
    });
    const { enableAutoPipelining, ...redisOptions } = CONNECTION_DEFAULTS;
    return new Cluster(nodes, { enableAutoPipelining, redisOptions });
  }
  return new Redis(opts.url ?? 'redis://127.0.0.1:6379', { ...CONNECTION_DEFAULTS });
}

// Redis answers with these while it cannot serve (failover, loading, busy script, resharding).
const TRANSIENT_REPLY = /^(LOADING|READONLY|CLUSTERDOWN|TRYAGAIN|MASTERDOWN|BUSY|MOVED|ASK|OOM)\b/;

/** Maps a failed Redis call to a CoordinatorError without leaking connection details. */
function redisFailure(err: unknown): CoordinatorError {
  if (isCoordinatorError(err)) return err;
  if (err instanceof Error && err.name === 'ReplyError' && !TRANSIENT_REPLY.test(err.message)) {
    if (err.message.startsWith('WRONGTYPE')) {
      return new CoordinatorError('METADATA_CORRUPT', 'stored metadata has an unexpected Redis type', {
        cause: err,
      });
    }
    const first = err.message.split('\n')[0] ?? '';
    return new CoordinatorError('INTERNAL_ERROR', `Redis rejected a coordinator command: ${first}`, {
      cause: err,
    });
  }
  return new CoordinatorError('REDIS_UNAVAILABLE', 'Redis is unavailable', { cause: err });
}

/** Store implementation over one ioredis client (standalone or Cluster). */
export class IoredisStore extends ScriptStore implements Store, Required<ShardOps> {
  private readonly client: Redis | Cluster;
  protected readonly ns: string;
  private readonly ownsClient: boolean;
  private readonly pingTimeoutMs: number;

  constructor(client: Redis | Cluster, options: IoredisStoreOptions) {
    super();
    this.client = client;
    this.ns = options.namespace;
    this.ownsClient = options.ownsClient ?? false;
    this.pingTimeoutMs = options.pingTimeoutMs ?? 1000;
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw redisFailure(err);
    }
  }

  protected script(script: LuaScript, c: ScriptCall): Promise<unknown> {
    return this.call(() => runScript(this.client, script, c.keys, c.args));
  }

  protected failure(err: unknown): CoordinatorError {
    return redisFailure(err);
  }

  protected async deleteKeys(keys: string[]): Promise<void> {
    await this.call(() => this.client.del(...keys));
  }

  async listStreams(): Promise<string[]> {
    const members = await this.call(() => this.client.smembers(streamsIndexKey(this.ns)));
    return members.sort();
  }

  async registerStream(prefix: string): Promise<void> {
    await this.call(() => this.client.sadd(streamsIndexKey(this.ns), prefix));
  }

  async unregisterStream(prefix: string): Promise<void> {
    await this.call(() => this.client.srem(streamsIndexKey(this.ns), prefix));
  }

  async countExisting(keys: string[]): Promise<number> {
    if (keys.length === 0) return 0;
    const client = this.client;
    if (client instanceof Cluster) {
      // Keys may sit in different slots; one EXISTS each, sent concurrently.
      const counts = await this.call(() => Promise.all(keys.map((k) => client.exists(k))));
      return counts.reduce((a, b) => a + b, 0);
    }
    return this.call(() => client.exists(...keys));
  }

  async ping(): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('ping timed out')), this.pingTimeoutMs);
    });
    try {
      return (await Promise.race([this.client.ping(), timeout])) === 'PONG';
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    if (!this.ownsClient) return;
    try {
      await this.client.quit();
    } catch {
      this.client.disconnect();
    }
  }
}
