import { describe, expect, it } from 'vitest';
import type { RedisPipeline as PipelineLike, PipelineReply } from '../redis/port.js';
import { runScript, type ScriptRunner } from '../store/run-script.js';
import type { LuaScript } from '../store/scripts/lua-script.js';
import { RedisCommandError } from './errors.js';
import { producerScripts, type ScriptPort } from './producer-scripts.js';
import type { ShardCall, ShardWrite } from './redis-adapter.js';

const ONE: LuaScript = { name: 'one', lua: 'return 1', sha1: 'sha-one' };
const MANY: LuaScript = { name: 'many', lua: 'return 2', sha1: 'sha-many' };

const idem = (key: string): ShardWrite => ({
  kind: 'idempotent',
  key,
  eventId: 'e',
  ttlSeconds: 5,
  maxLen: 10,
  approx: true,
  fields: { f: 'v' },
});
const ADDED = [2, '1-0'];
const single = (key: string): ShardCall => ({ writes: [idem(key)], batch: false });
const batched = (key: string): ShardCall => ({ writes: [idem(key), idem(key)], batch: true });

/**
 * A fake client: records each pipeline's commands, and answers script calls by SHA with NOSCRIPT
 * while the script is not in the cache of their key (`caches`, one per key prefix before ':').
 */
/** The incarnation a call was named with: the batch script's comes after its segment's two counts. */
const namedIn = (lua: string, args: readonly string[]): string => (lua === MANY.lua ? args[2]! : args[0]!);

function fakeClient(opts: { failLoad?: boolean; incarnation?: string } = {}) {
  const sent: string[][] = [];
  // The incarnation each script call was named with, in send order.
  const named: string[] = [];
  const caches = new Map<string, Set<string>>();
  const cacheOf = (key: string) => key.split(':')[0]!;
  const cache = (key: string) =>
    caches.get(cacheOf(key)) ?? caches.set(cacheOf(key), new Set()).get(cacheOf(key))!;
  const pipeline = (): PipelineLike => {
    const cmds: string[] = [];
    const answers: Array<() => PipelineReply> = [];
    // The single script answers one reply, the batch script one per record (two here).
    // Named with another incarnation than the shard's (`opts.incarnation`): nothing written, that one answered.
    const run = (text: string, inc: string) => (): PipelineReply => {
      const one = opts.incarnation === undefined || inc === opts.incarnation ? ADDED : [4, opts.incarnation];
      return [null, text === MANY.lua ? [one, one] : one];
    };
    return {
      scriptLoad: (lua) => {
        cmds.push(`load ${lua}`);
        answers.push(() => [opts.failLoad ? new Error('ERR no') : null, 'sha']);
      },
      evalsha: (sha1, keys, args) => {
        cmds.push(`evalsha ${sha1} ${keys[0]}`);
        const text = sha1 === ONE.sha1 ? ONE.lua : MANY.lua;
        const inc = namedIn(text, args);
        named.push(inc);
        answers.push(() =>
          cache(keys[0]!).has(text) ? run(text, inc)() : [new Error('NOSCRIPT No matching script'), null],
        );
      },
      eval: (lua, keys, args) => {
        cmds.push(`eval ${keys[0]}`);
        named.push(namedIn(lua, args));
        answers.push(run(lua, namedIn(lua, args)));
      },
      xadd: (w) => {
        cmds.push(`xadd ${w.key}`);
        answers.push(() => [null, '1-0']);
      },
      exec: async () => {
        sent.push(cmds);
        // Loads reach every cache this pipeline's keys use (one server per pipeline).
        return answers.map((a, i) => {
          const cmd = cmds[i]!;
          if (cmd.startsWith('load ') && !opts.failLoad)
            for (const c of cmds) if (c.startsWith('evalsha ')) cache(c.split(' ')[2]!).add(cmd.slice(5));
          return a();
        });
      },
    };
  };
  const scripts = producerScripts(
    fakePort({ evalsha: async () => null, eval: async () => null }, pipeline, cacheOf),
    {
      idempotent: ONE,
      batch: MANY,
    },
  );
  return { scripts, sent, caches, named };
}

/** A port over the fakes: every error they give is an error reply. */
function fakePort(
  scripts: ScriptRunner,
  pipeline: () => PipelineLike,
  cacheOf: (key: string) => string,
): ScriptPort {
  return {
    runScript: (s, keys, args) => runScript(scripts, s, keys, args),
    pipeline,
    scriptCacheOf: cacheOf,
    replyText: (err) => (err instanceof Error ? err.message : null),
  };
}

