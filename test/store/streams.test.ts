import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { isCoordinatorError } from '../../src/core/errors.js';
import { createIoredisClient, IoredisStore } from '../../src/store/ioredis-store.js';
import { shardKey } from '../../src/store/keys.js';
import { streamHeadOf } from '../../src/store/stream-head.js';
import { backends, uniquePrefix } from '../support/redis.js';
import { freePort } from '../support/redis-server.js';
import { streamDoc } from '../support/store-fixtures.js';

/** XINFO GROUPS of `key` as objects (RESP2 flat pairs). */
async function groupsOf(client: ReturnType<(typeof backends)[number]['make']>, key: string) {
  const raw = (await client.xinfo('GROUPS', key)) as unknown[][];
  return raw.map((flat) => {
    const o: Record<string, unknown> = {};
    for (let i = 0; i < flat.length; i += 2) o[String(flat[i])] = flat[i + 1];
    return o;
  });
}

describe.each(backends)('store > streams, provisioning and health ($name)', ({ make }) => {
  const client = make();
  const ns = uniquePrefix('ns');
  const store = new IoredisStore(client, { namespace: ns });
  afterAll(async () => {
    await client.quit();
  });

  it('creates a missing shard stream with the group at the tail and lag 0', async () => {
    const key = shardKey(uniquePrefix('prov'), 0);
    await store.provision(key, 'billing');
    expect(await client.exists(key)).toBe(1);
    const [g] = await groupsOf(client, key);
    expect(g).toMatchObject({ name: 'billing', pending: 0, lag: 0, 'entries-read': 0 });
  });

  it('starts a new group after existing entries, so old records are not delivered', async () => {
    const key = shardKey(uniquePrefix('tail'), 3);
    for (let i = 0; i < 3; i++) await client.xadd(key, '*', 'n', String(i));
    const lastId = (await client.xrevrange(key, '+', '-', 'COUNT', 1))[0]?.[0];
    await store.provision(key, 'late');
    const [g] = await groupsOf(client, key);
    expect(g).toMatchObject({ name: 'late', lag: 0, 'entries-read': 3, 'last-delivered-id': lastId });
    await client.xadd(key, '*', 'n', 'new');
    expect((await groupsOf(client, key))[0]).toMatchObject({ lag: 1 });
  });

  it('is idempotent: an existing group (BUSYGROUP) is success and keeps its position', async () => {
    const key = shardKey(uniquePrefix('busy'), 1);
    await store.provision(key, 'g');
    await client.xadd(key, '*', 'n', '1');
    await store.provision(key, 'g');
    const groups = await groupsOf(client, key);
    expect(groups).toHaveLength(1);
    expect(groups[0]).toMatchObject({ lag: 1 });
  });

  it('reports any other Redis error as REDIS_STREAM_PROVISIONING_FAILED naming the stream', async () => {
    const key = shardKey(uniquePrefix('wrong'), 0);
    await client.set(key, 'not a stream');
    const err = await store.provision(key, 'g').catch((e: unknown) => e);
    expect(isCoordinatorError(err) && err.code).toBe('REDIS_STREAM_PROVISIONING_FAILED');
    expect((err as Error).message).toContain(`"${key}"`);
    expect((err as Error).message).toContain('WRONGTYPE');
    expect((err as Error).message).not.toMatch(/redis:\/\//);
    expect(await client.get(key)).toBe('not a stream');
  });

  it('counts existing keys across slots', async () => {
    const p = uniquePrefix('count');
    const keys = Array.from({ length: 8 }, (_, i) => shardKey(p, i));
    for (const k of keys.slice(0, 5)) await client.xadd(k, '*', 'a', '1');
    expect(await store.countExisting(keys)).toBe(5);
    expect(await store.countExisting([])).toBe(0);
  });

  it('lists registered streams sorted, and forgets unregistered ones', async () => {
    expect(await store.listStreams()).toEqual([]);
    await store.registerStream('orders');
    await store.registerStream('audit');
    await store.registerStream('orders');
    expect(await store.listStreams()).toEqual(['audit', 'orders']);
    await store.unregisterStream('orders');
    expect(await store.listStreams()).toEqual(['audit']);
  });

  it('keeps the listing separate from stream documents', async () => {
    const p = uniquePrefix('listing');
    const doc = streamDoc(p);
    const r = await store.commit({
      prefix: p,
      expect: 'absent',
      stream: { doc, head: streamHeadOf(doc, 3000) },
      groups: [],
    });
    expect(r.ok).toBe(true);
    expect(await store.listStreams()).not.toContain(p);
  });

  it('answers ping', async () => {
    expect(await store.ping()).toBe(true);
  });
});

describe('store > Redis down', () => {
  it('answers ping false and fails load/commit with REDIS_UNAVAILABLE without naming the address', async () => {
    const port = await freePort();
    const client = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on('error', () => {});
    const store = new IoredisStore(client, { namespace: 'down', ownsClient: true, pingTimeoutMs: 200 });
    expect(await store.ping()).toBe(false);
    for (const op of [
      () => store.load('p', 'all'),
      () =>
        store.readMember({
          prefix: 'p',
          group: 'g',
          memberId: 'm',
          now: 0,
          fastKey: null,
          leaseExpiresAt: 0,
          progressJson: '[]',
          shards: [],
          maxDue: 1,
        }),
      () => store.commit({ prefix: 'p', expect: 'absent', groups: [] }),
    ]) {
      const err = await op().catch((e: unknown) => e);
      expect(isCoordinatorError(err) && err.code).toBe('REDIS_UNAVAILABLE');
      expect((err as Error).message).toBe('Redis is unavailable');
    }
    await store.close();
  });

  it('builds standalone and Cluster clients from configuration', () => {
    const a = createIoredisClient({ url: 'redis://127.0.0.1:1', clusterNodes: [] });
    const b = createIoredisClient({ clusterNodes: ['127.0.0.1:1', '127.0.0.1:2'] });
    expect(a.isCluster).toBe(false);
    expect(b.isCluster).toBe(true);
    a.disconnect();
    b.disconnect();
  });
});
