/**
 * Upstash's per-key script locks (docs/workers.md#upstash-key-locking): with the option on, the
 * Upstash store, inspector and producer send the scripts that declare every key they touch with
 * the `allow-key-locking` shebang (their own text and SHA1) and every other script as it is; the
 * option is on by default only for a `*.upstash.io` REST URL; and Redis behind a self-hosted REST
 * endpoint, which refuses the flag, is answered with an error that names UPSTASH_KEY_LOCKING.
 *
 * Real Upstash cannot be reached from the test machine, so what Upstash would do with the flag is
 * not measured here: the requests are checked as @upstash/redis sends them (a recording
 * requester stands in for Upstash), and against real Redis through the REST bridge.
 */
import { createHash } from 'node:crypto';
import { Redis } from '@upstash/redis';
import type { Redis as IoRedis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { upstashAdapter } from '../../src/client/upstash-adapter.js';
import { isCoordinatorError } from '../../src/core/errors.js';
import type { ScriptCall } from '../../src/store/scripts/commit-args.js';
import type { LuaScript } from '../../src/store/scripts/lua-script.js';
import { createUpstashClient } from '../../src/store/upstash-client.js';
import { UpstashInspector } from '../../src/store/upstash-inspector.js';
import {
  KEY_LOCKING_SHEBANG,
  keyLockingByDefault,
  sha1Hex,
  withKeyLocking,
} from '../../src/store/upstash-script.js';
import { UpstashStore } from '../../src/store/upstash-store.js';
import { keyLockingOf, parseWorkerSettings } from '../../workers/env.js';
import { SCRIPTS } from '../store/script-index.js';
import { standaloneClient, uniquePrefix } from '../support/redis.js';
import { startUpstashBridge, type UpstashBridge } from '../support/upstash-bridge.js';
import { type RunningWorker, startWorker } from '../support/worker.js';

const nodeSha1 = (text: string) => createHash('sha1').update(text).digest('hex');
const ALL: readonly LuaScript[] = Object.values(SCRIPTS);

/** The scripts the store runs that touch only the keys they are passed (reviewed one by one). */
const STORE_DECLARING = [
  'acquire-lock',
  'renew-lock',
  'release-lock',
  'load',
  'member-read',
  'steady-read',
  'assignment-read',
  'members-read',
  'due-read',
  'group-records',
  'commit',
  'register-stream',
  'provision',
  'provision-existing',
  'shard-evidence',
  'retire-shard',
  'delete-shard',
  'clear-shard-keys',
  'due-mark',
  'due-claim',
  'due-settle',
  'due-seed',
];

/** `name` or `name+lock` for a SHA1 or a text of any script, plain or flagged (checked with node:crypto). */
const LABELS = new Map<string, string>();
for (const s of ALL) {
  const flagged = KEY_LOCKING_SHEBANG + s.lua;
  LABELS.set(s.sha1, s.name).set(s.lua, s.name);
  LABELS.set(nodeSha1(flagged), `${s.name}+lock`).set(flagged, `${s.name}+lock`);
}
const label = (shaOrText: unknown) => LABELS.get(String(shaOrText)) ?? `unknown ${String(shaOrText)}`;

/**
 * A real @upstash/redis client whose requests are recorded instead of sent: EVALSHA is answered
 * NOSCRIPT (so the text follows), EVAL and pipelined commands with an error, SCRIPT LOAD with the
 * SHA1 of the text. Each script call is recorded as `[command, label]`.
 */
function recordingClient() {
  const calls: string[][] = [];
  const answer = (cmd: unknown[]) => {
    const name = String(cmd[0]).toLowerCase();
    if (name === 'evalsha' || name === 'eval') calls.push([name, label(cmd[1])]);
    if (name === 'script') {
      calls.push(['script load', label(cmd[2])]);
      return { result: nodeSha1(String(cmd[2])) };
    }
    return name === 'evalsha'
      ? { error: 'NOSCRIPT No matching script. Please use EVAL.' }
      : { error: 'ERR fake' };
  };
  const client = new Redis({
    request: async <T>(req: { path?: string[]; body?: unknown }) => {
      const body = req.body as unknown[];
      const reply = req.path?.[0] === 'pipeline' ? (body as unknown[][]).map(answer) : answer(body);
      return reply as { result?: T; error?: string };
    },
  });
  return { client, calls };
}

/** The store's protected script call, for running every script through it. */
const runOn = (store: UpstashStore, script: LuaScript, call: ScriptCall) =>
  (store as unknown as { script(s: LuaScript, c: ScriptCall): Promise<unknown> }).script(script, call);

describe('upstash > key locking: the flagged scripts', () => {
  it('hashes like node:crypto (edge lengths, non-ASCII, every script plain and flagged)', () => {
    const texts = ['', 'abc', 'a'.repeat(55), 'a'.repeat(56), 'a'.repeat(64), 'grüße ✓ 𝄞', 'x'.repeat(1000)];
    for (const t of texts) expect(sha1Hex(t)).toBe(nodeSha1(t));
    for (const s of ALL) {
      expect(sha1Hex(s.lua)).toBe(s.sha1);
      const flagged = withKeyLocking(s);
      expect(flagged.lua).toBe(KEY_LOCKING_SHEBANG + s.lua);
      expect(flagged.sha1).toBe(nodeSha1(flagged.lua));
      expect(flagged.name).toBe(s.name);
      // Computed once per script.
      expect(withKeyLocking(s)).toBe(flagged);
    }
  });

  it('starts with the shebang Upstash documents', () => {
    expect(KEY_LOCKING_SHEBANG).toBe('#!lua flags=allow-key-locking\n');
  });
});

describe('upstash > key locking: which scripts carry the flag', () => {
  it('sends the declaring store scripts flagged and the others (the stream probe) as they are', async () => {
    const { client, calls } = recordingClient();
    const store = new UpstashStore(client, { namespace: 'ns', keyLocking: true });
    for (const s of ALL) {
      calls.length = 0;
      await expect(runOn(store, s, { keys: ['k'], args: [] })).rejects.toThrow();
      const want = STORE_DECLARING.includes(s.name) ? `${s.name}+lock` : s.name;
      expect(calls, s.name).toEqual([
        ['evalsha', want],
        ['eval', want],
      ]);
    }
    // Through the store's own methods too.
    calls.length = 0;
    await expect(store.tryLock('p', 'tok', 1000)).rejects.toThrow();
    await expect(store.probeStream('p', 1)).rejects.toThrow();
    await expect(store.load('p', ['g'])).rejects.toThrow();
    expect(calls.filter(([c]) => c === 'evalsha').map(([, l]) => l)).toEqual([
      'acquire-lock+lock',
      'stream-probe',
      'load+lock',
    ]);
  });

  it('sends every script as it is with the option off (the default)', async () => {
    const { client, calls } = recordingClient();
    const store = new UpstashStore(client, { namespace: 'ns' });
    for (const s of ALL) await expect(runOn(store, s, { keys: ['k'], args: [] })).rejects.toThrow();
    expect(calls.every(([, l]) => !l?.endsWith('+lock') && !l?.startsWith('unknown'))).toBe(true);
    expect(calls).toHaveLength(2 * ALL.length);
  });

  it('flags both inspector scripts', async () => {
    const { client, calls } = recordingClient();
    const inspector = new UpstashInspector(client, { keyLocking: true });
    expect(await inspector.readShards(['s:0'])).toHaveLength(1);
    expect(await inspector.pendingSummaries([{ key: 's:0', group: 'g' }])).toEqual([null]);
    expect(calls).toEqual([
      ['evalsha', 'read-shards+lock'],
      ['eval', 'read-shards+lock'],
      ['evalsha', 'pending-summaries+lock'],
      ['eval', 'pending-summaries+lock'],
    ]);
  });

  it('flags the producer scripts only when asked to, single calls and pipelines alike', async () => {
    const write = { key: 'orders:0', maxLen: 10, approx: true, fields: { f: 'v' } };
    const batch = [
      { kind: 'idempotent' as const, ...write, eventId: 'a', ttlSeconds: 5 },
      { kind: 'idempotent' as const, ...write, eventId: 'b', ttlSeconds: 5 },
    ];
    for (const keyLocking of [true, false]) {
      const { client, calls } = recordingClient();
      const producer = upstashAdapter(client, { keyLocking });
      await expect(producer.evalIdempotent({ ...batch[0]! })).rejects.toThrow();
      await producer.pipelineShards([batch]);
      const tag = keyLocking ? '+lock' : '';
      expect(calls).toEqual([
        ['evalsha', `idempotent-publish${tag}`],
        ['eval', `idempotent-publish${tag}`],
        ['script load', `idempotent-publish-batch${tag}`],
        ['evalsha', `idempotent-publish-batch${tag}`],
        // Answered NOSCRIPT: sent again with the text, in the next pipeline.
        ['eval', `idempotent-publish-batch${tag}`],
      ]);
    }
  });
});

describe('upstash > key locking: on by default for Upstash only', () => {
  it('decides from the REST URL host', () => {
    expect(keyLockingByDefault('https://eu1-happy-cat-12345.upstash.io')).toBe(true);
    expect(keyLockingByDefault('https://EU1-HAPPY-CAT-12345.UPSTASH.IO/')).toBe(true);
    expect(keyLockingByDefault('http://127.0.0.1:8079')).toBe(false);
    expect(keyLockingByDefault('https://redis.example.com')).toBe(false);
    expect(keyLockingByDefault('https://upstash.io.example.com')).toBe(false);
    expect(keyLockingByDefault('https://notupstash.io')).toBe(false);
    expect(keyLockingByDefault('not a url')).toBe(false);
  });

  const settings = (env: Record<string, string>) => {
    const r = parseWorkerSettings({ UPSTASH_REDIS_REST_TOKEN: 't', ...env });
    if (!r.ok) throw new Error(r.problems.join('; '));
    return r.settings;
  };

  it('follows UPSTASH_KEY_LOCKING when set, the URL otherwise', () => {
    const upstash = 'https://eu1-happy-cat-12345.upstash.io';
    const bridge = 'http://127.0.0.1:8079';
    expect(keyLockingOf(settings({ UPSTASH_REDIS_REST_URL: upstash }))).toBe(true);
    expect(keyLockingOf(settings({ UPSTASH_REDIS_REST_URL: bridge }))).toBe(false);
    expect(keyLockingOf(settings({ UPSTASH_REDIS_REST_URL: upstash, UPSTASH_KEY_LOCKING: 'false' }))).toBe(
      false,
    );
    expect(keyLockingOf(settings({ UPSTASH_REDIS_REST_URL: bridge, UPSTASH_KEY_LOCKING: 'true' }))).toBe(
      true,
    );
    expect(keyLockingOf(settings({ UPSTASH_REDIS_REST_URL: upstash, UPSTASH_KEY_LOCKING: '' }))).toBe(true);
  });

  it('names an invalid UPSTASH_KEY_LOCKING without echoing it', () => {
    const r = parseWorkerSettings({
      UPSTASH_REDIS_REST_URL: 'http://127.0.0.1:8079',
      UPSTASH_REDIS_REST_TOKEN: 't',
      UPSTASH_KEY_LOCKING: 'maybe',
    });
    expect(r.ok).toBe(false);
    const problems = r.ok ? '' : r.problems.join('; ');
    expect(problems).toContain('UPSTASH_KEY_LOCKING');
    expect(problems).not.toContain('maybe');
  });
});

describe('upstash > key locking against real Redis (REST bridge)', () => {
  let bridge: UpstashBridge;
  let redis: IoRedis;
  const running: RunningWorker[] = [];
  beforeAll(async () => {
    bridge = await startUpstashBridge({ redisUrl: inject('redisUrl') });
    redis = standaloneClient();
  });
  afterAll(async () => {
    await Promise.all(running.map((w) => w.close()));
    await bridge.close();
    await redis.quit();
  });

  it('hashes every flagged script as Redis does (Upstash caches a script by that SHA1)', async () => {
    for (const s of ALL) {
      const flagged = withKeyLocking(s);
      expect(await redis.eval('return redis.sha1hex(ARGV[1])', 0, flagged.lua)).toBe(flagged.sha1);
    }
  });

  it('answers a Redis that refuses the flag with an error naming UPSTASH_KEY_LOCKING=false', async () => {
    const client = createUpstashClient({ url: bridge.url, token: bridge.token });
    const store = new UpstashStore(client, { namespace: uniquePrefix('kl'), keyLocking: true });
    const err = await store.tryLock('p', 'tok', 1000).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isCoordinatorError(err)).toBe(true);
    expect(err).toMatchObject({ code: 'REDIS_UNAVAILABLE', status: 503 });
    expect((err as Error).message).toContain('UPSTASH_KEY_LOCKING=false');
    // The stream probe is never flagged: it runs.
    expect(await store.probeStream('p', Date.now())).toBeNull();
    // Without the flag the same call succeeds.
    const plain = new UpstashStore(client, { namespace: uniquePrefix('kl') });
    expect(await plain.tryLock('p', 'tok', 1000)).toBe(true);
  });

  it('the Worker told UPSTASH_KEY_LOCKING=true over the bridge answers 503 naming it; by default it serves', async () => {
    const base = {
      UPSTASH_REDIS_REST_URL: bridge.url,
      UPSTASH_REDIS_REST_TOKEN: bridge.token,
      COORDINATOR_OPEN_MODE: 'true',
      COORDINATOR_KEY_PREFIX: uniquePrefix('klw'),
    };
    const create = async (w: RunningWorker) => {
      const res = await w.fetch(`/coord/v1/streams/${uniquePrefix('s')}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ requestedBy: 't', initialShardCount: 2 }),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const forced = await startWorker({ ...base, UPSTASH_KEY_LOCKING: 'true' });
    running.push(forced);
    const refused = await create(forced);
    expect(refused.status).toBe(503);
    expect(refused.body.errorCode).toBe('REDIS_UNAVAILABLE');
    expect(String(refused.body.message)).toContain('UPSTASH_KEY_LOCKING=false');

    const byDefault = await startWorker(base);
    running.push(byDefault);
    expect((await create(byDefault)).status).toBe(201);
  });
});
