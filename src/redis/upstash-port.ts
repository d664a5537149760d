/**
 * The Redis port over @upstash/redis (Redis over HTTPS: the Worker and the edge producer). What
 * only Upstash knows lives here: every call is one REST request, an error reply is an
 * `UpstashError` whose text may carry the command after it (or, through the client's
 * auto-pipeline, a prefix before it), a JSON parse failure of the answer is no reply, the token
 * and the `allow-key-locking` script flag can be refused, one database keeps one script cache and
 * has no slots towards the client, and there is no CLUSTER or INFO to ask. The client is described
 * structurally: this module imports nothing at runtime.
 */
import { runScript, type ScriptRunner } from '../store/run-script.js';
import { withKeyLocking } from '../store/upstash-script.js';
import type { PipelineReply, RedisPipeline, RedisPort, Refusal, XaddSpec } from './port.js';
import { firstLine } from './replies.js';

/** `XADD` options as @upstash/redis takes them. */
interface UpstashXaddOptions {
  nomkStream: true;
  trim:
    | { type: 'MAXLEN'; threshold: number; comparison: '~' }
    | { type: 'MAXLEN'; threshold: number; comparison: '=' };
}

/** The commands of an @upstash/redis pipeline the port queues. */
export interface UpstashPipelineLike {
  xadd(key: string, id: string, entries: Record<string, string>, opts: UpstashXaddOptions): unknown;
  evalsha(sha1: string, keys: string[], args: string[]): unknown;
  eval(script: string, keys: string[], args: string[]): unknown;
  scriptLoad(script: string): unknown;
  exec(opts: { keepErrors: true }): Promise<Array<{ error?: string; result: unknown }>>;
}

/** What the producer sends on an @upstash/redis `Redis` client (a real one satisfies it). */
export interface UpstashProducerLike {
  xadd(key: string, id: string, entries: Record<string, string>, opts: UpstashXaddOptions): Promise<unknown>;
  evalsha(sha1: string, keys: string[], args: string[]): Promise<unknown>;
  eval(script: string, keys: string[], args: string[]): Promise<unknown>;
  pipeline(): UpstashPipelineLike;
}

/** Every command the port sends on an @upstash/redis `Redis` client (a real one satisfies it). */
export interface UpstashClientLike extends UpstashProducerLike {
  get(key: string): Promise<unknown>;
  set(key: string, value: string, opts: { nx: true }): Promise<unknown>;
  smembers(key: string): Promise<unknown>;
  srem(key: string, member: string): Promise<unknown>;
  exists(...keys: string[]): Promise<unknown>;
  ping(): Promise<unknown>;
  xrange(key: string, start: string, end: string, count?: number): Promise<unknown>;
  xrevrange(key: string, end: string, start: string, count?: number): Promise<unknown>;
  xgroup(
    key: string,
    opts: { type: 'SETID'; group: string; id: string; options?: { ENTRIESREAD?: number } },
  ): Promise<unknown>;
}

/** Options of `upstashPort`. */
export interface UpstashPortOptions {
  /** Called once per REST request (each one is a Worker subrequest; a NOSCRIPT fallback makes two). @default no-op */
  onRequest?: () => void;
  /**
   * Send the scripts that declare every key they touch with Upstash's `allow-key-locking` flag,
   * so scripts on different keys run in parallel (docs/workers.md#upstash-key-locking). Redis
   * behind a self-hosted REST endpoint refuses the flag. @default false
   */
  keyLocking?: boolean;
  /** Keys per read-only multi-key script call (each call is a subrequest). @default 256 */
  keysPerScript?: number;
}

// @upstash/redis prefixes the error of a command it sent through its auto-pipeline (its default)
// with this; without auto-pipelining it passes the Redis error text through unchanged.
const AUTO_PIPELINED = 'Command failed: ';

/** The Redis error text of an @upstash/redis error reply, or null when no reply came. */
function upstashReplyText(err: unknown): string | null {
  // UpstashJSONParseError shares the name but means the endpoint answered something else than
  // JSON (a proxy error page): that is an availability problem.
  if (!(err instanceof Error) || err.name !== 'UpstashError') return null;
  if (err.message.startsWith('Unable to parse response body')) return null;
  // The client appends the whole command (documents, lock tokens, payloads) to the message.
  const cut = err.message.indexOf(', command was: ');
  let text = firstLine(cut >= 0 ? err.message.slice(0, cut) : err.message);
  if (text.startsWith(AUTO_PIPELINED)) text = text.slice(AUTO_PIPELINED.length);
  return text;
}

/** A per-command error of a REST pipeline, as the error @upstash/redis would have thrown. */
function replyError(text: string): Error {
  const err = new Error(text);
  err.name = 'UpstashError';
  return err;
}

// The REST endpoint refused the token: a deployment problem, not a Redis one.
const AUTH_REPLY = /^(WRONGPASS|NOAUTH|NOPERM)\b|unauthori[sz]ed|invalid.*token/i;
// Redis behind a self-hosted REST endpoint refuses Upstash's script flag (7.0+: the flag; older:
// the shebang line itself): a deployment problem (docs/workers.md#upstash-key-locking).
const KEY_LOCKING_REFUSED =
  /Unexpected flag in script shebang: allow-key-locking|user_script:1: unexpected symbol near '#'/;

