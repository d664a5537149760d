/**
 * The producer's Redis port over ioredis: a standalone `Redis` or a `Cluster`. On a Cluster each
 * pipeline holds the writes for one shard key (plus its hash-tagged marker), so it is slot-safe;
 * on a standalone server a batch's shard pipelines go out as one.
 *
 * The scripts are loaded once per server (per shard key on a Cluster, whose nodes differ), in
 * the first pipeline that needs them, not in every pipeline: a NOSCRIPT refusal (script cache
 * flushed, failover) sends that call again with the full text and loads again next time. Each
 * shard has at most one script call per pipeline, so the re-send cannot reorder its entries.
 */
import type { Cluster, Redis } from 'ioredis';
import { ioredisScriptRunner } from '../store/ioredis-script.js';
import { isNoScriptError, runScript } from '../store/run-script.js';
import { IDEMPOTENT_BATCH } from '../store/scripts/idempotent-batch.js';
import {
  decodeIdempotentReply,
  IDEMPOTENT_PUBLISH,
  type IdempotentReply,
  idempotentPublishArgs,
} from '../store/scripts/idempotent-publish.js';
import type { LuaScript } from '../store/scripts/lua-script.js';
import {
  batchCallOf,
  batchOutcomes,
  describeWrite,
  type IdempotentWrite,
  type ProducerRedis,
  planCalls,
  type ShardCall,
  splitByGroups,
  toRedisCommandError,
  type WriteOutcome,
  xaddArgs,
  xaddOutcome,
} from './redis-adapter.js';

/** Options of `ioredisAdapter`. */
export interface IoredisAdapterOptions {
  /** @internal tests swap in an unknown script to exercise the NOSCRIPT fallback. @default the idempotent-publish script */
  idempotentScript?: LuaScript;
  /** @internal the same for batches. @default the idempotent-batch script */
  batchScript?: LuaScript;
}

// ioredis names an error reply `ReplyError`; everything else is a connection-level failure.
const REPLY_ERRORS = ['ReplyError'];

type Client = Redis | Cluster;
type ScriptArgs = [number, ...string[]];

