/**
 * The Redis port over ioredis: a standalone `Redis` or a `Cluster` (Node). What only ioredis
 * knows lives here: an error reply is a `ReplyError`, a Cluster keeps one script cache per node
 * and wants each multi-key command, script and pipeline within one slot, the connection's status
 * says when it is between reconnects, and server-wide commands (CLUSTER SLOTS, INFO of every
 * master) can be sent.
 */
import { Cluster, Redis } from 'ioredis';
import { runScript, type ScriptRunner } from '../store/run-script.js';
import type { PipelineReply, RedisPipeline, RedisPort, Refusal } from './port.js';
import { firstLine, xaddArguments } from './replies.js';

/** An ioredis client: standalone or Cluster. */
export type IoredisClient = Redis | Cluster;

/** Connection settings of `createIoredisClient`. */
interface IoredisClientOptions {
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

/** Calls `listener` with every connection error of `client` (on a Cluster, its nodes' too). */
export function onConnectionErrors(client: IoredisClient, listener: (err: unknown) => void): void {
  client.on('error', listener);
  if (client.isCluster) (client as Cluster).on('node error', listener);
}

/**
 * `INFO section` of every master of `cluster`. Until it has learned the roles a new Cluster client
 * takes every seed for a master and drops some connections once it knows: asked again then.
 */
async function clusterInfo(cluster: Cluster, section: string): Promise<string[]> {
  const masters = cluster.nodes('master');
  try {
    return await Promise.all(masters.map((n) => n.info(section)));
  } catch (err) {
    const now = cluster.nodes('master');
    if (now.length === masters.length && now.every((n, i) => n === masters[i])) throw err;
    return Promise.all(now.map((n) => n.info(section)));
  }
}

/** A new client with `client`'s settings (a blocked connection serves nobody else). */
export function duplicateClient(client: IoredisClient): IoredisClient {
  return client.isCluster ? (client as Cluster).duplicate() : (client as Redis).duplicate();
}

/** Options of `ioredisPort`. */
export interface IoredisPortOptions {
  /**
   * Called once per command the port sends (a script run counts once, even when it had to be
   * loaded first: that happens once per node). @default no-op
   */
  onRequest?: () => void;
}

/** The runner of `client`: ioredis takes the key count and then keys and arguments flat. */
export function ioredisScriptRunner(client: Pick<IoredisClient, 'evalsha' | 'eval'>): ScriptRunner {
  return {
    evalsha: (sha1, keys, args) => client.evalsha(sha1, keys.length, ...keys, ...args),
    eval: (lua, keys, args) => client.eval(lua, keys.length, ...keys, ...args),
    replyText: ioredisReplyText,
  };
}

/** ioredis names an error reply `ReplyError` (in a pipeline's replies too); anything else got no reply. */
function ioredisReplyText(err: unknown): string | null {
  return err instanceof Error && err.name === 'ReplyError' ? firstLine(err.message) : null;
}

/** What ioredis rejects a command with once `commandTimeout` has passed. */
const COMMAND_TIMED_OUT = 'Command timed out';

// A wrong or missing password: ioredis's AUTH at connect fails, and it rejects every queued
// command with that reply (then reconnects and tries again).
const AUTH_REPLY = /^(WRONGPASS|NOAUTH)\b/;

const CREDENTIALS_REFUSED: Refusal = {
  message: 'Redis refused the configured credentials (check the password of REDIS_URL)',
  phrase: 'credentials refused',
};
const PERMISSION_REFUSED: Refusal = {
  message: 'Redis refused a coordinator command to the configured user (NOPERM: check its ACL)',
  phrase: 'permission denied',
};

/** A new pipeline of `client`: ioredis takes a script's key count, then keys and arguments flat. */
function pipelineOf(client: IoredisClient): RedisPipeline {
  const p = client.pipeline();
  return {
    scriptLoad: (lua) => void p.script('LOAD', lua),
    evalsha: (sha1, keys, args) => void p.evalsha(sha1, keys.length, ...keys, ...args),
    eval: (lua, keys, args) => void p.eval(lua, keys.length, ...keys, ...args),
    xadd: (w) => void p.xadd(w.key, ...xaddArguments(w)),
    exec: async () => ((await p.exec()) ?? []) as PipelineReply[],
  };
}

/** The port over `client` (the caller keeps owning it; `close()` quits it). */
export function ioredisPort(client: IoredisClient, opts: IoredisPortOptions = {}): RedisPort {
  const onRequest = opts.onRequest ?? (() => undefined);
  const cluster = client.isCluster;
  const scripts = ioredisScriptRunner(client);
  const counted = <T>(fn: () => Promise<T>): Promise<T> => {
    onRequest();
    return fn();
  };
  const port: RedisPort = {
    label: 'Redis',
    oneSlot: !cluster,
    // A script holds up every other client of its node while it runs: a few keys at a time.
    keysPerScript: cluster ? 1 : 16,
    replyText: ioredisReplyText,
    timedOut: (err) => err instanceof Error && err.message === COMMAND_TIMED_OUT,
    refusal(text) {
      if (AUTH_REPLY.test(text)) return CREDENTIALS_REFUSED;
      return text.startsWith('NOPERM') ? PERMISSION_REFUSED : null;
    },
    // Key locking is Upstash's: Redis runs every script alone.
    scriptAs: (script) => script,
    runScript: (script, keys, args) => counted(() => runScript(scripts, script, keys, args)),
    // Every node of a Cluster keeps its own script cache: the key stands for its node.
    scriptCacheOf: (key) => (cluster ? key : ''),
    pipeline: () => pipelineOf(client),
    get: (key) => counted(() => client.get(key)),
    setNx: (key, value) => counted(async () => void (await client.set(key, value, 'NX'))),
    smembers: (key) => counted(() => client.smembers(key)),
    srem: (key, member) => counted(async () => void (await client.srem(key, member))),
    exists(keys) {
      if (keys.length === 0) return Promise.resolve(0);
      // On a Cluster the keys may sit in different slots: one EXISTS each, sent concurrently.
      if (!cluster) return counted(() => client.exists(...keys));
      return counted(async () =>
        (await Promise.all(keys.map((k) => client.exists(k)))).reduce((a, b) => a + b, 0),
      );
    },
    ping: () => counted(async () => (await client.ping()) === 'PONG'),
    xadd: (w) => counted(() => client.xadd(w.key, ...xaddArguments(w))),
    xrange: (key, start, end, count) => counted(() => client.xrange(key, start, end, 'COUNT', count)),
    xrevrange: (key, end, start, count) => counted(() => client.xrevrange(key, end, start, 'COUNT', count)),
    xgroupSetId: (key, group, id, entriesRead) =>
      counted(async () => {
        if (entriesRead === null) await client.xgroup('SETID', key, group, id);
        else await client.xgroup('SETID', key, group, id, 'ENTRIESREAD', entriesRead);
      }),
    infoOfMasters: (section) =>
      counted(() =>
        cluster ? clusterInfo(client as Cluster, section) : Promise.all([client.info(section)]),
      ),
    offline: () => client.status === 'reconnecting' || client.status === 'end',
    async close() {
      try {
        await client.quit();
      } catch {
        client.disconnect();
      }
    },
  };
  if (cluster) port.clusterSlots = () => counted(() => (client as Cluster).cluster('SLOTS'));
  return port;
}
