/**
 * The producer's Redis port over @upstash/redis (Redis over HTTPS), for the edge. Build the
 * client with `automaticDeserialization: false` so entry ids and script replies stay strings.
 * Imports neither ioredis nor any `node:` module, and not even @upstash/redis at runtime: the
 * client is described structurally.
 */

import type { LuaScript } from '../store/scripts/lua-script.js';
import type { RedisCommandError } from './errors.js';
import {
  decodeIdempotentReply,
  IDEMPOTENT_PUBLISH,
  type IdempotentReply,
  idempotentPublishArgs,
} from './lua/idempotent-publish.js';
import {
  type EntryFields,
  type IdempotentWrite,
  isNoScript,
  type ProducerRedis,
  type ShardWrite,
  splitByGroups,
  toRedisCommandError,
  type WriteOutcome,
  xaddOutcome,
} from './redis-adapter.js';

/** `XADD` options as @upstash/redis takes them. */
export interface UpstashXaddOptions {
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

/** The producer port over an @upstash/redis client (`automaticDeserialization: false`). */
export function upstashAdapter(client: UpstashRedisLike, opts: UpstashAdapterOptions = {}): ProducerRedis {
  const script = opts.idempotentScript ?? IDEMPOTENT_PUBLISH;
  const keysOf = (w: Omit<IdempotentWrite, 'kind'>) => [w.key, w.markerKey];
  const argsOf = (w: Omit<IdempotentWrite, 'kind'>) =>
    idempotentPublishArgs(w.ttlSeconds, w.maxLen, w.approx, w.fields);

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

    async evalIdempotent(write): Promise<IdempotentReply> {
      try {
        let raw: unknown;
        try {
          raw = await client.evalsha(script.sha1, keysOf(write), argsOf(write));
        } catch (err) {
          if (!isNoScript(err)) throw err;
          raw = await client.eval(script.lua, keysOf(write), argsOf(write));
        }
        return decodeIdempotentReply(raw);
      } catch (err) {
        throw toRedisCommandError(err, `idempotent publish to ${write.key}`, REPLY_ERRORS);
      }
    },

    async pipelineShards(groups) {
      // Upstash takes the whole batch as one REST request: one round trip for every shard.
      const writes = groups.flat();
      const first = await runPipeline(writes, false);
      // NOSCRIPT means the script did not run: send those writes again with the full text.
      const retry = writes.flatMap((_, i) => (first[i]!.noScript ? [i] : []));
      if (retry.length > 0) {
        const second = await runPipeline(
          retry.map((i) => writes[i]!),
          true,
        );
        retry.forEach((i, j) => {
          first[i] = second[j]!;
        });
      }
      return splitByGroups(
        first.map((r) => r.outcome),
        groups,
      );
    },
  };

  async function runPipeline(
    writes: readonly ShardWrite[],
    fullText: boolean,
  ): Promise<Array<{ outcome: WriteOutcome; noScript: boolean }>> {
    const pipeline = client.pipeline();
    // Loading the script first makes EVALSHA find it, so a NOSCRIPT re-send — which would
    // reorder the shard's entries — is only a last resort.
    const load = !fullText && writes.some((w) => w.kind === 'idempotent');
    if (load) pipeline.scriptLoad(script.lua);
    for (const w of writes) {
      if (w.kind === 'xadd') pipeline.xadd(w.key, '*', plain(w.fields), xaddOptions(w.maxLen, w.approx));
      else if (fullText) pipeline.eval(script.lua, keysOf(w), argsOf(w));
      else pipeline.evalsha(script.sha1, keysOf(w), argsOf(w));
    }
    let replies: Array<{ error?: string; result: unknown }>;
    try {
      replies = await pipeline.exec({ keepErrors: true });
    } catch (err) {
      const error = toRedisCommandError(err, `pipeline to ${writes[0]?.key}`, REPLY_ERRORS);
      return writes.map(() => ({ outcome: { status: 'error', error }, noScript: false }));
    }
    const offset = load ? 1 : 0;
    return writes.map((w, i) => {
      const reply = replies[i + offset];
      const what = `${w.kind === 'xadd' ? 'XADD' : 'idempotent publish to'} ${w.key}`;
      if (!reply || reply.error) {
        const text = reply?.error ?? 'no reply in pipeline result';
        const error: RedisCommandError = toRedisCommandError(
          replyError(text),
          what,
          reply ? REPLY_ERRORS : [],
        );
        return {
          outcome: { status: 'error', error },
          noScript: w.kind === 'idempotent' && !fullText && isNoScript(text),
        };
      }
      try {
        return {
          outcome: w.kind === 'xadd' ? xaddOutcome(reply.result) : decodeIdempotentReply(reply.result),
          noScript: false,
        };
      } catch (e) {
        return {
          outcome: { status: 'error', error: toRedisCommandError(e, `reply to ${w.key}`, []) },
          noScript: false,
        };
      }
    });
  }
}