const TOKEN_REFUSED: Refusal = {
  message: 'the Upstash REST endpoint rejected the configured token (check UPSTASH_REDIS_REST_TOKEN)',
  phrase: 'credentials refused',
};
const FLAG_REFUSED: Refusal = {
  message:
    "the Redis behind UPSTASH_REDIS_REST_URL refused Upstash's allow-key-locking script flag (it is " +
    'not Upstash): set UPSTASH_KEY_LOCKING=false',
  phrase: 'script flag refused',
};

function xaddOptions(w: XaddSpec): UpstashXaddOptions {
  return {
    nomkStream: true,
    trim: w.approx
      ? { type: 'MAXLEN', threshold: w.maxLen, comparison: '~' }
      : { type: 'MAXLEN', threshold: w.maxLen, comparison: '=' },
  };
}

/** A plain copy, so the client never sees a caller's exotic object (prototype, getters). */
const plain = (w: XaddSpec): Record<string, string> => ({ ...w.fields });

/** An XADD reply (entry id or nil). */
function entryId(reply: unknown): string | null {
  if (reply === null || reply === undefined) return null;
  if (typeof reply === 'string') return reply;
  if (reply instanceof Uint8Array) return new TextDecoder().decode(reply);
  throw new TypeError('unexpected XADD reply');
}

/** A new pipeline of `client`; per-command errors are kept, as the errors the client would throw. */
function pipelineOf(client: UpstashProducerLike, onRequest: () => void): RedisPipeline {
  const p = client.pipeline();
  return {
    scriptLoad: (lua) => void p.scriptLoad(lua),
    evalsha: (sha1, keys, args) => void p.evalsha(sha1, keys, args),
    eval: (lua, keys, args) => void p.eval(lua, keys, args),
    xadd: (w) => void p.xadd(w.key, '*', plain(w), xaddOptions(w)),
    exec: async () => {
      onRequest();
      return (await p.exec({ keepErrors: true })).map(
        (r): PipelineReply => [r.error ? replyError(r.error) : null, r.result],
      );
    },
  };
}

/**
 * The port over an @upstash/redis client built with `automaticDeserialization: false`, so entry
 * ids, documents and script replies stay the strings Redis holds.
 */
export function upstashPort(client: UpstashClientLike, opts: UpstashPortOptions = {}): RedisPort {
  const onRequest = opts.onRequest ?? (() => undefined);
  const keyLocking = opts.keyLocking ?? false;
  const counted = <T>(fn: () => Promise<T>): Promise<T> => {
    onRequest();
    return fn();
  };
  const scripts: ScriptRunner = {
    evalsha: (sha1, keys, args) => counted(() => client.evalsha(sha1, keys, args)),
    eval: (lua, keys, args) => counted(() => client.eval(lua, keys, args)),
    replyText: upstashReplyText,
  };
  return {
    label: 'Redis (Upstash REST)',
    // Upstash databases are not slot-partitioned towards the client.
    oneSlot: true,
    keysPerScript: Math.max(1, opts.keysPerScript ?? 256),
    replyText: upstashReplyText,
    // The client's fetch has no timeout of its own.
    timedOut: () => false,
    refusal(text) {
      if (AUTH_REPLY.test(text)) return TOKEN_REFUSED;
      return KEY_LOCKING_REFUSED.test(text) ? FLAG_REFUSED : null;
    },
    scriptAs: (script, declaresKeys) => (keyLocking && declaresKeys ? withKeyLocking(script) : script),
    runScript: (script, keys, args) => runScript(scripts, script, keys, args),
    // One database, one script cache.
    scriptCacheOf: () => '',
    pipeline: () => pipelineOf(client, onRequest),
    get: (key) =>
      counted(async () => {
        const v = await client.get(key);
        return typeof v === 'string' ? v : null;
      }),
    setNx: (key, value) => counted(async () => void (await client.set(key, value, { nx: true }))),
    smembers: (key) =>
      counted(async () => {
        const members = await client.smembers(key);
        return Array.isArray(members) ? members.map(String) : [];
      }),
    srem: (key, member) => counted(async () => void (await client.srem(key, member))),
    exists: (keys) =>
      // One EXISTS for all keys: Upstash is not slot-partitioned towards the client.
      keys.length === 0 ? Promise.resolve(0) : counted(async () => Number(await client.exists(...keys))),
    // Any reply proves reachability: the client's decoding of PONG is not compared.
    ping: () =>
      counted(async () => {
        await client.ping();
        return true;
      }),
    xadd: (w) => counted(async () => entryId(await client.xadd(w.key, '*', plain(w), xaddOptions(w)))),
    xrange: (key, start, end, count) => counted(() => client.xrange(key, start, end, count)),
    xrevrange: (key, end, start, count) => counted(() => client.xrevrange(key, end, start, count)),
    xgroupSetId: (key, group, id, entriesRead) =>
      counted(async () => {
        const options = entriesRead === null ? {} : { options: { ENTRIESREAD: entriesRead } };
        await client.xgroup(key, { type: 'SETID', group, id, ...options });
      }),
  };
}
