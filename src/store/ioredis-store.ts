/**
 * The Store on ioredis: Node, standalone Redis or Redis Cluster. All coordinator keys of a
 * stream share one hash tag, so every script runs on one node; `K:streams` and shard streams
 * live in other slots and get their own commands.
 */
import { Cluster, Redis } from 'ioredis';
import { CoordinatorError, isCoordinatorError } from '../core/errors.js';
import { ioredisScriptRunner } from './ioredis-script.js';
import { streamsIndexKey, tokenSecretKey } from './keys.js';
import { readMaxmemoryPolicy } from './maxmemory-policy.js';
import { runScript, type ScriptRunner } from './run-script.js';
import { ScriptStore } from './script-store.js';
import type { ScriptCall } from './scripts/commit-args.js';
import type { LuaScript } from './scripts/lua-script.js';
import type { PingOutcome, ShardOps, Store } from './store.js';

/** Options of IoredisStore. */
export interface IoredisStoreOptions {
  /** Key namespace `K` (config `keyPrefix`). */
  namespace: string;
  /** Whether `close()` quits the client. @default false */
  ownsClient?: boolean;
  /** How long `ping()` waits before answering false. @default 1000 */
  pingTimeoutMs?: number;
  /**
   * Called once per Redis call the store makes (a script run counts once, even when it had to be
   * loaded first: that happens once per node); the sweep budgets its round trips with it. @default no-op
   */
  onRequest?: () => void;
}

/** Connection settings of `createIoredisClient`. */
export interface IoredisClientOptions {
  /** `redis://` or `rediss://` URL of a standalone server (ignored when `clusterNodes` is set). */
  url?: string;
  /** `host:port` seeds; when non-empty the client runs in Cluster mode. */
  clusterNodes?: string[];
  /**
   * Longest wait for one reply, ms (ioredis `commandTimeout`, counted from when the command is
   * issued, so a wait in the offline queue counts too). A Redis that keeps the connection open but
   * stops answering (SIGSTOP, a stalled host) would otherwise hold a request forever; the command
   * then fails like a lost reply and answers 503 REDIS_UNAVAILABLE. Never below the longest command
   * the coordinator sends: it sends no blocking ones. @default 5000
   */
  commandTimeoutMs?: number;
}

/** Default of `IoredisClientOptions.commandTimeoutMs` (and of COORDINATOR_REDIS_COMMAND_TIMEOUT_MS). */
const DEFAULT_COMMAND_TIMEOUT_MS = 5000;

/**
 * Delay before reconnect attempt `times` (1-based), ms. ioredis's default grows to 5 s (Cluster:
 * 2 s), so after a long outage the instance would find Redis back only seconds later, and a
 * command waiting out `maxRetriesPerRequest` reconnects would hang as long. Capped at 500 ms,
 * readiness turns UP within a second of Redis returning (≤ 500 ms to reconnect, then the 250 ms
 * readiness cache); the cost is one TCP connect attempt per 500 ms per connection while down.
 */
function reconnectDelayMs(times: number): number {
  return Math.min(times * 50, 500);
}

// RESP2 keeps raw replies (XINFO, script tables) in one shape; few retries so a dead Redis
// turns into a quick 503 instead of a hanging request. Commands issued in the same tick leave in
// one socket write (auto-pipelining): under load, many heartbeats' scripts share a syscall.
const CONNECTION_DEFAULTS = {
  protocol: 2,
  maxRetriesPerRequest: 2,
  connectTimeout: 5000,
  enableAutoPipelining: true,
  retryStrategy: reconnectDelayMs,
} as const;

/** Creates the ioredis client the Node service uses (standalone or Cluster). */
export function createIoredisClient(opts: IoredisClientOptions): Redis | Cluster {
  const commandTimeout = opts.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  if (opts.clusterNodes && opts.clusterNodes.length > 0) {
    const nodes = opts.clusterNodes.map((hp) => {
      const i = hp.lastIndexOf(':');
      return { host: hp.slice(0, i), port: Number(hp.slice(i + 1)) };
    });
    const { enableAutoPipelining, retryStrategy, ...redisOptions } = CONNECTION_DEFAULTS;
    return new Cluster(nodes, {
      enableAutoPipelining,
      clusterRetryStrategy: retryStrategy,
      redisOptions: { ...redisOptions, commandTimeout },
    });
  }
  return new Redis(opts.url ?? 'redis://127.0.0.1:6379', { ...CONNECTION_DEFAULTS, commandTimeout });
}

// Redis answers with these while it cannot serve (failover, loading, busy script, resharding).
const TRANSIENT_REPLY = /^(LOADING|READONLY|CLUSTERDOWN|TRYAGAIN|MASTERDOWN|BUSY|MOVED|ASK|OOM)\b/;
// A wrong or missing password: ioredis's AUTH at connect fails, and it rejects every queued
// command with that reply (then reconnects and tries again).
const AUTH_REPLY = /^(WRONGPASS|NOAUTH)\b/;
/** What an authentication failure answers (503: a deployment problem, fixed by configuration). */
const CREDENTIALS_REFUSED = 'Redis refused the configured credentials (check the password of REDIS_URL)';

