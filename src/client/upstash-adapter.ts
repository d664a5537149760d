/**
 * The producer's Redis port over @upstash/redis (Redis over HTTPS), for the edge. Build the
 * client with `automaticDeserialization: false` so entry ids and script replies stay strings.
 * Imports neither ioredis nor any `node:` module, and not even @upstash/redis at runtime: the
 * client is described structurally.
 */

import { IDEMPOTENT_BATCH } from '../store/scripts/idempotent-batch.js';
import { IDEMPOTENT_PUBLISH } from '../store/scripts/idempotent-publish.js';
import type { LuaScript } from '../store/scripts/lua-script.js';
import { upstashScriptRunner, withKeyLocking } from '../store/upstash-script.js';
import { type PipelineLike, producerScripts } from './producer-scripts.js';
import {
  type EntryFields,
  type ProducerRedis,
  planCalls,
  splitByGroups,
  toRedisCommandError,
  xaddOutcome,
} from './redis-adapter.js';

/** `XADD` options as @upstash/redis takes them. */
interface UpstashXaddOptions {
  nomkStream: true;
  trim:
    | { type: 'MAXLEN'; threshold: number; comparison: '~' }
    | { type: 'MAXLEN'; threshold: number; comparison: '=' };
}

/** The commands of an @upstash/redis pipeline the adapter uses. */
export interface UpstashPipelineLike {
  xadd(key: string, id: string, entries: Record<string, string>, opts: UpstashXaddOptions): unknown;
  evalsha(sha1: string, keys: string[], args: string[]): unknown;
  eval(script: string, keys: string[], args: string[]): unknown;
  scriptLoad(script: string): unknown;
  exec(opts: { keepErrors: true }): Promise<Array<{ error?: string; result: unknown }>>;
}

/** The commands of an @upstash/redis `Redis` client the adapter uses. */
export interface UpstashRedisLike {
  xadd(key: string, id: string, entries: Record<string, string>, opts: UpstashXaddOptions): Promise<unknown>;
  evalsha(sha1: string, keys: string[], args: string[]): Promise<unknown>;
  eval(script: string, keys: string[], args: string[]): Promise<unknown>;
  pipeline(): UpstashPipelineLike;
}

/** Options of `upstashAdapter`. */
export interface UpstashAdapterOptions {
  /** @internal tests swap in an unknown script to exercise the NOSCRIPT fallback. @default the idempotent-publish script */
  idempotentScript?: LuaScript;
  /** @internal the same for batches. @default the idempotent-batch script */
  batchScript?: LuaScript;
  /**
   * Send both scripts with Upstash's `allow-key-locking` flag: they touch only the keys they are
   * passed (one shard's), so publishes to different shards run in parallel instead of under
   * Upstash's global script lock. They also call TIME (the shard's incarnation), which names no
   * key: Upstash documents refusing only database-wide commands under the flag, not keyless ones,
   * and this was not tried on Upstash. Only for Upstash itself: Redis behind a self-hosted REST
   * endpoint refuses the flag (docs/workers.md#upstash-key-locking). @default false
   */
  keyLocking?: boolean;
}

// @upstash/redis raises `UpstashError` for an error reply; fetch failures keep their own names.
const REPLY_ERRORS = ['UpstashError'];

function xaddOptions(maxLen: number, approx: boolean): UpstashXaddOptions {
  return {
    nomkStream: true,
    trim: approx
      ? { type: 'MAXLEN', threshold: maxLen, comparison: '~' }
      : { type: 'MAXLEN', threshold: maxLen, comparison: '=' },
  };
}

/** A plain copy, so the client never sees a caller's exotic object (prototype, getters). */
const plain = (fields: EntryFields): Record<string, string> => ({ ...fields });

/** A per-command error string of a pipeline, as the error @upstash/redis would have thrown. */
function replyError(text: string): Error {
  const err = new Error(text);
  err.name = 'UpstashError';
  return err;
}

/** A new pipeline of `client`; per-command errors are kept, as the errors the client would throw. */
function pipelineOf(client: UpstashRedisLike): PipelineLike {
  const p = client.pipeline();
  return {
    scriptLoad: (lua) => void p.scriptLoad(lua),
    evalsha: (sha1, keys, args) => void p.evalsha(sha1, keys, args),
    eval: (lua, keys, args) => void p.eval(lua, keys, args),
    xadd: (w) => void p.xadd(w.key, '*', plain(w.fields), xaddOptions(w.maxLen, w.approx)),
    exec: async () =>
      (await p.exec({ keepErrors: true })).map(
        (r) => [r.error ? replyError(r.error) : null, r.result] as const,
      ),
  };
}

/** The producer port over an @upstash/redis client (`automaticDeserialization: false`). */
export function upstashAdapter(client: UpstashRedisLike, opts: UpstashAdapterOptions = {}): ProducerRedis {
  const flag = (script: LuaScript) => (opts.keyLocking ? withKeyLocking(script) : script);
  const scripts = producerScripts({
    scripts: upstashScriptRunner(client),
    pipeline: () => pipelineOf(client),
    // One database, one script cache.
    cacheOf: () => '',
    replyErrors: REPLY_ERRORS,
    idempotent: flag(opts.idempotentScript ?? IDEMPOTENT_PUBLISH),
    batch: flag(opts.batchScript ?? IDEMPOTENT_BATCH),
  });

  return {
    async xaddNoMkStream(key, maxLen, approx, fields) {
      let reply: unknown;
      try {
        reply = await client.xadd(key, '*', plain(fields), xaddOptions(maxLen, approx));
      } catch (err) {
        throw toRedisCommandError(err, `XADD ${key}`, REPLY_ERRORS);
      }
      const outcome = xaddOutcome(reply);
      return outcome.status === 'missing' ? null : outcome.entryId;
    },

    evalIdempotent: scripts.evalIdempotent,

    async pipelineShards(groups) {
      // Upstash takes the whole batch as one REST request: one round trip for every shard.
      return splitByGroups((await scripts.pipeline(planCalls(groups))).flat(), groups);
    },
  };
}
