/**
 * Runs a Lua script by SHA, loading it with EVAL when the server does not know it yet
 * (first use, restart, SCRIPT FLUSH, or a Cluster node that never saw it).
 */
import type { Cluster, Redis } from 'ioredis';
import type { LuaScript } from './scripts/lua-script.js';

/** A Redis client that can run scripts (standalone or Cluster; Cluster routes by the first key). */
export type ScriptClient = Pick<Redis | Cluster, 'evalsha' | 'eval'>;

function isNoScript(err: unknown): boolean {
  return err instanceof Error && err.message.startsWith('NOSCRIPT');
}

/** EVALSHA `script` with `keys` and `args`, falling back to EVAL on NOSCRIPT. */
export async function runScript(
  client: ScriptClient,
  script: LuaScript,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<unknown> {
  try {
    return await client.evalsha(script.sha1, keys.length, ...keys, ...args);
  } catch (err) {
    if (!isNoScript(err)) throw err;
    return await client.eval(script.lua, keys.length, ...keys, ...args);
  }
}
