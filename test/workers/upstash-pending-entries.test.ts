/**
 * The detailed XPENDING read of the Worker's inspector over Upstash (real client → REST bridge →
 * redis-server): entries with holder, idle time and delivery count, the exclusive start, the
 * consumer and idle filters, and a missing key and a missing group told apart — one REST request
 * per read.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createUpstashClient } from '../../src/store/upstash-client.js';
import { UpstashInspector } from '../../src/store/upstash-inspector.js';
import { standaloneClient, uniquePrefix } from '../support/redis.js';
import { startUpstashBridge, type UpstashBridge } from '../support/upstash-bridge.js';

describe('monitoring > Upstash inspector > pending entries', () => {
  let bridge: UpstashBridge;
  let redis: Redis;
  let inspector: UpstashInspector;
  beforeAll(async () => {
    bridge = await startUpstashBridge({ redisUrl: inject('redisUrl') });
    redis = standaloneClient();
    inspector = new UpstashInspector(createUpstashClient({ url: bridge.url, token: bridge.token }));
  });
  afterAll(async () => {
    await bridge.close();
    redis.disconnect();
  });

  it('reads entries with holder, idle time and delivery count; filters; tells a missing key from a missing group', async () => {
    const p = uniquePrefix('pend');
    const key = `${p}:0`;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await redis.xadd(key, '*', 'payload', `v${i}`))!);
    await redis.xgroup('CREATE', key, 'g', '0');
    await redis.xreadgroup('GROUP', 'g', 'a', 'COUNT', 2, 'STREAMS', key, '>');
    await redis.xreadgroup('GROUP', 'g', 'b', 'COUNT', 1, 'STREAMS', key, '>');
    const all = { start: '-', end: '+', count: 10, minIdleMs: null, consumer: null };
    await inspector.pendingEntries(key, 'g', all); // loads the script
    bridge.reset();
    const read = await inspector.pendingEntries(key, 'g', all);
    expect(bridge.requests).toHaveLength(1);
    expect(read).toEqual({
      status: 'ok',
      entries: [
        { id: ids[0], consumer: 'a', idleMs: expect.any(Number), deliveryCount: 1 },
        { id: ids[1], consumer: 'a', idleMs: expect.any(Number), deliveryCount: 1 },
        { id: ids[2], consumer: 'b', idleMs: expect.any(Number), deliveryCount: 1 },
      ],
    });
    const after = await inspector.pendingEntries(key, 'g', { ...all, start: `(${ids[0]}`, count: 1 });
    expect(after).toMatchObject({ status: 'ok', entries: [{ id: ids[1] }] });
    const ofB = await inspector.pendingEntries(key, 'g', { ...all, consumer: 'b' });
    expect(ofB).toMatchObject({ status: 'ok', entries: [{ id: ids[2], consumer: 'b' }] });
    const idle = await inspector.pendingEntries(key, 'g', { ...all, minIdleMs: 3_600_000 });
    expect(idle).toEqual({ status: 'ok', entries: [] });
    expect(await inspector.pendingEntries(key, 'nope', all)).toEqual({ status: 'no-group' });
    expect(await inspector.pendingEntries(`${p}:1`, 'g', all)).toEqual({ status: 'no-stream' });
    await redis.set(`${p}:2`, 'not a stream');
    expect(await inspector.pendingEntries(`${p}:2`, 'g', all)).toEqual({ status: 'failed' });
    expect(await redis.exists(`${p}:1`)).toBe(0);
  });
});
