/**
 * The producer's Redis port over ioredis: a standalone `Redis` or a `Cluster`. On a Cluster each
 * pipeline holds the writes for one shard key (plus its hash-tagged marker), so it is slot-safe;
 * on a standalone server a batch's shard pipelines go out as one.
 */
import type { Cluster, Redis } from 'ioredis';
import type { LuaScript } from '../store/scripts/lua-script.js';
import {
  decodeIdempotentReply,
  IDEMPOTENT_PUBLISH,
  type IdempotentReply,
  idempotentPublishArgs,
} from './lua/idempotent-publish.js';
import {
  type IdempotentWrite,
  isNoScript,
  type ProducerRedis,
  type ShardWrite,
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
}

// ioredis names an error reply `ReplyError`; everything else is a connection-level failure.
const REPLY_ERRORS = ['ReplyError'];

type Client = Redis | Cluster;
type ScriptArgs = [number, ...string[]];

/** The producer port over an ioredis client (the caller keeps owning and closing it). */
export function ioredisAdapter(client: Client, opts: IoredisAdapterOptions = {}): ProducerRedis {
  const script = opts.idempotentScript ?? IDEMPOTENT_PUBLISH;
  const scriptArgs = (w: Omit<IdempotentWrite, 'kind'>): ScriptArgs => [
    2,
    w.key,
    w.markerKey,
    ...idempotentPublishArgs(w.ttlSeconds, w.maxLen, w.approx, w.fields),
  ];
  const what = (w: ShardWrite) => `${w.kind === 'xadd' ? 'XADD' : 'idempotent publish to'} ${w.key}`;

  /** One pipeline; NOSCRIPT writes (the script did not run) are sent again with the full text. */
  async function pipelineWithFallback(writes: readonly ShardWrite[]): Promise<WriteOutcome[]> {
    const first = await runPipeline(writes, false);
    const retry = writes.flatMap((_, i) => (first.noScript.has(i) ? [i] : []));
    if (retry.length > 0) {
      const second = await runPipeline(
        retry.map((i) => writes[i]!),
        true,
      );
      retry.forEach((i, j) => {
        first.outcomes[i] = second.outcomes[j]!;
      });
    }
    return first.outcomes;
  }

  async function runPipeline(
    writes: readonly ShardWrite[],
    fullText: boolean,
  ): Promise<{ outcomes: WriteOutcome[]; noScript: Set<number> }> {
    const pipeline = client.pipeline();
    // Loading the script first (same connection, same node) makes EVALSHA find it, so a
    // NOSCRIPT re-send — which would reorder the shard's entries — is only a last resort.
    const load = !fullText && writes.some((w) => w.kind === 'idempotent');
    if (load) pipeline.script('LOAD', script.lua);
    for (const w of writes) {
      if (w.kind === 'xadd') pipeline.xadd(w.key, ...xaddArgs(w.maxLen, w.approx, w.fields));
      else if (fullText) pipeline.eval(script.lua, ...scriptArgs(w));
      else pipeline.evalsha(script.sha1, ...scriptArgs(w));
    }
    const noScript = new Set<number>();
    let replies: Array<[Error | null, unknown]> | null;
    try {
      replies = await pipeline.exec();
    } catch (err) {
      // The whole pipeline failed (connection lost, cross-slot refusal): every write shares it.
      const error = toRedisCommandError(err, `pipeline to ${writes[0]?.key}`, REPLY_ERRORS);
      return { outcomes: writes.map(() => ({ status: 'error', error })), noScript };
    }
    const offset = load ? 1 : 0;
    const outcomes = writes.map((w, i): WriteOutcome => {
      const [err, reply] = replies?.[i + offset] ?? [new Error('no reply in pipeline result'), null];
      if (err) {
        if (w.kind === 'idempotent' && !fullText && isNoScript(err)) noScript.add(i);
        return { status: 'error', error: toRedisCommandError(err, what(w), REPLY_ERRORS) };
      }
      try {
        return w.kind === 'xadd' ? xaddOutcome(reply) : decodeIdempotentReply(reply);
      } catch (e) {
        return { status: 'error', error: toRedisCommandError(e, `reply to ${w.key}`, []) };
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
      const args = scriptArgs(write);
      try {
        let raw: unknown;
        try {
          raw = await client.evalsha(script.sha1, ...args);
        } catch (err) {
          if (!isNoScript(err)) throw err;
          raw = await client.eval(script.lua, ...args);
        }
        return decodeIdempotentReply(raw);
      } catch (err) {
        throw toRedisCommandError(err, `idempotent publish to ${write.key}`, REPLY_ERRORS);
      }
    },

    async pipelineShards(groups) {
      // A Cluster pipeline must stay within one slot: one per shard, sent concurrently.
      if (client.isCluster) return Promise.all(groups.map((g) => pipelineWithFallback(g)));
      // A standalone server takes the whole batch in one round trip (measured ~10% faster).
      return splitByGroups(await pipelineWithFallback(groups.flat()), groups);
    },
  };
}
