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
}

/** Sends of one call at most while each answer names a newer incarnation (a stream re-created meanwhile). */
const INCARNATION_SENDS = 3;

/** What one call of a pipeline came to: its writes' outcomes, or the shard's incarnation (nothing written). */
type CallOutcome = WriteOutcome[] | StaleIncarnation;

const isStale = (o: CallOutcome): o is StaleIncarnation => !Array.isArray(o);

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
        const error = toRedisCommandError(answer.lost, `pipeline to ${w.key}`, port);
        return call.writes.map(() => ({ status: 'error', error }));
      }
      const r = answer.reply;
      if (!r || r[0]) {
        const err = r?.[0] ?? new Error('no reply in pipeline result');
        const error = toRedisCommandError(err, describeWrite(w), r ? port : []);
        return call.writes.map(() => ({ status: 'error', error }));
      }
      try {
        return decode(call, r[1]);
      } catch (e) {
        const error = toRedisCommandError(e, `reply to ${w.key}`, []);
        return call.writes.map(() => ({ status: 'error', error }));
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
        const error = incarnationChurn(calls[i]!.writes[0]!.key);
        return calls[i]!.writes.map((): WriteOutcome => ({ status: 'error', error }));
      });
    },
  };
}
