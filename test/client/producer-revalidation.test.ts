/**
 * Producers see a new layout promptly (docs/producing.md#routing-after-a-scale): over a real
 * Node server and Redis, a publishing producer revalidates its routing every `revalidateMs` with
 * a conditional request, is answered 304 while the layout is unchanged, and routes to the shards
 * a scale-out added within that period instead of at the end of its 30 s lease.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type RunningServer, startServer } from '../../node/server.js';
import { ioredisAdapter } from '../../src/client/ioredis-adapter.js';
import type { FetchLike } from '../../src/client/transport.js';
import { parseConfig } from '../../src/config.js';
import { routeV1 } from '../../src/routing/route-v1.js';
import { standaloneClient, uniquePrefix } from '../support/redis.js';
import { producer } from './fixtures.js';

const PERIOD_MS = 300;
const redis = standaloneClient();
const adapter = ioredisAdapter(redis);
let server: RunningServer;

beforeAll(async () => {
  const config = parseConfig({
    PORT: '0',
    REDIS_URL: inject('redisUrl'),
    COORDINATOR_KEY_PREFIX: uniquePrefix('reval'),
    COORDINATOR_SWEEP_INTERVAL_MS: '1000',
  });
  server = await startServer({ config, log: () => {} });
});
afterAll(async () => {
  await server?.close();
  await redis.quit();
});

async function post(path: string, body: unknown): Promise<number> {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await res.text();
  return res.status;
}

async function createStream(shards: number): Promise<string> {
  const p = uniquePrefix('reval');
  expect(await post(`/coord/v1/streams/${p}`, { initialShardCount: shards, requestedBy: 'test' })).toBe(201);
  return p;
}

/** One request to the routing route as the producer sent it. */
interface RoutingRequest {
  sentAt: number;
  ifNoneMatch: string | null;
  status?: number;
}

/** The real `fetch`, recording every producer-routing request and its answer's status. */
function countingFetch(hold?: () => Promise<void>) {
  const requests: RoutingRequest[] = [];
  const fetchFn: FetchLike = async (url, init) => {
    if (!url.endsWith('/producer-routing')) return fetch(url, init);
    const request: RoutingRequest = {
      sentAt: Date.now(),
      ifNoneMatch: new Headers(init.headers).get('if-none-match'),
    };
    requests.push(request);
    if (hold && request.ifNoneMatch !== null) await hold();
    const res = await fetch(url, init);
    request.status = res.status;
    return res;
  };
  return { fetch: fetchFn, requests };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('producer > routing after a scale', () => {
  it('routes records to the shards a scale-out added within the revalidation period', async () => {
    const p = await createStream(4);
    const counted = countingFetch();
    const prod = producer({
      coordinatorUrl: server.url,
      fetch: counted.fetch,
      streamPrefix: p,
      redis: adapter,
      revalidateMs: PERIOD_MS,
    });
    // Keys that land on shard 4..7 once there are 8 shards.
    const keys = Array.from({ length: 200 }, (_, i) => `order-${i}`).filter((k) => routeV1(k, 8) >= 4);
    const publishAll = () => prod.publishBatch(keys.map((k) => ({ partitionKey: k, fields: { k } })));
    expect((await publishAll()).every((r) => r.ok && r.shardIndex < 4)).toBe(true);

    const scaled = await post(`/coord/v1/streams/${p}/scale`, {
      targetShardCount: 8,
      requestedBy: 'test',
      reason: 'revalidation',
    });
    expect(scaled).toBe(202);
    const scaledAt = Date.now();
    // Bounded: far below the 25 s the lease alone would take (its refresh-ahead point).
    let onNewShards = 0;
    while (onNewShards === 0 && Date.now() - scaledAt < 5_000) {
      const results = await publishAll();
      expect(results.every((r) => r.ok)).toBe(true);
      onNewShards = results.filter((r) => r.ok && r.shardIndex >= 4).length;
      if (onNewShards === 0) await sleep(20);
    }
    expect(onNewShards).toBe(keys.length);
    let written = 0;
    for (let i = 4; i < 8; i++) written += await redis.xlen(`${p}:${i}`);
    expect(written).toBeGreaterThanOrEqual(keys.length);
    // The change arrived as a 200 to a conditional request; before it, only 304s.
    const statuses = counted.requests.map((r) => r.status);
    expect(statuses[0]).toBe(200);
    expect(counted.requests.at(-1)).toMatchObject({ status: 200, ifNoneMatch: expect.any(String) });
    expect(statuses.slice(1, -1).every((s) => s === 304)).toBe(true);
  });

  it('costs at most one conditional request per period on an unchanged layout, each answered 304', async () => {
    const p = await createStream(4);
    const counted = countingFetch();
    const prod = producer({
      coordinatorUrl: server.url,
      fetch: counted.fetch,
      streamPrefix: p,
      redis: adapter,
      revalidateMs: PERIOD_MS,
    });
    await prod.publish({ partitionKey: 'warm-up', fields: { n: '0' } });
    const start = Date.now();
    let n = 0;
    while (Date.now() - start < 3_000) {
      await prod.publish({ partitionKey: `k-${n}`, fields: { n: String(n++) } });
      await sleep(10);
    }
    const end = Date.now();
    await sleep(100); // let the last revalidation land
    const inWindow = counted.requests.filter((r) => r.sentAt >= start && r.sentAt <= end);
    expect(inWindow.length).toBeGreaterThan(0);
    expect(inWindow.length).toBeLessThanOrEqual(Math.floor((end - start) / PERIOD_MS) + 1);
    expect(inWindow.every((r) => r.status === 304 && r.ifNoneMatch !== null)).toBe(true);
  });

  it('never holds a publish back while a revalidation is waiting for the coordinator', async () => {
    const p = await createStream(2);
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const counted = countingFetch(() => held);
    const prod = producer({
      coordinatorUrl: server.url,
      fetch: counted.fetch,
      streamPrefix: p,
      redis: adapter,
      revalidateMs: PERIOD_MS,
    });
    await prod.publish({ partitionKey: 'first', fields: { n: '0' } });
    await sleep(PERIOD_MS);
    for (let i = 1; i <= 20; i++) await prod.publish({ partitionKey: `k-${i}`, fields: { n: String(i) } });
    // One revalidation started and is still held; every publish went through meanwhile.
    expect(counted.requests.filter((r) => r.ifNoneMatch !== null)).toHaveLength(1);
    expect(counted.requests.at(-1)!.status).toBeUndefined();
    expect((await redis.xlen(`${p}:0`)) + (await redis.xlen(`${p}:1`))).toBe(21);
    release();
    await sleep(50);
    expect(counted.requests.at(-1)!.status).toBe(304);
  });
});
