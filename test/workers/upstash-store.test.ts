/**
 * The Upstash store against real Redis: the real @upstash/redis client → the REST bridge →
 * redis-server. Its data layout is the ioredis store's (each reads what the other wrote), its
 * scripts fall back from EVALSHA to EVAL, and its errors never leak what was sent.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { isCoordinatorError } from '../../src/core/errors.js';
import { IoredisStore } from '../../src/store/ioredis-store.js';
import { createUpstashClient } from '../../src/store/upstash-client.js';
import { UpstashStore } from '../../src/store/upstash-store.js';
import { standaloneClient, uniquePrefix } from '../support/redis.js';
import { groupDoc, member, streamDoc, T0 } from '../support/store-fixtures.js';
import { startUpstashBridge, type UpstashBridge } from '../support/upstash-bridge.js';

describe('store > Upstash store over the REST bridge', () => {
  let bridge: UpstashBridge;
  let redis: Redis;
  let ns: string;
  let store: UpstashStore;
  let node: IoredisStore;
  let requests = 0;

  beforeAll(async () => {
    bridge = await startUpstashBridge({ redisUrl: inject('redisUrl') });
    redis = standaloneClient();
    ns = uniquePrefix('ns');
    const client = createUpstashClient({ url: bridge.url, token: bridge.token });
    store = new UpstashStore(client, { namespace: ns, onRequest: () => requests++ });
    node = new IoredisStore(redis, { namespace: ns });
  });
  afterAll(async () => {
    await bridge.close();
    await redis.quit();
  });

  it('takes, refuses and releases the per-stream mutex', async () => {
    const p = uniquePrefix('lock');
    expect(await store.tryLock(p, 'a', 5000)).toBe(true);
    expect(await store.tryLock(p, 'b', 5000)).toBe(false);
    // The Node store sees the same mutex.
    expect(await node.tryLock(p, 'c', 5000)).toBe(false);
    await store.unlock(p, 'b');
    expect(await store.tryLock(p, 'b', 5000)).toBe(false);
    await store.unlock(p, 'a');
    expect(await store.tryLock(p, 'b', 5000)).toBe(true);
    expect(await redis.pttl(`${ns}:{${p}}:lock`)).toBeGreaterThan(0);
  });

  it('commits what the ioredis store loads, and loads what it commits (one layout)', async () => {
    const p = uniquePrefix('orders/ü');
    const odd = 'grüße';
    const names = ['billing', odd, 'x:{y}'];
    const groups = Object.fromEntries(
      names.map((n) => [n, groupDoc(p, n, [member('m1', { memberName: '✓' })])]),
    );
    const until = Object.fromEntries(names.map((n) => [n, T0 + 10_000]));
    const r = await store.commit({
      prefix: p,
      expectedRevision: 0,
      stream: streamDoc(p, names),
      groups,
      fastPathUntil: until,
      leases: {
        billing: [{ memberId: 'm1', live: true, leaseExpiresAt: T0 + 20_000, lastHeartbeatAt: T0 + 5 }],
      },
    });
    expect(r).toEqual({ ok: true, revision: 1 });
    const viaNode = await node.load(p, 'all');
    const viaUpstash = await store.load(p, 'all');
    expect(viaUpstash).toEqual(viaNode);
    expect(viaUpstash?.groups.billing?.members.m1?.memberLeaseExpiresAt).toBe(T0 + 20_000);
    expect(viaUpstash?.groups[odd]?.members.m1?.memberName).toBe('✓');

    // A stale revision conflicts; the current one applies, and the Node store sees it.
    const doc = groupDoc(p, 'billing', ['m1', 'm2']);
    const write = { prefix: p, groups: { billing: doc }, fastPathUntil: { billing: T0 } };
    expect(await store.commit({ ...write, expectedRevision: 7 })).toEqual({ ok: false, reason: 'conflict' });
    expect(await store.commit({ ...write, expectedRevision: 1 })).toEqual({ ok: true, revision: 2 });
    expect(Object.keys((await node.load(p, ['billing']))?.groups.billing?.members ?? {})).toEqual([
      'm1',
      'm2',
    ]);
    expect(await store.load(uniquePrefix('none'), 'all')).toBeNull();
  });

  it('answers a steady heartbeat in one request and misses without writing', async () => {
    const p = uniquePrefix('fast');
    await node.commit({
      prefix: p,
      expectedRevision: 0,
      stream: streamDoc(p, ['g']),
      groups: { g: groupDoc(p, 'g', ['m0']) },
      fastPathUntil: { g: T0 + 10_000 },
      leases: { g: [{ memberId: 'm0', live: true, leaseExpiresAt: T0 + 15_000, lastHeartbeatAt: T0 }] },
      fastPath: { group: 'g', memberId: 'm0', key: 'k1', response: '{"status":"OK","x":"ü"}' },
    });
    const req = {
      prefix: p,
      group: 'g',
      memberId: 'm0',
      key: 'k1',
      now: T0 + 1000,
      leaseExpiresAt: T0 + 16_000,
      progressJson: '[]',
    };
    // Warm the script cache (a fresh Redis answers NOSCRIPT once), then count one steady call.
    expect(await store.fastHeartbeat(req)).toBe('{"status":"OK","x":"ü"}');
    bridge.reset();
    expect(await store.fastHeartbeat({ ...req, now: T0 + 1500 })).toBe('{"status":"OK","x":"ü"}');
    expect(bridge.requests.map((r) => r.commands[0]?.[0]?.toLowerCase())).toEqual(['evalsha']);
    expect(Number(await redis.zscore(`${ns}:{${p}}:leases:g`, 'm0'))).toBe(T0 + 16_000);
    expect(await store.fastHeartbeat({ ...req, key: 'other' })).toBeNull();
  });

  it('falls back to EVAL when Redis does not know a script (SCRIPT FLUSH)', async () => {
    const p = uniquePrefix('flush');
    await redis.script('FLUSH');
    bridge.reset();
    const before = requests;
    expect(await store.load(p, 'all')).toBeNull();
    expect(bridge.requests.map((r) => r.commands[0]?.[0]?.toLowerCase())).toEqual(['evalsha', 'eval']);
    expect(requests - before).toBe(2);
    bridge.reset();
    expect(await store.load(p, 'all')).toBeNull();
    expect(bridge.requests.map((r) => r.commands[0]?.[0]?.toLowerCase())).toEqual(['evalsha']);
  });

  it('provisions shard streams, counts keys and keeps the stream listing', async () => {
    const p = uniquePrefix('prov');
    await store.provision(`${p}:0`, 'g1');
    await store.provision(`${p}:0`, 'g1'); // BUSYGROUP is success
    expect(await store.countExisting([`${p}:0`, `${p}:1`, p])).toBe(1);
    expect(await store.countExisting([])).toBe(0);
    const groups = (await redis.xinfo('GROUPS', `${p}:0`)) as unknown[][];
    expect(groups.map((g) => g[1])).toEqual(['g1']);
    await redis.set(`${p}:9`, 'not a stream');
    await expect(store.provision(`${p}:9`, 'g1')).rejects.toMatchObject({
      code: 'REDIS_STREAM_PROVISIONING_FAILED',
    });

    await store.registerStream(p);
    await store.registerStream(`${p}-b`);
    expect(await store.listStreams()).toEqual([p, `${p}-b`].sort());
    await store.unregisterStream(p);
    expect(await store.listStreams()).toEqual([`${p}-b`]);
    expect(await store.ping()).toBe(true);
  });

  it('reads drain evidence and retires shards exactly as the ioredis store does', async () => {
    const p = uniquePrefix('shards');
    const key = `${p}:0`;
    expect(await store.readShard(key)).toEqual({ kind: 'absent' });
    expect(await store.provisionExisting(key, 'g')).toBe(false);
    expect(await redis.exists(key)).toBe(0);
    const id = (await redis.xadd(key, '*', 'payload', 'x'))!;
    expect(await store.provisionExisting(key, 'g')).toBe(true);
    await redis.xgroup('CREATE', key, 'early', '0');
    const reading = await store.readShard(key);
    expect(reading).toEqual(await node.readShard(key));
    expect(reading).toMatchObject({ kind: 'stream', length: 1, entriesAdded: 1 });
    // `early` has an undelivered entry: no evidence, nothing deleted.
    const refused = await store.retireShard(key, ['g']);
    expect(refused).toMatchObject({ kind: 'refused', reading: { kind: 'stream', length: 1 } });
    expect(await redis.exists(key)).toBe(1);
    await redis.xreadgroup('GROUP', 'early', 'c', 'STREAMS', key, '>');
    await redis.xack(key, 'early', id);
    expect(await store.retireShard(key, ['g'])).toEqual({ kind: 'deleted' });
    expect(await redis.exists(key)).toBe(0);
    expect(await store.retireShard(key, ['g'])).toEqual({ kind: 'absent' });
    await redis.set(`${p}:1`, 'not a stream');
    expect(await store.readShard(`${p}:1`)).toMatchObject({ kind: 'error' });
  });

  it('saves and reads the sweep cursor', async () => {
    expect(await store.readSweepCursor()).toBeNull();
    await store.writeSweepCursor('orders ü');
    expect(await store.readSweepCursor()).toBe('orders ü');
    expect(await redis.get(`${ns}:sweep-cursor`)).toBe('orders ü');
  });

  it('maps a document of the wrong Redis type to METADATA_CORRUPT without echoing the command', async () => {
    const p = uniquePrefix('wrongtype');
    const secret = randomBytes(8).toString('hex');
    await redis.set(`${ns}:{${p}}:stream`, 'a string, not a hash');
    const err = await store
      .tryLock(p, secret, 1000)
      .then(() => store.load(p, 'all'))
      .catch((e) => e);
    expect(isCoordinatorError(err)).toBe(true);
    expect(err.code).toBe('METADATA_CORRUPT');
    expect(err.message).not.toContain('command was');
    await store.unlock(p, secret);
  });

  it('answers REDIS_UNAVAILABLE for a rejected token or an unreachable endpoint, naming no secret', async () => {
    const token = `tok-${randomBytes(8).toString('hex')}`;
    const wrong = new UpstashStore(createUpstashClient({ url: bridge.url, token }), { namespace: ns });
    const err = await wrong.load('x', 'all').catch((e) => e);
    expect(err).toMatchObject({ code: 'REDIS_UNAVAILABLE' });
    expect(err.message).toContain('UPSTASH_REDIS_REST_TOKEN');
    expect(err.message).not.toContain(token);
    expect(await wrong.ping()).toBe(false);

    const dead = new UpstashStore(createUpstashClient({ url: 'http://127.0.0.1:1', token, retries: 0 }), {
      namespace: ns,
    });
    await expect(dead.tryLock('x', 't', 100)).rejects.toMatchObject({ code: 'REDIS_UNAVAILABLE' });
    expect(await dead.ping()).toBe(false);
  });
});