describe('producer scripts > pipelines', () => {
  it('loads each script once per script cache, in the first pipeline that needs it', async () => {
    const { scripts, sent } = fakeClient();
    await scripts.pipeline([batched('a:0'), single('a:1')]);
    await scripts.pipeline([batched('a:0'), single('a:1')]);
    await scripts.pipeline([single('b:0')]);
    expect(sent).toEqual([
      ['load return 2', 'load return 1', 'evalsha sha-many a:0', 'evalsha sha-one a:1'],
      ['evalsha sha-many a:0', 'evalsha sha-one a:1'],
      ['load return 1', 'evalsha sha-one b:0'],
    ]);
  });

  it('sends a NOSCRIPT call again with its text, then loads again what that cache held', async () => {
    const { scripts, sent, caches } = fakeClient();
    await scripts.pipeline([batched('a:0'), single('a:1')]);
    await scripts.pipeline([single('b:0')]);
    caches.get('a')!.clear();
    const out = await scripts.pipeline([batched('a:0')]);
    expect(out[0]).toEqual([
      { status: 'added', entryId: '1-0' },
      { status: 'added', entryId: '1-0' },
    ]);
    await scripts.pipeline([batched('a:0'), single('a:1')]);
    await scripts.pipeline([single('b:0')]);
    expect(sent.slice(2)).toEqual([
      ['evalsha sha-many a:0'],
      ['eval a:0'],
      // Both scripts of the flushed cache load again; the other cache is untouched.
      ['load return 2', 'load return 1', 'evalsha sha-many a:0', 'evalsha sha-one a:1'],
      ['evalsha sha-one b:0'],
    ]);
  });

  it('does not take a failed SCRIPT LOAD for a loaded script', async () => {
    const { scripts, sent } = fakeClient({ failLoad: true });
    const out = await scripts.pipeline([single('a:0')]);
    expect(out[0]).toEqual([{ status: 'added', entryId: '1-0' }]);
    await scripts.pipeline([single('a:0')]);
    expect(sent).toEqual([
      ['load return 1', 'evalsha sha-one a:0'],
      ['eval a:0'],
      ['load return 1', 'evalsha sha-one a:0'],
      ['eval a:0'],
    ]);
  });
});

describe('producer scripts > shard incarnations', () => {
  it('sends a call named with an unknown incarnation again with the one the shard answered, and keeps it', async () => {
    const { scripts, sent, named } = fakeClient({ incarnation: 'i1' });
    const out = await scripts.pipeline([batched('a:0'), single('a:1')]);
    expect(out).toEqual([
      [
        { status: 'added', entryId: '1-0' },
        { status: 'added', entryId: '1-0' },
      ],
      [{ status: 'added', entryId: '1-0' }],
    ]);
    await scripts.pipeline([single('a:1')]);
    expect(sent).toEqual([
      ['load return 2', 'load return 1', 'evalsha sha-many a:0', 'evalsha sha-one a:1'],
      ['evalsha sha-many a:0', 'evalsha sha-one a:1'],
      ['evalsha sha-one a:1'],
    ]);
    expect(named).toEqual(['', '', 'i1', 'i1', 'i1']);
  });

  it('names a single publish after the answered incarnation, and gives up, writing nothing, while it keeps changing', async () => {
    const calls: Array<{ keys: string[]; args: string[] }> = [];
    let next = 0;
    const make = (answer: (inc: string) => unknown) =>
      producerScripts(
        fakePort(
          {
            evalsha: async (_sha, keys, args) => {
              calls.push({ keys, args });
              return answer(args[0]!);
            },
            eval: async () => null,
          },
          () => {
            throw new Error('not used');
          },
          () => '',
        ),
        { idempotent: ONE, batch: MANY },
      );
    const write = { key: 'o:3', eventId: 'e', ttlSeconds: 5, maxLen: 10, approx: true, fields: { f: 'v' } };
    const steady = make((inc) => (inc === 'i1' ? [2, '5-0'] : [4, 'i1']));
    expect(await steady.evalIdempotent(write)).toEqual({ status: 'added', entryId: '5-0' });
    expect(calls.map((c) => c.keys[2])).toEqual(['{o:3}:idem::e', '{o:3}:idem:i1:e']);
    expect(calls.map((c) => c.keys[1])).toEqual(['{o:3}:incarnation', '{o:3}:incarnation']);

    calls.length = 0;
    const churning = make(() => [4, `i${++next}`]);
    const err = await churning.evalIdempotent(write).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedisCommandError);
    expect(err).toMatchObject({ retriable: true, inDoubt: false });
    expect(calls).toHaveLength(3);
  });
});
