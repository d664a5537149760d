/**
 * How every Lua script of the project runs, whatever the client: EVALSHA, and when the server
 * does not know the script (first use, restart, SCRIPT FLUSH, failover, a Cluster node that never
 * saw it) the same call again with the text (EVAL, which also caches it for the next EVALSHA).
 * The rule is written once, here; each client kind implements `ScriptRunner` once
 * (src/redis/ioredis-port.ts, src/redis/upstash-port.ts). No runtime imports: the Worker and the edge producer
 * bundle it.
 */
import type { LuaScript } from './scripts/lua-script.js';

/** The two ways a client runs a script: by SHA, and by text. */
export interface ScriptRunner {
  evalsha(sha1: string, keys: string[], args: string[]): Promise<unknown>;
  eval(lua: string, keys: string[], args: string[]): Promise<unknown>;
  /**
   * The Redis error text of a refused call, null when no reply came: how the client shapes its
   * errors (src/redis/*-port.ts). @default the error's message
   */
  replyText?(err: unknown): string | null;
}

/** An error's text when nothing better is known about the client. */
function messageOf(err: unknown): string | null {
  return err instanceof Error ? err.message : typeof err === 'string' ? err : null;
}

/**
 * True when Redis refused a script call because it does not know the script (error text starting
 * with `NOSCRIPT`): the script did not run, so sending its text cannot run it twice. Takes a
 * client's error or a pipeline's per-command error, read by `replyText`.
 */
export function isNoScriptError(
  err: unknown,
  replyText: (err: unknown) => string | null = messageOf,
): boolean {
  return replyText(err)?.startsWith('NOSCRIPT') ?? false;
}

/**
 * Runs `script` by SHA; on NOSCRIPT sends its text. Other failures are the caller's to map. The
 * EVALSHA is sent before this returns (a caller may queue a command behind it on the same
 * connection). A promise chain rather than an async function: one promise less per call, on the
 * producer's and the consumer's hottest paths.
 */
export function runScript(
  runner: ScriptRunner,
  script: LuaScript,
  keys: string[],
  args: string[],
): Promise<unknown> {
  let sent: Promise<unknown>;
  try {
    sent = runner.evalsha(script.sha1, keys, args);
  } catch (err) {
    return Promise.reject(err);
  }
  return sent.catch((err: unknown) => {
    if (!isNoScriptError(err, runner.replyText)) throw err;
    return runner.eval(script.lua, keys, args);
  });
}

/** One `[error reply, reply]` of a pipeline, in the order the commands were queued. */
type Reply = readonly [Error | null, unknown];

/** What pipelined script calls need of a pipeline: loading a script, and running it. */
export interface ScriptPipeline {
  scriptLoad(lua: string): void;
  /** One reply per queued command; rejects when the whole pipeline failed (nothing is known). */
  exec(): Promise<readonly Reply[]>;
}

/** What pipelined script calls need of a client (a Redis port has it). */
export interface PipelineClient<P extends ScriptPipeline> {
  pipeline(): P;
  /** The script cache that serves `key` (one name for every key of a single server). */
  scriptCacheOf(key: string): string;
  replyText?(err: unknown): string | null;
}

/** One call of a pipeline: a script call, queued by SHA or with its text, or a plain command. */
export interface PipelinedCall<P> {
  /** The script it runs; undefined for a plain command. */
  script: LuaScript | undefined;
  /** The key whose script cache serves the call. */
  key: string;
  /** Queues the call on `p`: the script by SHA, or (`fullText`) with its text. */
  queue(p: P, fullText: boolean): void;
}

/** A call's answer: its reply (undefined when the pipeline answered short), or the failure of its whole pipeline. */
export type PipelinedAnswer = { reply: Reply | undefined } | { lost: unknown };

/**
 * `runScript` for pipelines: each run sends its calls in one pipeline, a script behind a SCRIPT
 * LOAD only while it is not known to be loaded in the cache that serves it (once per server, per
 * key on a Cluster, whose nodes each keep their own cache). A call refused with NOSCRIPT did not
 * run (cache flushed by a restart, a failover or SCRIPT FLUSH): it is sent again with its text in
 * a second pipeline, and what that cache was known to hold is forgotten, so the next run loads
 * again. The caches known are per returned function.
 */
export function scriptPipelines<P extends ScriptPipeline>(
  client: PipelineClient<P>,
): (calls: readonly PipelinedCall<P>[]) => Promise<PipelinedAnswer[]> {
  // SHA1s known to be loaded, per script cache.
  const loaded = new Map<string, Set<string>>();
  const cacheOf = (call: PipelinedCall<P>) => client.scriptCacheOf(call.key);

  /** Sends `calls` once (by SHA, or with `fullText`); `refused` are the indexes refused with NOSCRIPT. */
  async function send(
    calls: readonly PipelinedCall<P>[],
    fullText: boolean,
  ): Promise<{ answers: PipelinedAnswer[]; refused: number[] }> {
    const p = client.pipeline();
    const unloaded = fullText
      ? []
      : calls.filter((c) => c.script !== undefined && !loaded.get(cacheOf(c))?.has(c.script.sha1));
    const loads = [...new Set(unloaded.map((c) => c.script!))];
    for (const s of loads) p.scriptLoad(s.lua);
    for (const call of calls) call.queue(p, fullText);
    let replies: readonly Reply[];
    try {
      replies = await p.exec();
    } catch (err) {
      // The whole pipeline failed (connection lost, cross-slot refusal): every call shares it.
      return { answers: calls.map(() => ({ lost: err })), refused: [] };
    }
    for (const c of unloaded) {
      const r = replies[loads.indexOf(c.script!)];
      if (!r || r[0]) continue;
      const known = loaded.get(cacheOf(c));
      if (known) known.add(c.script!.sha1);
      else loaded.set(cacheOf(c), new Set([c.script!.sha1]));
    }
    const refused: number[] = [];
    const answers = calls.map((call, i): PipelinedAnswer => {
      const reply = replies[i + loads.length];
      if (!fullText && call.script && reply?.[0] && isNoScriptError(reply[0], client.replyText))
        refused.push(i);
      return { reply };
    });
    return { answers, refused };
  }

  return async (calls) => {
    const first = await send(calls, false);
    if (first.refused.length === 0) return first.answers;
    const second = await send(
      first.refused.map((i) => calls[i]!),
      true,
    );
    first.refused.forEach((i, j) => {
      first.answers[i] = second.answers[j]!;
      // The cache that refused it was emptied: whatever it was known to hold must load again.
      loaded.delete(cacheOf(calls[i]!));
    });
    return first.answers;
  };
}
