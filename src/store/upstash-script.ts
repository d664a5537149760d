/**
 * `ScriptRunner` over @upstash/redis (Redis over HTTPS): the Worker store, its inspector and the
 * edge producer run their scripts through it with `runScript`. Imports nothing at runtime.
 */
import type { ScriptRunner } from './run-script.js';

/** The script commands of an @upstash/redis client (a real `Redis` satisfies it). */
export interface UpstashScriptClient {
  evalsha(sha1: string, keys: string[], args: string[]): Promise<unknown>;
  eval(lua: string, keys: string[], args: string[]): Promise<unknown>;
}

const noop = () => undefined;

/** The runner of `client`; `onRequest` is called once per REST request (a NOSCRIPT fallback makes two). */
export function upstashScriptRunner(client: UpstashScriptClient, onRequest: () => void = noop): ScriptRunner {
  return {
    evalsha: (sha1, keys, args) => {
      onRequest();
      return client.evalsha(sha1, keys, args);
    },
    eval: (lua, keys, args) => {
      onRequest();
      return client.eval(lua, keys, args);
    },
  };
}
