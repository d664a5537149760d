/**
 * The Worker's monitoring reads over Upstash (real client → REST bridge → redis-server): many
 * shard streams per request, nulls instead of errors, range reads both ways; and the read
 * script is pinned like every other script.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { READ_SHARDS } from '../../src/store/scripts/read-shards.js';
import { createUpstashClient } from '../../src/store/upstash-client.js';
import { UpstashInspector } from '../../src/store/upstash-inspector.js';
import { standaloneClient, uniquePrefix } from '../support/redis.js';
import { startUpstashBridge, type UpstashBridge } from '../support/upstash-bridge.js';

describe('monitoring > Upstash inspector', () => {
  let bridge: UpstashBridge;
  let redis: Redis;
  let inspector: UpstashInspector;
  beforeAll(async () => {
    bridge = await startUpstashBridge({ redisUrl: inject('redisUrl') });
    redis = standaloneClient();
    inspector = new UpstashInspector(createUpstashClient({ url: bridge.url, token: bridge.token }), {
      keysPerCall: 2,
    });
  });
  afterAll(async () => {
    await bridge.close();
    redis.disconnect();
  });

  it('pins the read-shards script', () => {
    expect(createHash('sha1').update(READ_SHARDS.lua).digest('hex')).toBe(
      '4ac4e4ba5c6e304370d9e22e870d40370096854a',
    );
    expect(READ_SHARDS.sha1).toBe('4ac4e4ba5c6e304370d9e22e870d40370096854a');
  });

  it('reads every shard in batches of keysPerCall, with nulls for missing or non-stream keys', async () => {
    const p = uniquePrefix('insp');
    const a = await redis.xadd(`${p}:0`, '*', 'payload', 'x');
    await redis.xgroup('CREATE', `${p}:0`, 'g', '0');
    await redis.xadd(`${p}:1`, '*', 'payload', 'y');
    await redis.set(`${p}:3`, 'not a stream');
    const keys = [0, 1, 2, 3, 4].map((i) => `${p}:${i}`);
    await inspector.readShards(keys); // loads the script (NOSCRIPT once on a fresh server)
    bridge.reset();
    const readings = await inspector.readShards(keys);
    expect(bridge.requests).toHaveLength(3);
    expect(readings.map((r) => r.streamKey)).toEqual(keys);
    expect(readings[0]).toMatchObject({
      stream: { length: 1, firstRecordId: a, lastRecordId: a, entriesAdded: 1 },
      groups: [{ name: 'g', pending: 0, lag: 1 }],
    });
    expect(readings[0]?.memoryUsageBytes).toBeGreaterThan(0);
    expect(readings[1]?.groups).toEqual([]);
    for (const i of [2, 3, 4]) expect(readings[i]).toMatchObject({ stream: null, groups: null });
    expect(readings[2]?.memoryUsageBytes).toBeNull();
    expect((await inspector.streams(keys)).map((s) => s?.length ?? null)).toEqual([1, 1, null, null, null]);
  });

  it('reads XPENDING summaries in batches of keysPerCall, null for a missing key or group', async () => {
    const p = uniquePrefix('pend');
    const first = await redis.xadd(`${p}:0`, '*', 'payload', 'a');
    await redis.xadd(`${p}:0`, '*', 'payload', 'b');
    await redis.xgroup('CREATE', `${p}:0`, 'g', '0');
    await redis.xgroup('CREATE', `${p}:0`, 'idle', '$');
    await redis.xreadgroup('GROUP', 'g', 'c', 'COUNT', 2, 'STREAMS', `${p}:0`, '>');
    const pairs = [
      { key: `${p}:0`, group: 'g' },
      { key: `${p}:0`, group: 'idle' },
      { key: `${p}:0`, group: 'nope' },
      { key: `${p}:1`, group: 'g' },
    ];
    await inspector.pendingSummaries(pairs); // loads the script
    bridge.reset();
    const got = await inspector.pendingSummaries(pairs);
    expect(bridge.requests).toHaveLength(2);
    expect(got).toEqual([{ count: 2, oldestId: first }, { count: 0, oldestId: null }, null, null]);
  });

  it('reads ranges forward and backward and degrades to empty on errors', async () => {
    const p = uniquePrefix('range');
    const ids: string[] = [];
    for (let i = 0; i < 4; i++)
      ids.push((await redis.xadd(`${p}:0`, '*', 'payload', `v${i}`, 'n', String(i)))!);
    const fwd = await inspector.range(`${p}:0`, { direction: 'FORWARD', from: null, count: 3 });
    expect(fwd.map((r) => r.id)).toEqual(ids.slice(0, 3));
    expect({ ...fwd[0]?.fields }).toEqual({ payload: 'v0', n: '0' });
    const back = await inspector.range(`${p}:0`, { direction: 'BACKWARD', from: `(${ids[3]}`, count: 2 });
    expect(back.map((r) => r.id)).toEqual([ids[2], ids[1]]);
    await redis.set(`${p}:9`, 'x');
    expect(await inspector.range(`${p}:9`, { direction: 'FORWARD', from: null, count: 1 })).toEqual([]);
    expect(await inspector.slotOwners([1, 2])).toEqual(new Map());
    expect(inspector.clustered).toBe(false);
  });

  it('never throws when the endpoint is unreachable', async () => {
    const dead = new UpstashInspector(
      createUpstashClient({ url: 'http://127.0.0.1:1', token: 't', retries: 0 }),
    );
    expect(await dead.readShards(['a', 'b'])).toEqual([
      { streamKey: 'a', stream: null, groups: null, memoryUsageBytes: null },
      { streamKey: 'b', stream: null, groups: null, memoryUsageBytes: null },
    ]);
    expect(await dead.range('a', { direction: 'FORWARD', from: null, count: 1 })).toEqual([]);
  });
});
