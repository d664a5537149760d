/**
 * How the producer runs its scripts over the Redis port, written once for every client: a single
 * idempotent publish through the port's `runScript`, and pipelines of a batch's calls through
 * `scriptPipelines` (each script loaded once per script cache; a call refused with NOSCRIPT sent
 * again with its text; both in src/store/run-script.ts). Each shard has at most one script call
 * per pipeline, so the re-send cannot reorder its entries. No runtime import of a client:
 * edge-safe.
 *
 * Idempotency markers are named after the shard's incarnation (`idempotent-publish.ts`), which
 * this module remembers per shard key. The first idempotent call to a shard (and the first after
 * the shard was deleted and created again) is named with an unknown or dead incarnation: the
 * script writes nothing and answers the current one, and the call goes out again with it, in the
 * next pipeline (it wrote nothing, and it is its shard's only script call, so order holds).
 */
import type { RedisPipeline, RedisPort } from '../redis/port.js';
import { type PipelinedCall, scriptPipelines } from '../store/run-script.js';
import { joinBatchCalls } from '../store/scripts/idempotent-batch.js';
import {
  decodeIdempotentReply,
  type IdempotentReply,
  idempotentPublishArgs,
  idempotentPublishKeys,
  type StaleIncarnation,
} from '../store/scripts/idempotent-publish.js';
import type { LuaScript } from '../store/scripts/lua-script.js';
import { RedisCommandError } from './errors.js';
import {
  batchCallOf,
  batchOutcomes,
  describeWrite,
  type IdempotentWrite,
  type ShardCall,
  type ShardWrite,
  toRedisCommandError,
  type WriteOutcome,
  xaddOutcome,
} from './redis-adapter.js';

/** What the producer needs of a port. */
export type ScriptPort = Pick<RedisPort, 'runScript' | 'pipeline' | 'scriptCacheOf' | 'replyText'>;

/** The two scripts, as the port sends them. */
export interface ProducerScriptSet {
  idempotent: LuaScript;
  batch: LuaScript;
}

/** The producer's script calls over `client`. */
export interface ProducerScripts {
  /** One idempotent publish (EVALSHA, EVAL on NOSCRIPT). */
  evalIdempotent(write: Omit<IdempotentWrite, 'kind'>): Promise<IdempotentReply>;
  /** One pipeline of `calls` (all to one server): the outcomes of each call's writes. Never rejects. */
  pipeline(calls: readonly ShardCall[]): Promise<WriteOutcome[][]>;
  /**
   * Every group's writes (each group one shard, none empty) in ONE batch-script call, a segment
   * per shard: for ports whose server takes keys of any slot in one script (`oneSlot`). A shard
   * that answers another incarnation goes out again on its own segment. Never rejects.
   */
  together(groups: readonly (readonly ShardWrite[])[]): Promise<WriteOutcome[][]>;
}

/** Sends of one call at most while each answer names a newer incarnation (a stream re-created meanwhile). */
const INCARNATION_SENDS = 3;

/** What one call of a pipeline came to: its writes' outcomes, or the shard's incarnation (nothing written). */
type CallOutcome = WriteOutcome[] | StaleIncarnation;

const isStale = (o: CallOutcome): o is StaleIncarnation => !Array.isArray(o);

/** The same failure for every write of `writes`. */
const failAll = (writes: readonly ShardWrite[], error: RedisCommandError): WriteOutcome[] =>
  writes.map((): WriteOutcome => ({ status: 'error', error }));

/** The error of a write whose shard kept changing incarnation under it (nothing was written). */
function incarnationChurn(key: string): RedisCommandError {
  return new RedisCommandError(
    `idempotent publish to ${key}: the shard was deleted and created again while publishing; nothing was written`,
    { retriable: true, inDoubt: false },
  );
}

