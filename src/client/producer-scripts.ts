/**
 * How the producer runs its scripts, written once for every client: a single idempotent publish
 * through `runScript`, and pipelines of a batch's calls. The ioredis and @upstash/redis adapters
 * each plug in a `ScriptRunner` and a thin `PipelineLike`.
 *
 * A pipeline loads a script (SCRIPT LOAD ahead of the calls, on the same connection) only when it
 * is not yet known to be loaded in the script cache the pipeline goes to — once per server (per
 * shard key on a Cluster, whose nodes each keep their own cache), not in every pipeline. A call
 * refused with NOSCRIPT did not run (cache flushed by a restart, a failover or SCRIPT FLUSH): it is
 * sent again with the full text, and what that cache was known to hold is forgotten, so the next
 * pipeline loads again. Each shard has at most one script call per pipeline, so the re-send cannot
 * reorder its entries. No runtime import of a client: edge-safe.
 *
 * Idempotency markers are named after the shard's incarnation (`idempotent-publish.ts`), which
 * this module remembers per shard key. The first idempotent call to a shard (and the first after
 * the shard was deleted and created again) is named with an unknown or dead incarnation: the
 * script writes nothing and answers the current one, and the call goes out again with it, in the
 * next pipeline (it wrote nothing, and it is its shard's only script call, so order holds).
 */
import { isNoScriptError, runScript, type ScriptRunner } from '../store/run-script.js';
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
  type XaddWrite,
  xaddOutcome,
} from './redis-adapter.js';

/** One `[error reply, reply]` of a pipeline, in the order the commands were queued. */
export type PipelineReply = readonly [Error | null, unknown];

/** One pipeline of a client, reduced to the commands the producer queues on it. */
export interface PipelineLike {
  scriptLoad(lua: string): void;
  evalsha(sha1: string, keys: string[], args: string[]): void;
  eval(lua: string, keys: string[], args: string[]): void;
  xadd(w: XaddWrite): void;
  /** One reply per queued command; rejects when the whole pipeline failed (nothing is known). */
  exec(): Promise<readonly PipelineReply[]>;
}

/** What the shared code needs of a client. */
export interface ScriptClient {
  scripts: ScriptRunner;
  pipeline(): PipelineLike;
  /** The script cache that serves `key` (one name for every key of a single server). */
  cacheOf(key: string): string;
  /** Names the client gives an error reply (Redis refused the command: nothing was written). */
  replyErrors: readonly string[];
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
export function producerScripts(client: ScriptClient): ProducerScripts {
  const { idempotent, batch, replyErrors } = client;
  // SHA1s known to be loaded, per script cache.
  const loaded = new Map<string, Set<string>>();
  // The incarnation each shard key was last seen in; '' (absent) = not known yet.
  const incarnations = new Map<string, string>();
  const incarnationOf = (key: string): string => incarnations.get(key) ?? '';
  const keysOf = (w: Omit<IdempotentWrite, 'kind'>, inc: string): string[] =>
    idempotentPublishKeys(w.key, w.eventId, inc);
  const argsOf = (w: Omit<IdempotentWrite, 'kind'>, inc: string): string[] =>
    idempotentPublishArgs(inc, w.ttlSeconds, w.maxLen, w.approx, w.fields);
  const cacheOfCall = (call: ShardCall) => client.cacheOf(call.writes[0]!.key);
  const scriptOf = (call: ShardCall): LuaScript | undefined =>
    call.batch ? batch : call.writes[0]!.kind === 'idempotent' ? idempotent : undefined;

  /** Remembers what an answer says of `key`'s incarnation: the current one, or none (the key is gone). */
  function learn(key: string, out: CallOutcome): void {
    if (isStale(out)) incarnations.set(key, out.incarnation);
    else if (out.some((o) => o.status === 'missing')) incarnations.delete(key);
  }

  function queue(p: PipelineLike, call: ShardCall, fullText: boolean): void {
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
    if (call.batch) out = batchOutcomes(reply, call.writes, replyErrors[0]!);
    else if (w.kind === 'xadd') out = [xaddOutcome(reply)];
    else {
      const r = decodeIdempotentReply(reply);
      out = r.status === 'stale' ? r : [r];
    }
    if (scriptOf(call)) learn(w.key, out);
    return out;
  }

  /** Sends `calls` once (by SHA, or with `fullText`); `refused` are the indexes refused with NOSCRIPT. */
  async function send(
    calls: readonly ShardCall[],
    fullText: boolean,
  ): Promise<{ outcomes: CallOutcome[]; refused: number[] }> {
    const p = client.pipeline();
    const unloaded = fullText
      ? []
      : calls.filter((c) => {
          const s = scriptOf(c);
          return s !== undefined && !loaded.get(cacheOfCall(c))?.has(s.sha1);
        });
    const loads = [...new Set(unloaded.map((c) => scriptOf(c)!))];
    for (const s of loads) p.scriptLoad(s.lua);
    for (const call of calls) queue(p, call, fullText);
    let replies: readonly PipelineReply[];
    try {
      replies = await p.exec();
    } catch (err) {
      // The whole pipeline failed (connection lost, cross-slot refusal): every write shares it.
      const error = toRedisCommandError(err, `pipeline to ${calls[0]?.writes[0]?.key}`, replyErrors);
      return { outcomes: calls.map((c) => c.writes.map(() => ({ status: 'error', error }))), refused: [] };
    }
    for (const c of unloaded) {
      const s = scriptOf(c)!;
      const r = replies[loads.indexOf(s)];
      if (!r || r[0]) continue;
      const cache = cacheOfCall(c);
      const known = loaded.get(cache);
      if (known) known.add(s.sha1);
      else loaded.set(cache, new Set([s.sha1]));
    }
    const refused: number[] = [];
    const outcomes = calls.map((call, i): CallOutcome => {
      const r = replies[i + loads.length];
      const w = call.writes[0]!;
      if (!r || r[0]) {
        const err = r?.[0] ?? new Error('no reply in pipeline result');
        if (!fullText && scriptOf(call) && isNoScriptError(err)) refused.push(i);
        const error = toRedisCommandError(err, describeWrite(w), r ? replyErrors : []);
        return call.writes.map(() => ({ status: 'error', error }));
      }
      try {
        return decode(call, r[1]);
      } catch (e) {
        const error = toRedisCommandError(e, `reply to ${w.key}`, []);
        return call.writes.map(() => ({ status: 'error', error }));
      }
    });
    return { outcomes, refused };
  }

  /** One pipeline of `calls`, and again with the full text for the calls refused with NOSCRIPT. */
  async function sendLoaded(calls: readonly ShardCall[]): Promise<CallOutcome[]> {
    const first = await send(calls, false);
    if (first.refused.length === 0) return first.outcomes;
    const second = await send(
      first.refused.map((i) => calls[i]!),
      true,
    );
    first.refused.forEach((i, j) => {
      first.outcomes[i] = second.outcomes[j]!;
      // The cache that refused it was emptied: whatever it was known to hold must load again.
      loaded.delete(cacheOfCall(calls[i]!));
    });
    return first.outcomes;
  }

  return {
    async evalIdempotent(write) {
      for (let n = 0; n < INCARNATION_SENDS; n++) {
        const inc = incarnationOf(write.key);
        let reply: IdempotentReply | StaleIncarnation;
        try {
          reply = decodeIdempotentReply(
            await runScript(client.scripts, idempotent, keysOf(write, inc), argsOf(write, inc)),
          );
        } catch (err) {
          throw toRedisCommandError(err, `idempotent publish to ${write.key}`, replyErrors);
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
