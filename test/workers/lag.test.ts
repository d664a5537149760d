/**
 * The Worker (no Prometheus endpoint) shows a group's lag through the JSON monitoring API: the
 * built Worker over Upstash (REST bridge → redis-server) answers the lag route with the same
 * numbers `XINFO GROUPS` and `XPENDING` give, and no `/actuator/prometheus`.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { standaloneClient, uniquePrefix } from '../support/redis.js';
import { startUpstashBridge, type UpstashBridge } from '../support/upstash-bridge.js';
import { type RunningWorker, startWorker } from '../support/worker.js';

describe('worker > lag over the JSON monitoring API', () => {
  let bridge: UpstashBridge;
  let redis: Redis;
  let worker: RunningWorker;
  beforeAll(async () => {
    bridge = await startUpstashBridge({ redisUrl: inject('redisUrl') });
    redis = standaloneClient();
    worker = await startWorker({
      UPSTASH_REDIS_REST_URL: bridge.url,
      UPSTASH_REDIS_REST_TOKEN: bridge.token,
      COORDINATOR_OPEN_MODE: 'true',
      COORDINATOR_KEY_PREFIX: uniquePrefix('wlag'),
    });
  });
  afterAll(async () => {
    await worker.close();
    await bridge.close();
    redis.disconnect();
  });

  it('answers lag, pending and the oldest pending id per shard, with totals', async () => {
    const p = uniquePrefix('wlag');
    const created = await worker.fetch(`/coord/v1/streams/${p}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ initialShardCount: 2, requestedBy: 'test' }),
    });
    expect(created.status).toBe(201);
    for (let i = 0; i < 7; i++) await redis.xadd(`${p}:1`, '*', 'payload', String(i));
    await redis.xreadgroup('GROUP', p, 'c', 'COUNT', 3, 'STREAMS', `${p}:1`, '>');
    const [, oldest] = (await redis.xpending(`${p}:1`, p)) as [number, string];

    const res = await worker.fetch(`/coord/v1/monitoring/streams/${p}/groups/${p}/lag`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { shards: Array<Record<string, unknown>> } & Record<string, unknown>;
    expect(body).toMatchObject({ streamPrefix: p, consumerGroup: p, totalLag: 4, totalPending: 3 });
    expect(body.shards.map((s) => [s.shardIndex, s.lag, s.pending])).toEqual([
      [0, 0, 0],
      [1, 4, 3],
    ]);
    expect(body.shards[1]!.oldestPendingId).toBe(oldest);
    expect((await worker.fetch('/actuator/prometheus')).status).toBe(404);
  });
});
