/**
 * Every Lua script of the project is pinned: its SHA1 is the SHA1 of its text, equals the pin
 * below and Redis's own; `SCRIPTS` lists every script any module under src/store defines, and no
 * module elsewhere under src holds Lua (src/store/scripts is the one place for it).
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ioredisScriptRunner } from '../../src/store/ioredis-script.js';
import { runScript } from '../../src/store/run-script.js';
import type { LuaScript } from '../../src/store/scripts/lua-script.js';
import { backends, uniquePrefix } from '../support/redis.js';
import { SCRIPTS } from './script-index.js';

// Changing a script changes its SHA: update the pin here and in the script module together.
const PINNED: Record<string, string> = {
  'due-mark': 'e1345de46096029a0f3f8ef1e1b876f42ec175d2',
  'due-claim': 'bac94813ce46fd4b84cafac38fb8cd8f7324057a',
  'due-settle': '576ae68541e38b2433f9cd45441751a82e5b0d05',
  'due-seed': 'f3a3b63e14498b52755240e5c5078e961d4b38dc',
  'acquire-lock': 'c24f1396eb0c4975f3ed488c01990ca2dd96dfa5',
  'release-lock': 'c89cee65b7ab260d98c281f3c3eb6fa7c992cdd2',
  'renew-lock': '1a22347112065789d764e3ed6c9b5a99d9767d0a',
  commit: 'ce582f6a4445f0967c1fbf3525be4021dfbcf1bf',
  load: '77c6a8bbc45d2b9c67af98d145afdf7f0593e6a5',
  'member-read': 'eb42fc3c9e03280c6411d500eee96f1028dc81a9',
  'steady-read': '5b7749c4b96027e8fbd55cba917e15ac1725e82c',
  'assignment-read': '2e169486b16cf502c81efb62d46bd2d13e6bc63a',
  'members-read': 'b1356b9063e9184e0d4fa092c4a7b3150c22c3f9',
  'due-read': '7fa86019e6ae385152f36f6ee01f79bfd58a185f',
  'stream-probe': '8e5a22ac81b0f9bce40ff683170ff52eecbf7b1c',
  provision: '855ece8fe536d75a5ab2074432212dd185224cba',
  'read-shards': '4ac4e4ba5c6e304370d9e22e870d40370096854a',
  'count-range': 'e4455d64511689c66c0599d897be50c8d0905eb7',
  'pending-summaries': 'fb31e3033d0aa445645acb524d69b1823fdc42af',
  'pending-entries': '7bb31ce68e4e89a3fcec79eb954f92feb1d58c59',
  'shard-evidence': '27bbbc46709cbbda9b3fe003738657e152b48352',
  'retire-shard': '00c6469fb8126a5042a9ee4b2cc7afecf8e40d4f',
  'provision-existing': 'c0b8976c972c6bf74c5263496c39487442caeb7b',
  'register-stream': '02a1589508dc472833d39721b18e45f3995c7e2a',
  'delete-shard': '3a89130ba542db9f68a0de864414135d0244becc',
  'clear-shard-keys': '2abb7eeac7a9bb708acf29c1dcbe022041a3e624',
  'idempotent-publish': '2a018f02eceed2d6c7491d27b5f247ab907becb2',
  'idempotent-publish-batch': 'ac5f2c423b5f743e24167502eff9613e63a51d31',
  'shard-owner-claim': '4fed50d356b74f548eadfaba13f64840049b8c98',
  'shard-owner-release': '3b0474e73ebfd7ca683b959c6f765396bc70d60c',
  'shard-fenced-command': '2ed11ea64b91b7d29c036e1ca432df5c966f7a13',
  'group-records': '415430016a2d90dddeb997c6cb8709be4232162e',
};

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');
const ALL: readonly LuaScript[] = Object.values(SCRIPTS);
const SRC_DIR = fileURLToPath(new URL('../../src/', import.meta.url));
const STORE_DIR = `${SRC_DIR}store/`;
const LUA_DIR = 'store/scripts/';

const isLuaScript = (v: unknown): v is LuaScript =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as LuaScript).lua === 'string' &&
  typeof (v as LuaScript).sha1 === 'string';

/** Source files under `dir` (tests excluded), relative to it. */
function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .sort();
}

// What gives Lua away in a TypeScript module: a script value, a Redis call or KEYS/ARGV inside
// script text, or a pinned SHA1.
const LUA_TRACES = /:\s*LuaScript\s*=|redis\.p?call\(|\bKEYS\[|\bARGV\[|['"`][0-9a-f]{40}['"`]/;

describe('store > Lua scripts are pinned', () => {
  it.each(Object.entries(SCRIPTS))('%s matches its pinned SHA1', (name, script) => {
    expect(script.name).toBe(name);
    expect(sha1(script.lua)).toBe(PINNED[name]);
    expect(script.sha1).toBe(PINNED[name]);
  });

  it('pins every script', () => {
    expect(Object.keys(SCRIPTS).sort()).toEqual(Object.keys(PINNED).sort());
  });

  it('lists in SCRIPTS every script a module under src/store defines', async () => {
    const listed = new Set(ALL);
    const found = new Set<LuaScript>();
    const missing: string[] = [];
    let declared = 0;
    for (const file of sources(STORE_DIR)) {
      // A declaration the module does not export would escape the import below: count both.
      declared += (readFileSync(STORE_DIR + file, 'utf8').match(/:\s*LuaScript\s*=/g) ?? []).length;
      const mod: Record<string, unknown> = await import(/* @vite-ignore */ STORE_DIR + file);
      for (const [name, value] of Object.entries(mod)) {
        if (!isLuaScript(value)) continue;
        found.add(value);
        if (!listed.has(value)) missing.push(`${file}: ${name}`);
      }
    }
    expect(missing).toEqual([]);
    expect(found.size).toBe(declared);
    expect(found.size).toBe(ALL.length);
  });

  it('keeps every Lua text of src in src/store/scripts', () => {
    const elsewhere = sources(SRC_DIR).filter(
      (f) => !f.startsWith(LUA_DIR) && LUA_TRACES.test(readFileSync(SRC_DIR + f, 'utf8')),
    );
    expect(elsewhere).toEqual([]);
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
    expect(await runScript(ioredisScriptRunner(client), script, [key], ['v'])).toEqual([key, 'v']);
    expect(await client.evalsha(script.sha1, 1, key, 'w')).toEqual([key, 'w']);
  });

  it('lets Redis agree with every pinned SHA', async () => {
    for (const s of ALL) {
      const key = `${uniquePrefix('load')}:k`;
      // Redis's own SHA1 of the text, computed on the node that owns `key`.
      const sha = await client.eval(`return redis.sha1hex(ARGV[1])`, 1, key, s.lua);
      expect(sha).toBe(s.sha1);
    }
  });
});
