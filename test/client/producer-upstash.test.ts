/**
 * The producer over @upstash/redis, against real Redis behind a minimal Upstash REST bridge
 * (the Miniflare run of the edge build is another suite): routing, stale-route re-routing,
 * idempotent publish and batches behave as over ioredis.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Redis as Upstash } from '@upstash/redis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { FetchLike } from '../../src/client/transport.js';
import { upstashAdapter } from '../../src/client/upstash-adapter.js';
import { routeV1 } from '../../src/routing/route-v1.js';
import { IDEMPOTENT_BATCH } from '../../src/store/scripts/idempotent-batch.js';
import { IDEMPOTENT_PUBLISH } from '../../src/store/scripts/idempotent-publish.js';
import { standaloneClient, uniquePrefix } from '../support/redis.js';
import { makeStack } from '../support/stack.js';
import { startUpstashBridge, type UpstashBridge } from '../support/upstash-bridge.js';
import { createStream, producer, readShard, stackFetch, totalEntries } from './fixtures.js';
import { referenceDouble } from './reference-double.js';

const stack = makeStack({ name: 'standalone', make: standaloneClient });
const redis = standaloneClient();
let bridge: UpstashBridge;
let client: Upstash;

beforeAll(async () => {
  bridge = await startUpstashBridge({ redisUrl: inject('redisUrl') });
  client = new Upstash({
    url: bridge.url,
    token: bridge.token,
    automaticDeserialization: false,
    enableTelemetry: false,
    retry: false,
  });
});
afterAll(async () => {
  await bridge.close();
  await stack.close();
  await redis.quit();
});

describe('producer over @upstash/redis (real Redis behind a REST bridge)', () => {
  it('publishes to the routeV1 shard with the fields as given', async () => {
    const p = uniquePrefix('up');
    await createStream(stack, p, 8);
    const prod = producer({ streamPrefix: p, redis: upstashAdapter(client), fetch: stackFetch(stack) });
    const r = await prod.publish({ partitionKey: 'order-123', fields: { payload: '{"a":1}', n: '42' } });
    expect(r).toMatchObject({ shardIndex: 5, streamKey: `${p}:5`, duplicate: false });
    expect(await readShard(redis, r.streamKey)).toEqual([[r.entryId, { payload: '{"a":1}', n: '42' }]]);
  });

  it('re-routes after a stale route (nil from XADD NOMKSTREAM)', async () => {
    const p = uniquePrefix('up');
    await createStream(stack, p, 4);
    const double = referenceDouble({ streamPrefix: p, shardCount: 2 });
    let target: FetchLike = stackFetch(stack);
    const prod = producer({ streamPrefix: p, redis: upstashAdapter(client), fetch: (u, i) => target(u, i) });
    await prod.routing();
    target = double.fetch;
    await redis.del(`${p}:2`, `${p}:3`);
    const keys = Array.from({ length: 12 }, (_, i) => `k${i}`);
    for (const k of keys) {
      const r = await prod.publish({ partitionKey: k, fields: { k } });
      expect(r.shardIndex).toBe(routeV1(k, 2));
    }
    expect(await totalEntries(redis, p, 2)).toBe(12);
  });

  it('writes one entry for 20 concurrent publishes of one eventId', async () => {
    const p = uniquePrefix('up');
    await createStream(stack, p, 4);
    const prod = producer({ streamPrefix: p, redis: upstashAdapter(client), fetch: stackFetch(stack) });
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        prod.publish({ partitionKey: 'x', fields: { a: '1' }, eventId: 'once' }),
      ),
    );
    expect(new Set(results.map((r) => r.entryId)).size).toBe(1);
    expect(await totalEntries(redis, p, 4)).toBe(1);
  });

  it('appends a batch of plain records as one billed command per shard, in input order, refusing per record', async () => {
    const p = uniquePrefix('up');
    await createStream(stack, p, 4);
    const prod = producer({
      streamPrefix: p,
      redis: upstashAdapter(client),
      fetch: stackFetch(stack),
      publishMaxAttempts: 1,
    });
    await prod.routing();
    const records = Array.from({ length: 40 }, (_, i) => ({
      partitionKey: `c${i}`,
      fields: { i: String(i) },
    }));
    bridge.reset();
    const results = await prod.publishBatch(records);
    // One script call per shard (after the first sight of a script, its SCRIPT LOAD aside).
    const calls = bridge.requests.flatMap((r) => r.commands).filter((c) => c[0]?.toLowerCase() !== 'script');
    expect(calls).toHaveLength(4);
    expect(calls.every((c) => c[0]?.toLowerCase() === 'evalsha')).toBe(true);
    expect(results.every((r) => r.ok)).toBe(true);
    expect(results.map((r) => r.ok && r.shardIndex)).toEqual(records.map((r) => routeV1(r.partitionKey, 4)));
    for (let shard = 0; shard < 4; shard++) {
      const order = (await readShard(redis, `${p}:${shard}`)).map(([, f]) => Number(f.i));
      expect(order).toEqual(records.map((_, i) => i).filter((i) => routeV1(`c${i}`, 4) === shard));
    }
    // A shard whose key is gone refuses its own records (stale route); the other shards' are written.
    await redis.del(`${p}:2`);
    const mixed = await prod.publishBatch(records);
    mixed.forEach((r, i) => {
      if (routeV1(`c${i}`, 4) === 2)
        expect(r).toMatchObject({ ok: false, error: { code: 'STREAM_MISSING' } });
      else expect(r.ok).toBe(true);
    });
  });

  it('pipelines a batch per shard, loading an unknown script first', async () => {
    const p = uniquePrefix('up');
    await createStream(stack, p, 4);
    const lua = `-- ${randomBytes(8).toString('hex')}\n${IDEMPOTENT_PUBLISH.lua}`;
    const sha1 = createHash('sha1').update(lua).digest('hex');
    const batchLua = `-- ${randomBytes(8).toString('hex')}\n${IDEMPOTENT_BATCH.lua}`;
    const batchScript = {
      name: 'fresh-batch',
      lua: batchLua,
      sha1: createHash('sha1').update(batchLua).digest('hex'),
    };
    const adapter = upstashAdapter(client, { idempotentScript: { name: 'fresh', lua, sha1 }, batchScript });
    const prod = producer({ streamPrefix: p, redis: adapter, fetch: stackFetch(stack) });
    const records = Array.from({ length: 30 }, (_, i) => ({
      partitionKey: `c${i % 10}`,
      fields: { i: String(i) },
      ...(i % 2 === 0 ? { eventId: `e${i % 10}` } : {}),
    }));
    const results = await prod.publishBatch(records);
    expect(results.every((r) => r.ok)).toBe(true);
    // e0,e2,…,e8 each appear three times: two repeats of five ids are duplicates.
    expect(results.filter((r) => r.ok && r.duplicate)).toHaveLength(10);
    expect(await totalEntries(redis, p, 4)).toBe(20);
    for (const r of results) if (r.ok) expect(r.streamKey).toBe(`${p}:${r.shardIndex}`);
    // Loaded once: the next batch sends no SCRIPT LOAD, only the EVALSHAs.
    bridge.reset();
    const again = await prod.publishBatch(records);
    expect(again.filter((r) => r.ok && r.duplicate)).toHaveLength(15);
    const sent = bridge.requests.flatMap((r) => r.commands.map((c) => c[0]?.toLowerCase()));
    expect(sent).not.toContain('script');
    expect(sent).toContain('evalsha');
  });
});
