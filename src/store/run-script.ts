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
