import { describe, expect, it } from 'vitest';
import { isNoScriptError, runScript, type ScriptRunner } from './run-script.js';
import type { LuaScript } from './scripts/lua-script.js';

const named = (name: string, message: string) => Object.assign(new Error(message), { name });

const SCRIPT: LuaScript = { name: 'echo', lua: 'return 1', sha1: 'e0e1f9fabfc9d4800c877a703b823ac0578ff8db' };

/** A runner that records its calls and answers EVALSHA with `evalsha`'s outcome. */
function recording(evalsha: () => Promise<unknown>) {
  const calls: string[][] = [];
  const runner: ScriptRunner = {
    evalsha: (sha1, keys, args) => {
      calls.push(['evalsha', sha1, ...keys, ...args]);
      return evalsha();
    },
    eval: async (lua, keys, args) => {
      calls.push(['eval', lua, ...keys, ...args]);
      return 'by text';
    },
  };
  return { runner, calls };
}

describe('runScript > NOSCRIPT', () => {
  it('recognises NOSCRIPT', () => {
    expect(isNoScriptError(named('ReplyError', 'NOSCRIPT No matching script. Please use EVAL.'))).toBe(true);
    expect(isNoScriptError('NOSCRIPT No matching script')).toBe(true);
    expect(isNoScriptError(new Error('ERR other'))).toBe(false);
  });

  it('reads the error as the client says: @upstash/redis with and without its auto-pipeline', () => {
    const direct = 'NOSCRIPT No matching script. Please use EVAL., command was: ["evalsha","abc",1,"k"]';
    expect(isNoScriptError(named('UpstashError', direct))).toBe(true);
    // How a client shapes its errors is its port's (test/store/redis-port.test.ts); here a stand-in.
    const upstash = (err: unknown) => (err as Error).message.replace(/^Command failed: /, '');
    expect(
      isNoScriptError(named('UpstashError', 'Command failed: NOSCRIPT No matching script.'), upstash),
    ).toBe(true);
    expect(isNoScriptError(named('UpstashError', 'Command failed: ERR other'), upstash)).toBe(false);
  });

  it('only takes a reply that starts with NOSCRIPT: a script that ran and failed is not sent again', () => {
    expect(isNoScriptError(new Error('ERR user_script:1: NOSCRIPT in a message'))).toBe(false);
    expect(isNoScriptError(undefined)).toBe(false);
  });

  it('runs by SHA, and by text only after NOSCRIPT', async () => {
    const ok = recording(async () => 'by sha');
    expect(await runScript(ok.runner, SCRIPT, ['k'], ['a'])).toBe('by sha');
    expect(ok.calls).toEqual([['evalsha', SCRIPT.sha1, 'k', 'a']]);

    const unknown = recording(() => Promise.reject(named('ReplyError', 'NOSCRIPT No matching script.')));
    expect(await runScript(unknown.runner, SCRIPT, ['k'], ['a'])).toBe('by text');
    expect(unknown.calls).toEqual([
      ['evalsha', SCRIPT.sha1, 'k', 'a'],
      ['eval', SCRIPT.lua, 'k', 'a'],
    ]);

    const refused = recording(() => Promise.reject(named('ReplyError', 'WRONGTYPE nope')));
    await expect(runScript(refused.runner, SCRIPT, ['k'], [])).rejects.toThrow('WRONGTYPE');
    expect(refused.calls).toHaveLength(1);
  });
});
