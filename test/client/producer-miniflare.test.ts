/**
 * The producer SDK's edge entry inside workerd (Miniflare): a Worker built from
 * `src/client/producer-edge.ts` + @upstash/redis fetches routing from a real coordinator on
 * 127.0.0.1 and writes through the Upstash REST bridge to the test Redis, which the test then
 * reads with ioredis.
 */
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type RunningServer, startServer } from '../../node/server.js';
import { parseConfig } from '../../src/config.js';
import { routeV1 } from '../../src/routing/route-v1.js';
import { standaloneClient, uniquePrefix } from '../support/redis.js';
import { startUpstashBridge, type UpstashBridge } from '../support/upstash-bridge.js';
import { bundleEdgeWorker, type EdgeBundle } from './edge-worker/bundle.js';
import { readShard, totalEntries } from './fixtures.js';

interface Published {
  ok: true;
  streamKey: string;
  shardIndex: number;
  entryId: string;
  duplicate: boolean;
}

const redis = standaloneClient();
let bundle: EdgeBundle;
let server: RunningServer | undefined;
let bridge: UpstashBridge | undefined;
let mf: Miniflare | undefined;

beforeAll(async () => {
  bundle = await bundleEdgeWorker();
  server = await startServer({
    config: parseConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      REDIS_URL: inject('redisUrl'),
      COORDINATOR_KEY_PREFIX: uniquePrefix('edge-coord'),
      // Nothing here needs housekeeping; keep the interval sweep out of the way.
      COORDINATOR_SWEEP_INTERVAL_MS: '3600000',
    }),
    log: () => {},
  });
  bridge = await startUpstashBridge({ redisUrl: inject('redisUrl') });
  mf = new Miniflare({
    modules: true,
    script: bundle.code,
    compatibilityDate: bundle.compatibilityDate,
    bindings: {
      COORDINATOR_URL: server.url,
      UPSTASH_REDIS_REST_URL: bridge.url,
      UPSTASH_REDIS_REST_TOKEN: bridge.token,
    },
  });
  await mf.ready;
}, 30_000);

afterAll(async () => {
  await mf?.dispose();
  await bridge?.close();
  await server?.close();
  await redis.quit();
});

/** Creates a stream of `shards` shards on the coordinator (shard streams provisioned). */
async function createStream(shards: number): Promise<string> {
  const prefix = uniquePrefix('edge');
  const res = await fetch(`${server!.url}/coord/v1/streams/${prefix}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ initialShardCount: shards, requestedBy: 'test' }),
  });
  expect(res.status).toBe(201);
  return prefix;
}

/** POSTs `body` to the Worker and returns its JSON answer (status checked). */
async function callWorker<T>(path: string, body: unknown): Promise<T> {
  const res = await mf!.dispatchFetch(`http://edge.test${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as T;
  expect(res.status, JSON.stringify(json)).toBe(200);
  return json;
}

describe('producer SDK > edge entry inside Miniflare over the Upstash bridge', () => {
  it('bundles without ioredis or any node: import', () => {
    expect(bundle.inputs.some((f) => f.endsWith('src/client/producer-edge.ts'))).toBe(true);
    expect(bundle.inputs.some((f) => f.includes('@upstash/redis'))).toBe(true);
    // Neither the ioredis package nor the SDK's ioredis adapter.
    expect(bundle.inputs.filter((f) => f.includes('ioredis'))).toEqual([]);
    expect(bundle.externalImports).toEqual([]);
    // Static, dynamic and require forms of a `node:` specifier.
    expect(bundle.code).not.toMatch(/(from\s*|import\s*\(?\s*|require\s*\(\s*)["']node:/);
  });

  it('publishes to the shard routeV1 chooses, with the fields as given', async () => {
    const p = await createStream(8);
    bridge!.reset();
    const r = await callWorker<Published>('/publish', {
      streamPrefix: p,
      partitionKey: 'order-123',
      fields: { payload: '{"a":1}', n: '42' },
    });
    const shard = routeV1('order-123', 8);
    expect(r).toMatchObject({ ok: true, shardIndex: shard, streamKey: `${p}:${shard}`, duplicate: false });
    expect(await readShard(redis, `${p}:${shard}`)).toEqual([[r.entryId, { payload: '{"a":1}', n: '42' }]]);
    expect(await totalEntries(redis, p, 8)).toBe(1);
    // The write went through the REST bridge, i.e. @upstash/redis inside workerd.
    const sent = bridge!.requests.flatMap((q) => q.commands);
    expect(sent.some((c) => c[0]?.toUpperCase() === 'XADD' && c[1] === `${p}:${shard}`)).toBe(true);
  });

  it('answers a repeated eventId with the first entry id and writes one entry', async () => {
    const p = await createStream(4);
    const record = { streamPrefix: p, partitionKey: 'k-7', fields: { a: '1' }, eventId: 'evt-1' };
    const first = await callWorker<Published>('/publish', record);
    const again = await callWorker<Published>('/publish', record);
    expect(first.duplicate).toBe(false);
    expect(again).toMatchObject({ duplicate: true, entryId: first.entryId, streamKey: first.streamKey });
    expect(first.shardIndex).toBe(routeV1('k-7', 4));
    expect(await readShard(redis, first.streamKey)).toEqual([[first.entryId, { a: '1' }]]);
    expect(await totalEntries(redis, p, 4)).toBe(1);
  });

  it('publishes a batch across shards, each record where routeV1 puts it', async () => {
    const p = await createStream(4);
    const records = Array.from({ length: 12 }, (_, i) => ({
      partitionKey: `b${i}`,
      fields: { i: String(i) },
      ...(i % 3 === 0 ? { eventId: `e${i}` } : {}),
    }));
    const results = await callWorker<Published[]>('/batch', { streamPrefix: p, records });
    expect(results).toHaveLength(12);
    results.forEach((r, i) => {
      expect(r, JSON.stringify(r)).toMatchObject({
        ok: true,
        shardIndex: routeV1(`b${i}`, 4),
        duplicate: false,
      });
    });
    expect(new Set(results.map((r) => r.shardIndex)).size).toBeGreaterThan(1);
    for (const [i, r] of results.entries()) {
      expect(await readShard(redis, `${p}:${r.shardIndex}`)).toContainEqual([r.entryId, { i: String(i) }]);
    }
    expect(await totalEntries(redis, p, 4)).toBe(12);
  });
});
