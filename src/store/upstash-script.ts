/**
 * EVALSHA with a NOSCRIPT fallback over @upstash/redis: the REST twin of `run-script.ts`
 * (whose variadic signature is ioredis's). Same pinned scripts, same fallback rule.
 */
import type { LuaScript } from './scripts/lua-script.js';
import type { UpstashCommands } from './upstash-client.js';
import { upstashErrorText } from './upstash-errors.js';

/** A client that can run scripts by SHA and by text. */
export type UpstashScriptClient = Pick<UpstashCommands, 'evalsha' | 'eval'>;

function isNoScript(err: unknown): boolean {
  return err instanceof Error && upstashErrorText(err).startsWith('NOSCRIPT');
}

/**
 * Runs `script` by SHA; on NOSCRIPT (first use, SCRIPT FLUSH, a fresh database) sends its text
 * with EVAL, which also caches it for the next EVALSHA. Calls `onRequest` once per REST request.
 */
export async function runUpstashScript(
  client: UpstashScriptClient,
  script: LuaScript,
  keys: string[],
  args: string[],
  onRequest: () => void = () => undefined,
): Promise<unknown> {
  try {
    onRequest();
    return await client.evalsha(script.sha1, keys, args);
  } catch (err) {
    if (!isNoScript(err)) throw err;
    onRequest();
    return await client.eval(script.lua, keys, args);
  }
}
