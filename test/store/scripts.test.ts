import { createHash, randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { runScript } from '../../src/store/run-script.js';
import { ALL_SCRIPTS } from '../../src/store/scripts/all.js';
import type { LuaScript } from '../../src/store/scripts/lua-script.js';
import { backends, uniquePrefix } from '../support/redis.js';

// Changing a script changes its SHA: update the pin here and in the script module together.
const PINNED: Record<string, string> = {
  'release-lock': 'c89cee65b7ab260d98c281f3c3eb6fa7c992cdd2',
  commit: '18f103742c274228d795ee6a3caffa9e63a6c45f',
  load: 'be0831d10d79429598d38b898c95f0bda68d8bb8',
  'fast-heartbeat': '9a4a31d5b7deb0bc7ba29c1ab41155ef36ea5c9c',
  provision: '855ece8fe536d75a5ab2074432212dd185224cba',
};

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

describe('store > Lua scripts are pinned', () => {
  it.each(ALL_SCRIPTS.map((s) => [s.name, s] as const))('%s matches its pinned SHA1', (name, script) => {
    expect(sha1(script.lua)).toBe(PINNED[name]);
    expect(script.sha1).toBe(PINNED[name]);
  });

  it('pins every script', () => {
    expect(ALL_SCRIPTS.map((s) => s.name).sort()).toEqual(Object.keys(PINNED).sort());
  });
});

describe.each(backends)('store > runScript ($name)', ({ make }) => {
  const client = make();
  afterAll(async () => {
    await client.quit();
  });

  it('loads an unknown script with EVAL, then runs it by SHA', async () => {
    // A script no server has seen: the first call gets NOSCRIPT and falls back to EVAL.
    const lua = `-- ${randomBytes(8).toString('hex')}\nreturn {KEYS[1], ARGV[1]}`;
    const script: LuaScript = { name: 'echo', lua, sha1: sha1(lua) };
    const key = `${uniquePrefix('script')}:k`;
    expect(await runScript(client, script, [key], ['v'])).toEqual([key, 'v']);
    expect(await client.evalsha(script.sha1, 1, key, 'w')).toEqual([key, 'w']);
  });

  it('lets Redis agree with every pinned SHA', async () => {
    for (const s of ALL_SCRIPTS) {
      const key = `${uniquePrefix('load')}:k`;
      // Redis's own SHA1 of the text, computed on the node that owns `key`.
      const sha = await client.eval(`return redis.sha1hex(ARGV[1])`, 1, key, s.lua);
      expect(sha).toBe(s.sha1);
    }
  });
});
