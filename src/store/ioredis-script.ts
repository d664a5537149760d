/**
 * `ScriptRunner` over ioredis (standalone or Cluster; Cluster routes by the first key): the
 * store, the producer and the consumer run their scripts through it with `runScript`.
 */
import type { Cluster, Redis } from 'ioredis';
import type { ScriptRunner } from './run-script.js';

/** An ioredis client that can run scripts. */
export type IoredisScriptClient = Pick<Redis | Cluster, 'evalsha' | 'eval'>;

/** The runner of `client`: ioredis takes the key count and then keys and arguments flat. */
export function ioredisScriptRunner(client: IoredisScriptClient): ScriptRunner {
  return {
    evalsha: (sha1, keys, args) => client.evalsha(sha1, keys.length, ...keys, ...args),
    eval: (lua, keys, args) => client.eval(lua, keys.length, ...keys, ...args),
  };
}
