/**
 * Stale routes and the routing lease. The scale-in is simulated, so the producer meets a retired
 * shard at a chosen moment: a 4-shard stream on the real coordinator, then the routing answer switches to a
 * reference-only double serving 2 shards and the keys of shards 2–3 are deleted (what
 * retirement does), so `XADD NOMKSTREAM` returns nil for producers still routing over 4.
 */
import { afterAll, describe, expect, inject, it } from 'vitest';
import { type RunningServer, startServer } from '../../node/server.js';
import { RoutingUnavailableError, StreamMissingError } from '../../src/client/errors.js';
import { ioredisAdapter } from '../../src/client/ioredis-adapter.js';
import type { FetchLike } from '../../src/client/transport.js';
import { parseConfig } from '../../src/config.js';
import { routeV1 } from '../../src/routing/route-v1.js';
import { standaloneClient, uniquePrefix } from '../support/redis.js';
import { makeStack } from '../support/stack.js';
import { createStream, producer, readShard, stackFetch, totalEntries } from './fixtures.js';
import { referenceDouble } from './reference-double.js';

const stack = makeStack({ name: 'standalone', make: standaloneClient });
const redis = standaloneClient();
const adapter = ioredisAdapter(redis);
afterAll(async () => {
  await stack.close();
  await redis.quit();
});

/** Partition keys that route to shard 2 or 3 of 4 (the shards a scale-in to 2 retires). */
function keysOnRetiredShards(count: number): string[] {
  const keys: string[] = [];
  for (let i = 0; keys.length < count; i++) if (routeV1(`key-${i}`, 4) >= 2) keys.push(`key-${i}`);
  return keys;
}

/** A stream of 4 shards on the real coordinator, and a fetch the test can switch to a double. */
async function scaleInScenario() {
  const p = uniquePrefix('scalein');
  await createStream(stack, p, 4);
  const double = referenceDouble({ streamPrefix: p, shardCount: 2 });
  double.state.metadataVersion = 9;
  let target: FetchLike = stackFetch(stack);
  const fetch: FetchLike = (url, init) => target(url, init);
  const retire = async () => {
    target = double.fetch;
    await redis.del(`${p}:2`, `${p}:3`);
  };
  return { p, double, fetch, retire };
}

describe('producer > stale route after a scale-in retirement', () => {
  it('refetches routing and lands the record on a live shard, readable there', async () => {
    const { p, double, fetch, retire } = await scaleInScenario();
    const prod = producer({ streamPrefix: p, redis: adapter, fetch });
    const [key] = keysOnRetiredShards(1);
    const before = await prod.publish({ partitionKey: key!, fields: { n: 'before' } });
    expect(before.shardIndex).toBeGreaterThanOrEqual(2);

    await retire();
    const after = await prod.publish({ partitionKey: key!, fields: { n: 'after' } });
    expect(after.shardIndex).toBe(routeV1(key!, 2));
    expect(after.streamKey).toBe(`${p}:${after.shardIndex}`);
    expect(await readShard(redis, after.streamKey)).toContainEqual([after.entryId, { n: 'after' }]);
    expect(double.requests()).toBe(1);
    expect((await prod.routing()).metadataVersion).toBe(9);
  });

  it('shares one routing refetch among concurrent publishes that all hit the retired shards', async () => {
    const { p, double, fetch, retire } = await scaleInScenario();
    const prod = producer({ streamPrefix: p, redis: adapter, fetch });
    await prod.routing();
    await retire();
    const keys = keysOnRetiredShards(30);
    const results = await Promise.all(
      keys.map((k, i) => prod.publish({ partitionKey: k, fields: { i: String(i) } })),
    );
    expect(results.map((r) => r.shardIndex)).toEqual(keys.map((k) => routeV1(k, 2)));
    expect(await totalEntries(redis, p, 2)).toBe(30);
    expect(double.requests()).toBe(1);
  });

  it('re-routes the stale records of a batch and keeps the others where they landed', async () => {
    const { p, fetch, retire } = await scaleInScenario();
    const prod = producer({ streamPrefix: p, redis: adapter, fetch });
    await prod.routing();
    await retire();
    const records = Array.from({ length: 40 }, (_, i) => ({
      partitionKey: `b-${i}`,
      fields: { i: String(i) },
    }));
    const results = await prod.publishBatch(records);
    results.forEach((r, i) => {
      expect(r.ok).toBe(true);
      if (r.ok) expect(r.shardIndex).toBe(routeV1(`b-${i}`, 2));
    });
    expect(await totalEntries(redis, p, 2)).toBe(40);
  });

  it('gives up with STREAM_MISSING after publishMaxAttempts when routing keeps naming a deleted key', async () => {
    const p = uniquePrefix('gone');
    await createStream(stack, p, 1);
    await redis.del(`${p}:0`);
    const double = referenceDouble({ streamPrefix: p, shardCount: 1 });
    const prod = producer({ streamPrefix: p, redis: adapter, fetch: double.fetch, publishMaxAttempts: 3 });
    const err = await prod.publish({ partitionKey: 'k', fields: { a: '1' } }).catch((e) => e);
    expect(err).toBeInstanceOf(StreamMissingError);
    expect(err).toMatchObject({ code: 'STREAM_MISSING', streamKey: `${p}:0`, attempts: 3 });
    // The likeliest cause for a newcomer: a producer pointed at another Redis than the coordinator's.
    expect(err.message).toContain('check its REDIS_URL');
    // First fetch, then one refetch per stale attempt but the last.
    expect(double.requests()).toBe(3);
    expect(await redis.exists(`${p}:0`)).toBe(0);
  });
});

describe('producer > routing lease with the coordinator stopped', () => {
  const servers: RunningServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  it('keeps publishing within the lease, then fails closed with ROUTING_UNAVAILABLE', async () => {
    const config = parseConfig({
      PORT: '0',
      REDIS_URL: inject('redisUrl'),
      COORDINATOR_KEY_PREFIX: uniquePrefix('lease'),
      COORDINATOR_SWEEP_INTERVAL_MS: '1000',
    });
    const server = await startServer({ config, log: () => {} });
    servers.push(server);
    const p = uniquePrefix('lease');
    const created = await fetch(`${server.url}/coord/v1/streams/${p}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ initialShardCount: 2, requestedBy: 'test' }),
    });
    expect(created.status).toBe(201);

    let t = Date.parse('2026-05-24T00:00:00Z');
    const prod = producer({
      coordinatorUrl: server.url,
      fetch: undefined,
      streamPrefix: p,
      redis: adapter,
      routingLeaseMs: 30_000,
      now: () => t,
    });
    await prod.publish({ partitionKey: 'k', fields: { n: '1' } });
    await server.close();

    // Inside the refresh-ahead window: the background refresh fails, the cached answer serves.
    t += 27_000;
    await expect(prod.publish({ partitionKey: 'k', fields: { n: '2' } })).resolves.toMatchObject({
      streamKey: expect.any(String),
    });

    t += 3_000;
    const err = await prod.publish({ partitionKey: 'k', fields: { n: '3' } }).catch((e) => e);
    expect(err).toBeInstanceOf(RoutingUnavailableError);
    expect(err).toMatchObject({ code: 'ROUTING_UNAVAILABLE', retryable: true });
    const batch = await prod.publishBatch([{ partitionKey: 'k', fields: { n: '4' } }]);
    expect(batch[0]).toMatchObject({ ok: false, error: { code: 'ROUTING_UNAVAILABLE' } });
    expect(await totalEntries(redis, p, 2)).toBe(2);
  });
});