/** The producer port over an ioredis client (the caller keeps owning and closing it). */
export function ioredisAdapter(client: Client, opts: IoredisAdapterOptions = {}): ProducerRedis {
  const script = opts.idempotentScript ?? IDEMPOTENT_PUBLISH;
  const batch = opts.batchScript ?? IDEMPOTENT_BATCH;
  const scripts = ioredisScriptRunner(client);
  const scriptArgs = (w: Omit<IdempotentWrite, 'kind'>): ScriptArgs => [
    2,
    w.key,
    w.markerKey,
    ...idempotentPublishArgs(w.ttlSeconds, w.maxLen, w.approx, w.fields),
  ];

  /** The script a call runs, if any. */
  const scriptOf = (call: ShardCall): LuaScript | undefined =>
    call.batch ? batch : call.writes[0]!.kind === 'idempotent' ? script : undefined;
  // Scripts known to be loaded where a call goes: its SHA on a standalone server, its SHA and
  // shard key on a Cluster (whose nodes each keep their own script cache).
  const loaded = new Set<string>();
  const loadKey = (call: ShardCall) =>
    `${scriptOf(call)?.sha1}${client.isCluster ? ` ${call.writes[0]!.key}` : ''}`;

  /** One pipeline; calls refused with NOSCRIPT (the script did not run) are sent again with the full text. */
  async function pipelineWithFallback(calls: readonly ShardCall[]): Promise<WriteOutcome[][]> {
    const first = await runPipeline(calls, false);
    const retry = calls.flatMap((_, i) => (first.noScript.has(i) ? [i] : []));
    if (retry.length > 0) {
      const second = await runPipeline(
        retry.map((i) => calls[i]!),
        true,
      );
      retry.forEach((i, j) => {
        first.outcomes[i] = second.outcomes[j]!;
        loaded.delete(loadKey(calls[i]!));
      });
    }
    return first.outcomes;
  }

  async function runPipeline(
    calls: readonly ShardCall[],
    fullText: boolean,
  ): Promise<{ outcomes: WriteOutcome[][]; noScript: Set<number> }> {
    const pipeline = client.pipeline();
    // Loading in the same pipeline (same connection, same node) makes the EVALSHAs after it find
    // the scripts; later pipelines to the same server need not send the text again.
    const unloaded = fullText ? [] : calls.filter((c) => scriptOf(c) && !loaded.has(loadKey(c)));
    const loads = [...new Set(unloaded.map((c) => scriptOf(c)!))];
    for (const s of loads) pipeline.script('LOAD', s.lua);
    for (const call of calls) {
      const w = call.writes[0]!;
      if (call.batch) {
        const { keys, args } = batchCallOf(call.writes);
        if (fullText) pipeline.eval(batch.lua, keys.length, ...keys, ...args);
        else pipeline.evalsha(batch.sha1, keys.length, ...keys, ...args);
      } else if (w.kind === 'xadd') pipeline.xadd(w.key, ...xaddArgs(w.maxLen, w.approx, w.fields));
      else if (fullText) pipeline.eval(script.lua, ...scriptArgs(w));
      else pipeline.evalsha(script.sha1, ...scriptArgs(w));
    }
    const noScript = new Set<number>();
    let replies: Array<[Error | null, unknown]> | null;
    try {
      replies = await pipeline.exec();
      if (replies && loads.every((_, i) => !replies![i]?.[0]))
        for (const c of unloaded) loaded.add(loadKey(c));
    } catch (err) {
      // The whole pipeline failed (connection lost, cross-slot refusal): every write shares it.
      const error = toRedisCommandError(err, `pipeline to ${calls[0]?.writes[0]?.key}`, REPLY_ERRORS);
      return { outcomes: calls.map((c) => c.writes.map(() => ({ status: 'error', error }))), noScript };
    }
    const outcomes = calls.map((call, i): WriteOutcome[] => {
      const [err, reply] = replies?.[i + loads.length] ?? [new Error('no reply in pipeline result'), null];
      const w = call.writes[0]!;
      if (err) {
        if ((call.batch || w.kind === 'idempotent') && !fullText && isNoScriptError(err)) noScript.add(i);
        const error = toRedisCommandError(err, describeWrite(w), REPLY_ERRORS);
        return call.writes.map(() => ({ status: 'error', error }));
      }
      try {
        if (call.batch) return batchOutcomes(reply, call.writes, REPLY_ERRORS[0]!);
        return [w.kind === 'xadd' ? xaddOutcome(reply) : decodeIdempotentReply(reply)];
      } catch (e) {
        const error = toRedisCommandError(e, `reply to ${w.key}`, []);
        return call.writes.map(() => ({ status: 'error', error }));
      }
    });
    return { outcomes, noScript };
  }

  return {
    async xaddNoMkStream(key, maxLen, approx, fields) {
      try {
        return await client.xadd(key, ...xaddArgs(maxLen, approx, fields));
      } catch (err) {
        throw toRedisCommandError(err, `XADD ${key}`, REPLY_ERRORS);
      }
    },

    async evalIdempotent(write): Promise<IdempotentReply> {
      const args = idempotentPublishArgs(write.ttlSeconds, write.maxLen, write.approx, write.fields);
      try {
        return decodeIdempotentReply(await runScript(scripts, script, [write.key, write.markerKey], args));
      } catch (err) {
        throw toRedisCommandError(err, `idempotent publish to ${write.key}`, REPLY_ERRORS);
      }
    },

    async pipelineShards(groups) {
      // A Cluster pipeline must stay within one slot: one per shard, sent concurrently.
      if (client.isCluster) {
        return Promise.all(groups.map(async (g) => (await pipelineWithFallback(planCalls([g]))).flat()));
      }
      // A standalone server takes the whole batch in one round trip (measured ~10% faster).
      return splitByGroups((await pipelineWithFallback(planCalls(groups))).flat(), groups);
    },
  };
}