/** The script calls of a producer adapter; the caches it knows are per adapter. */
export function producerScripts(port: ScriptPort, { idempotent, batch }: ProducerScriptSet): ProducerScripts {
  const pipelines = scriptPipelines(port);
  // The incarnation each shard key was last seen in; '' (absent) = not known yet.
  const incarnations = new Map<string, string>();
  const incarnationOf = (key: string): string => incarnations.get(key) ?? '';
  const keysOf = (w: Omit<IdempotentWrite, 'kind'>, inc: string): string[] =>
    idempotentPublishKeys(w.key, w.eventId, inc);
  const argsOf = (w: Omit<IdempotentWrite, 'kind'>, inc: string): string[] =>
    idempotentPublishArgs(inc, w.ttlSeconds, w.maxLen, w.approx, w.fields);
  const scriptOf = (call: ShardCall): LuaScript | undefined =>
    call.batch ? batch : call.writes[0]!.kind === 'idempotent' ? idempotent : undefined;

  /** Remembers what an answer says of `key`'s incarnation: the current one, or none (the key is gone). */
  function learn(key: string, out: CallOutcome): void {
    if (isStale(out)) incarnations.set(key, out.incarnation);
    else if (out.some((o) => o.status === 'missing')) incarnations.delete(key);
  }

  function queue(p: RedisPipeline, call: ShardCall, fullText: boolean): void {
    const w = call.writes[0]!;
    const inc = incarnationOf(w.key);
    if (call.batch) {
      const { keys, args } = batchCallOf(call.writes, inc);
      if (fullText) p.eval(batch.lua, keys, args);
      else p.evalsha(batch.sha1, keys, args);
    } else if (w.kind === 'xadd') p.xadd(w);
    else if (fullText) p.eval(idempotent.lua, keysOf(w, inc), argsOf(w, inc));
    else p.evalsha(idempotent.sha1, keysOf(w, inc), argsOf(w, inc));
  }

  function decode(call: ShardCall, reply: unknown): CallOutcome {
    const w = call.writes[0]!;
    let out: CallOutcome;
    if (call.batch) out = batchOutcomes(reply, call.writes);
    else if (w.kind === 'xadd') out = [xaddOutcome(reply)];
    else {
      const r = decodeIdempotentReply(reply);
      out = r.status === 'stale' ? r : [r];
    }
    if (scriptOf(call)) learn(w.key, out);
    return out;
  }

  /** One pipeline of `calls` (and again with the text for those refused with NOSCRIPT). */
  async function sendLoaded(calls: readonly ShardCall[]): Promise<CallOutcome[]> {
    const queued = calls.map(
      (call): PipelinedCall<RedisPipeline> => ({
        script: scriptOf(call),
        key: call.writes[0]!.key,
        queue: (p, fullText) => queue(p, call, fullText),
      }),
    );
    const answers = await pipelines(queued);
    return calls.map((call, i): CallOutcome => {
      const answer = answers[i]!;
      const w = call.writes[0]!;
      if ('lost' in answer) {
        return failAll(call.writes, toRedisCommandError(answer.lost, `pipeline to ${w.key}`, port));
      }
      const r = answer.reply;
      if (!r || r[0]) {
        const err = r?.[0] ?? new Error('no reply in pipeline result');
        return failAll(call.writes, toRedisCommandError(err, describeWrite(w), r ? port : []));
      }
      try {
        return decode(call, r[1]);
      } catch (e) {
        return failAll(call.writes, toRedisCommandError(e, `reply to ${w.key}`, []));
      }
    });
  }

  return {
    async evalIdempotent(write) {
      for (let n = 0; n < INCARNATION_SENDS; n++) {
        const inc = incarnationOf(write.key);
        let reply: IdempotentReply | StaleIncarnation;
        try {
          reply = decodeIdempotentReply(
            await port.runScript(idempotent, keysOf(write, inc), argsOf(write, inc)),
          );
        } catch (err) {
          throw toRedisCommandError(err, `idempotent publish to ${write.key}`, port);
        }
        if (reply.status !== 'stale') {
          learn(write.key, [reply]);
          return reply;
        }
        learn(write.key, reply);
      }
      throw incarnationChurn(write.key);
    },

    async pipeline(calls) {
      const outcomes = await sendLoaded(calls);
      for (let n = 1; n < INCARNATION_SENDS; n++) {
        const stale = outcomes.flatMap((o, i) => (isStale(o) ? [i] : []));
        if (stale.length === 0) break;
        const again = await sendLoaded(stale.map((i) => calls[i]!));
        stale.forEach((i, j) => {
          outcomes[i] = again[j]!;
        });
      }
      return outcomes.map((o, i) => {
        if (!isStale(o)) return o;
        return failAll(calls[i]!.writes, incarnationChurn(calls[i]!.writes[0]!.key));
      });
    },

    async together(groups) {
      const out: WriteOutcome[][] = new Array(groups.length);
      let pending = groups.map((_, i) => i);
      for (let n = 0; n < INCARNATION_SENDS && pending.length > 0; n++) {
        const call = joinBatchCalls(
          pending.map((i) => batchCallOf(groups[i]!, incarnationOf(groups[i]![0]!.key))),
        );
        // Named by its first shard and a count: a batch may span every shard of the stream.
        const first = groups[pending[0]!]![0]!.key;
        const what = `batch to ${first}${pending.length > 1 ? ` and ${pending.length - 1} more shards` : ''}`;
        let replies: unknown[];
        try {
          const raw = await port.runScript(batch, call.keys, call.args);
          const total = pending.reduce((sum, i) => sum + groups[i]!.length, 0);
          if (!Array.isArray(raw) || raw.length !== total) throw new TypeError(`unexpected reply to ${what}`);
          replies = raw;
        } catch (err) {
          const error = toRedisCommandError(err, what, err instanceof TypeError ? [] : port);
          for (const i of pending) out[i] = failAll(groups[i]!, error);
          return out;
        }
        const stale: number[] = [];
        let at = 0;
        for (const i of pending) {
          const writes = groups[i]!;
          let o: CallOutcome;
          try {
            o = batchOutcomes(replies.slice(at, at + writes.length), writes);
          } catch (e) {
            o = failAll(writes, toRedisCommandError(e, `reply to ${writes[0]!.key}`, []));
          }
          at += writes.length;
          learn(writes[0]!.key, o);
          if (isStale(o)) stale.push(i);
          else out[i] = o;
        }
        pending = stale;
      }
      for (const i of pending) out[i] = failAll(groups[i]!, incarnationChurn(groups[i]![0]!.key));
      return out;
    },
  };
}
