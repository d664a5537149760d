/**
 * The producer's Redis port over @upstash/redis (Redis over HTTPS), for the edge. Build the
 * client with `automaticDeserialization: false` so entry ids and script replies stay strings.
 * Imports neither ioredis nor any `node:` module, and not even @upstash/redis at runtime: the
 * client is described structurally.
 */

import { isNoScriptError, runScript } from '../store/run-script.js';
import { IDEMPOTENT_BATCH } from '../store/scripts/idempotent-batch.js';
import {
  decodeIdempotentReply,
  IDEMPOTENT_PUBLISH,
  type IdempotentReply,
  idempotentPublishArgs,
} from '../store/scripts/idempotent-publish.js';
import type { LuaScript } from '../store/scripts/lua-script.js';
import { upstashScriptRunner } from '../store/upstash-script.js';
import type { RedisCommandError } from './errors.js';
import {
  batchCallOf,
  batchOutcomes,
  describeWrite,
  type EntryFields,
  type IdempotentWrite,
  type ProducerRedis,
  planCalls,
  type ShardCall,
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
  /** @internal the same for batches. @default the idempotent-batch script */
  batchScript?: LuaScript;
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
  const batch = opts.batchScript ?? IDEMPOTENT_BATCH;
  const keysOf = (w: Omit<IdempotentWrite, 'kind'>) => [w.key, w.markerKey];
  const argsOf = (w: Omit<IdempotentWrite, 'kind'>) =>
    idempotentPublishArgs(w.ttlSeconds, w.maxLen, w.approx, w.fields);
  // SHAs of the scripts known to be loaded on the database: each is loaded by the first pipeline
  // that needs it, not by every one (a command and the script's text saved per batch).
  const loaded = new Set<string>();
  const scripts = upstashScriptRunner(client);

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
        return decodeIdempotentReply(await runScript(scripts, script, keysOf(write), argsOf(write)));
      } catch (err) {
        throw toRedisCommandError(err, `idempotent publish to ${write.key}`, REPLY_ERRORS);
      }
    },

    async pipelineShards(groups) {
      // Upstash takes the whole batch as one REST request: one round trip for every shard.
      const calls = planCalls(groups);
      const first = await runPipeline(calls, false);
      // NOSCRIPT means the script did not run: send those calls again with the full text.
      const retry = calls.flatMap((_, i) => (first[i]!.noScript ? [i] : []));
      if (retry.length > 0) {
        const second = await runPipeline(
          retry.map((i) => calls[i]!),
          true,
        );
        retry.forEach((i, j) => {
          first[i] = second[j]!;
        });
        // The cache was flushed (restart, failover): load again next time.
        loaded.clear();
      }
      return splitByGroups(
        first.flatMap((r) => r.outcomes),
        groups,
      );
    },
  };

  async function runPipeline(
    calls: readonly ShardCall[],
    fullText: boolean,
  ): Promise<Array<{ outcomes: WriteOutcome[]; noScript: boolean }>> {
    const pipeline = client.pipeline();
    // Loading a script in the pipeline that first needs it makes the EVALSHAs after it find it.
    // Each shard has at most one script call here, so a NOSCRIPT re-send cannot reorder its entries.
    const loads: LuaScript[] = [];
    if (!fullText && calls.some((c) => c.batch)) loads.push(batch);
    if (!fullText && calls.some((c) => !c.batch && c.writes[0]!.kind === 'idempotent')) loads.push(script);
    const unloaded = loads.filter((l) => !loaded.has(l.sha1));
    for (const l of unloaded) pipeline.scriptLoad(l.lua);
    for (const call of calls) {
      const w = call.writes[0]!;
      if (call.batch) {
        const { keys, args } = batchCallOf(call.writes);
        if (fullText) pipeline.eval(batch.lua, keys, args);
        else pipeline.evalsha(batch.sha1, keys, args);
      } else if (w.kind === 'xadd')
        pipeline.xadd(w.key, '*', plain(w.fields), xaddOptions(w.maxLen, w.approx));
      else if (fullText) pipeline.eval(script.lua, keysOf(w), argsOf(w));
      else pipeline.evalsha(script.sha1, keysOf(w), argsOf(w));
    }
    let replies: Array<{ error?: string; result: unknown }>;
    try {
      replies = await pipeline.exec({ keepErrors: true });
      unloaded.forEach((l, i) => {
        if (!replies[i]?.error) loaded.add(l.sha1);
      });
    } catch (err) {
      const error = toRedisCommandError(err, `pipeline to ${calls[0]?.writes[0]?.key}`, REPLY_ERRORS);
      return calls.map((c) => ({
        outcomes: c.writes.map(() => ({ status: 'error', error })),
        noScript: false,
      }));
    }
    return calls.map((call, i) => {
      const reply = replies[i + unloaded.length];
      const w = call.writes[0]!;
      const failed = (error: RedisCommandError) =>
        call.writes.map((): WriteOutcome => ({ status: 'error', error }));
      if (!reply || reply.error) {
        const text = reply?.error ?? 'no reply in pipeline result';
        const error = toRedisCommandError(replyError(text), describeWrite(w), reply ? REPLY_ERRORS : []);
        return {
          outcomes: failed(error),
          noScript: (call.batch || w.kind === 'idempotent') && !fullText && isNoScriptError(text),
        };
      }
      try {
        if (call.batch)
          return { outcomes: batchOutcomes(reply.result, call.writes, REPLY_ERRORS[0]!), noScript: false };
        return {
          outcomes: [w.kind === 'xadd' ? xaddOutcome(reply.result) : decodeIdempotentReply(reply.result)],
          noScript: false,
        };
      } catch (e) {
        return { outcomes: failed(toRedisCommandError(e, `reply to ${w.key}`, [])), noScript: false };
      }
    });
  }
}
