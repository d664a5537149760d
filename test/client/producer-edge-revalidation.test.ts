/**
 * Revalidation inside workerd (docs/producing.md#at-the-edge): a Worker that keeps its producer
 * for the isolate's life and hands `producer.settled()` to `ctx.waitUntil` sees a scale-out
 * within the revalidation period, although each revalidation starts in one request and lands
 * after that request's response was sent.
 */
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type RunningServer, startServer } from '../../node/server.js';
import { parseConfig } from '../../src/config.js';
import { routeV1 } from '../../src/routing/route-v1.js';
import { uniquePrefix } from '../support/redis.js';
import { startUpstashBridge, type UpstashBridge } from '../support/upstash-bridge.js';
import { bundleEdgeWorker } from './edge-worker/bundle.js';

const PERIOD_MS = 300;
let server: RunningServer | undefined;
let bridge: UpstashBridge | undefined;
let mf: Miniflare | undefined;
/** Statuses of the routing requests the coordinator answered, in order. */
const routingStatuses: number[] = [];

beforeAll(async () => {
  const bundle = await bundleEdgeWorker('./revalidating-worker.ts');
  server = await startServer({
    config: parseConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      REDIS_URL: inject('redisUrl'),
      COORDINATOR_KEY_PREFIX: uniquePrefix('edge-reval'),
      COORDINATOR_SWEEP_INTERVAL_MS: '3600000',
    }),
    log: (_level, message, fields) => {
      if (message === 'request' && String(fields?.path).endsWith('/producer-routing'))
        routingStatuses.push(Number(fields?.status));
    },
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
      REVALIDATE_MS: String(PERIOD_MS),
    },
  });
  await mf.ready;
}, 30_000);

afterAll(async () => {
  await mf?.dispose();
  await bridge?.close();
  await server?.close();
});

async function admin(path: string, body: unknown): Promise<number> {
  const res = await fetch(`${server!.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await res.text();
  return res.status;
}

async function publish(streamPrefix: string, partitionKey: string): Promise<number> {
  const res = await mf!.dispatchFetch('http://edge.test/publish', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ streamPrefix, partitionKey }),
  });
  const answer = (await res.json()) as { ok: boolean; shardIndex?: number; message?: string };
  expect(answer.ok, answer.message).toBe(true);
  return answer.shardIndex!;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('producer SDK > edge entry > routing after a scale', () => {
  it('sees a scale-out within the revalidation period when its background work is handed to waitUntil', async () => {
    const p = uniquePrefix('edge-reval');
    expect(await admin(`/coord/v1/streams/${p}`, { initialShardCount: 2, requestedBy: 'test' })).toBe(201);
    const key = Array.from({ length: 100 }, (_, i) => `k-${i}`).find((k) => routeV1(k, 8) >= 2)!;
    expect(await publish(p, key)).toBe(routeV1(key, 2));
    // Requests spaced past the period, each starting a revalidation that lands after its answer.
    for (let i = 0; i < 3; i++) {
      await sleep(PERIOD_MS + 50);
      await publish(p, key);
    }
    expect(routingStatuses.filter((s) => s === 304).length).toBeGreaterThanOrEqual(2);

    const body = { targetShardCount: 8, requestedBy: 'test', reason: 'edge revalidation' };
    expect(await admin(`/coord/v1/streams/${p}/scale`, body)).toBe(202);
    const scaledAt = Date.now();
    let shard = routeV1(key, 2);
    while (shard < 2 && Date.now() - scaledAt < 5_000) {
      await sleep(50);
      shard = await publish(p, key);
    }
    expect(shard).toBe(routeV1(key, 8));
  });
});