const isReply = (err: unknown): err is Error => err instanceof Error && err.name === 'ReplyError';

/** Maps a failed Redis call to a CoordinatorError without leaking connection details. */
function redisFailure(err: unknown): CoordinatorError {
  if (isCoordinatorError(err)) return err;
  if (isReply(err) && AUTH_REPLY.test(err.message)) {
    return new CoordinatorError('REDIS_UNAVAILABLE', CREDENTIALS_REFUSED, { cause: err });
  }
  if (isReply(err) && err.message.startsWith('NOPERM')) {
    return new CoordinatorError(
      'REDIS_UNAVAILABLE',
      'Redis refused a coordinator command to the configured user (NOPERM: check its ACL)',
      { cause: err },
    );
  }
  if (isReply(err) && !TRANSIENT_REPLY.test(err.message)) {
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
  if (err instanceof Error && err.message === COMMAND_TIMED_OUT) {
    // The command may still have run: a commit is then in doubt, as after a lost reply.
    return new CoordinatorError('REDIS_UNAVAILABLE', 'Redis did not answer in time', { cause: err });
  }
  return new CoordinatorError('REDIS_UNAVAILABLE', 'Redis is unavailable', { cause: err });
}

/** What ioredis rejects a command with once `commandTimeout` has passed. */
const COMMAND_TIMED_OUT = 'Command timed out';

/** Store implementation over one ioredis client (standalone or Cluster). */
export class IoredisStore extends ScriptStore implements Store, Required<ShardOps> {
  private readonly client: Redis | Cluster;
  protected readonly ns: string;
  protected readonly oneSlot: boolean;
  private readonly ownsClient: boolean;
  private readonly pingTimeoutMs: number;
  private readonly onRequest: () => void;
  private readonly scripts: ScriptRunner;
  private lastPingError = 'unreachable';

  constructor(client: Redis | Cluster, options: IoredisStoreOptions) {
    super();
    this.client = client;
    this.ns = options.namespace;
    this.oneSlot = !(client instanceof Cluster);
    this.ownsClient = options.ownsClient ?? false;
    this.pingTimeoutMs = options.pingTimeoutMs ?? 1000;
    this.onRequest = options.onRequest ?? (() => undefined);
    this.scripts = ioredisScriptRunner(client);
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    this.onRequest();
    try {
      return await fn();
    } catch (err) {
      throw redisFailure(err);
    }
  }

  protected script(script: LuaScript, c: ScriptCall): Promise<unknown> {
    return this.call(() => runScript(this.scripts, script, c.keys, c.args));
  }

  protected failure(err: unknown): CoordinatorError {
    return redisFailure(err);
  }

  async listStreams(): Promise<string[]> {
    const members = await this.call(() => this.client.smembers(streamsIndexKey(this.ns)));
    return members.sort();
  }

  async unregisterStream(prefix: string): Promise<void> {
    await this.call(() => this.client.srem(streamsIndexKey(this.ns), prefix));
  }

  async tokenSecret(candidate: string): Promise<string> {
    const key = tokenSecretKey(this.ns);
    // NX: the first instance's candidate wins; everyone then reads the winner.
    await this.call(() => this.client.set(key, candidate, 'NX'));
    const stored = await this.call(() => this.client.get(key));
    if (typeof stored !== 'string' || stored === '')
      throw this.failure(new Error('token secret missing after SET NX'));
    return stored;
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
    return (await this.pingOutcome()).ok;
  }

  async pingOutcome(): Promise<PingOutcome> {
    // Between reconnect attempts a PING would only wait in the offline queue: answer at once,
    // with the reason the last attempt failed (a refused password stays "credentials refused").
    if (this.client.status === 'reconnecting' || this.client.status === 'end') {
      return { ok: false, error: this.lastPingError };
    }
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
      this.onRequest();
      const reply = await Promise.race([this.client.ping(), timeout]);
      return reply === 'PONG' ? { ok: true } : { ok: false, error: 'unexpected PING reply' };
    } catch (err) {
      return { ok: false, error: pingError(err) };
    } finally {
      clearTimeout(timer);
    }
  }

  evictionPolicy(): Promise<string | null> {
    const client = this.client;
    return this.call(() =>
      readMaxmemoryPolicy(client instanceof Cluster ? client.nodes('master') : [client]),
    );
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

/** Why a PING failed, as a fixed phrase (never the reply text: it may name users or hosts). */
function pingError(err: unknown): string {
  if (!isReply(err)) return 'unreachable';
  if (AUTH_REPLY.test(err.message)) return 'credentials refused';
  if (err.message.startsWith('NOPERM')) return 'permission denied';
  const word = TRANSIENT_REPLY.exec(err.message)?.[1];
  return word ? `not serving (${word})` : 'error reply';
}
