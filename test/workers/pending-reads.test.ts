/**
 * The built Worker over Upstash (REST bridge → redis-server) serves the pending-entries and
 * dead-letters reads: a shard's pending entries with holder and delivery count, a missing group on
 * a shard key as 404, and the group's dead letters from the stream's dead-letter stream.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { standaloneClient, uniquePrefix } from '../support/redis.js';
import { startUpstashBridge, type UpstashBridge } from '../support/upstash-bridge.js';
import { type RunningWorker, startWorker } from '../support/worker.js';

describe('worker > pending entries and dead letters', () => {
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
      COORDINATOR_KEY_PREFIX: uniquePrefix('wpend'),
    });
  });
  afterAll(async () => {
    await worker.close();
    await bridge.close();
    redis.disconnect();
  });

  it('answers pending entries per shard and the group dead letters', async () => {
    const p = uniquePrefix('wpend');
    const created = await worker.fetch(`/coord/v1/streams/${p}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ initialShardCount: 2, requestedBy: 'test' }),
    });
    expect(created.status).toBe(201);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await redis.xadd(`${p}:1`, '*', 'payload', String(i)))!);
    await redis.xreadgroup('GROUP', p, 'm-1', 'COUNT', 3, 'STREAMS', `${p}:1`, '>');
    const base = `/coord/v1/monitoring/streams/${p}/groups/${p}`;

    const page = await worker.fetch(`${base}/pending-entries?shard=1&count=2`);
    expect(page.status).toBe(200);
    const body = await page.json();
    expect(body.entries).toEqual([
      { id: ids[0], consumer: 'm-1', idleMs: expect.any(Number), deliveryCount: 1 },
      { id: ids[1], consumer: 'm-1', idleMs: expect.any(Number), deliveryCount: 1 },
    ]);
    expect(body.nextCursor).toBe(ids[1]);

    await redis.xgroup('DESTROY', `${p}:0`, p);
    const missing = await worker.fetch(`${base}/pending-entries?shard=0`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ errorCode: 'GROUP_NOT_FOUND' });

    const dead = await redis.xadd(
      `${p}:dlq`,
      '*',
      ...['dlq.stream', `${p}:1`, 'dlq.id', ids[2]!, 'dlq.group', p, 'dlq.member', 'm-1'],
      ...['dlq.deliveryCount', '5', 'dlq.error', 'Error: boom', 'payload', '2'],
    );
    const letters = await worker.fetch(`${base}/dead-letters`);
    expect(letters.status).toBe(200);
    expect((await letters.json()).entries).toEqual([
      expect.objectContaining({
        deadLetterId: dead,
        originalShardIndex: 1,
        originalId: ids[2],
        deliveryCount: 5,
      }),
    ]);
  });
});
