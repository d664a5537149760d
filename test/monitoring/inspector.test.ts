/**
 * IoredisInspector against real Redis (standalone and Cluster): what XINFO, MEMORY USAGE and
 * range reads return, Cluster slot owners, and that missing keys, wrong types and a dead
 * connection degrade to nulls and empty lists instead of errors.
 */
import type { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisSlot } from '../../src/routing/slot.js';
import { groupOf } from '../../src/store/inspector.js';
import { IoredisInspector } from '../../src/store/ioredis-inspector.js';
import { backends, uniquePrefix } from '../support/redis.js';

describe.each(backends)('IoredisInspector ($name)', (backend) => {
  let redis: Redis | Cluster;
  let inspector: IoredisInspector;
  let p: string;
  const ids: string[] = [];

  beforeAll(async () => {
    redis = backend.make();
    inspector = new IoredisInspector(redis, { concurrency: 2 });
    p = uniquePrefix('insp');
    for (let i = 1; i <= 5; i++)
      ids.push((await redis.xadd(`${p}:0`, `${i}-1`, 'payload', `v${i}`, 'x', '1'))!);
    await redis.xgroup('CREATE', `${p}:0`, 'g', '0');
    await redis.xgroup('CREATE', `${p}:0`, 'tail', '$');
    await redis.xreadgroup('GROUP', 'g', 'c', 'COUNT', 2, 'STREAMS', `${p}:0`, '>');
    await redis.set(`${p}:str`, 'not a stream');
  });
  afterAll(() => {
    redis.disconnect();
  });

  it('reads XINFO STREAM, every XINFO GROUPS entry and MEMORY USAGE of a stream', async () => {
    const [r] = await inspector.readShards([`${p}:0`]);
    expect(r!.stream).toEqual({
      length: 5,
      firstRecordId: '1-1',
      lastRecordId: '5-1',
      lastGeneratedId: '5-1',
      entriesAdded: 5,
    });
    expect(r!.groups?.map((g) => g.name)).toEqual(['g', 'tail']);
    expect(groupOf(r!, 'g')).toEqual({
      name: 'g',
      consumers: 1,
      pending: 2,
      lastDeliveredId: '2-1',
      entriesRead: 2,
      lag: 3,
    });
    expect(groupOf(r!, 'tail')).toMatchObject({ pending: 0, lag: 0, lastDeliveredId: '5-1' });
    expect(groupOf(r!, 'absent')).toBeNull();
    expect(r!.memoryUsageBytes).toBeGreaterThan(0);
  });

  it('degrades a missing key and a key of another type to nulls, keeping the order', async () => {
    const readings = await inspector.readShards([`${p}:missing`, `${p}:str`, `${p}:0`]);
    expect(readings.map((r) => r.streamKey)).toEqual([`${p}:missing`, `${p}:str`, `${p}:0`]);
    expect(readings[0]).toEqual({
      streamKey: `${p}:missing`,
      stream: null,
      groups: null,
      memoryUsageBytes: null,
    });
    expect(readings[1]).toMatchObject({ stream: null, groups: null });
    expect(readings[2]!.stream?.length).toBe(5);
    const infos = await inspector.streams([`${p}:0`, `${p}:missing`, `${p}:str`]);
    expect(infos.map((i) => i?.length ?? null)).toEqual([5, null, null]);
  });

  it('reads ranges forward and backward with inclusive bounds and COUNT', async () => {
    const fwd = await inspector.range(`${p}:0`, { direction: 'FORWARD', from: '2-1', count: 2 });
    expect(fwd.map((r) => r.id)).toEqual(['2-1', '3-1']);
    expect(fwd[0]!.fields).toEqual({ payload: 'v2', x: '1' });
    const back = await inspector.range(`${p}:0`, { direction: 'BACKWARD', from: null, count: 3 });
    expect(back.map((r) => r.id)).toEqual(['5-1', '4-1', '3-1']);
    const exact = await inspector.range(`${p}:0`, { direction: 'FORWARD', from: '4-1', to: '4-1', count: 1 });
    expect(exact.map((r) => r.id)).toEqual(['4-1']);
    expect(await inspector.range(`${p}:missing`, { direction: 'FORWARD', from: null, count: 5 })).toEqual([]);
    expect(await inspector.range(`${p}:str`, { direction: 'FORWARD', from: null, count: 5 })).toEqual([]);
  });

  it('keeps any field name, including __proto__', async () => {
    await redis.xadd(`${p}:proto`, '1-0', '__proto__', 'x', 'constructor', 'y');
    const [r] = await inspector.range(`${p}:proto`, { direction: 'FORWARD', from: null, count: 1 });
    expect(Object.keys(r!.fields)).toEqual(['__proto__', 'constructor']);
    expect(JSON.stringify(r!.fields)).toBe('{"__proto__":"x","constructor":"y"}');
  });

  it('resolves slot owners on Cluster only', async () => {
    const slots = [0, redisSlot(`${p}:0`), 16383];
    const owners = await inspector.slotOwners(slots);
    expect(inspector.clustered).toBe(backend.name === 'cluster');
    if (backend.name === 'cluster') {
      expect([...owners.keys()].sort((x, y) => x - y)).toEqual([...slots].sort((x, y) => x - y));
      for (const [slot, o] of owners) {
        expect(o.endpoint).toMatch(/^127\.0\.0\.1:\d+$/);
        expect(o.nodeId).toMatch(/^[0-9a-f]{40}$/);
        expect(slot).toBeGreaterThanOrEqual(o.slotRangeStart);
        expect(slot).toBeLessThanOrEqual(o.slotRangeEnd);
      }
    } else {
      expect(owners.size).toBe(0);
    }
  });

  it('answers nulls and empty lists instead of errors on a closed connection', async () => {
    const dead = backend.make();
    const deadInspector = new IoredisInspector(dead);
    await (dead.status === 'ready' ? Promise.resolve() : new Promise((r) => dead.once('ready', r)));
    dead.disconnect();
    const [r] = await deadInspector.readShards([`${p}:0`]);
    expect(r).toEqual({ streamKey: `${p}:0`, stream: null, groups: null, memoryUsageBytes: null });
    expect(await deadInspector.streams([`${p}:0`])).toEqual([null]);
    expect(await deadInspector.range(`${p}:0`, { direction: 'FORWARD', from: null, count: 1 })).toEqual([]);
    expect((await deadInspector.slotOwners([1])).size).toBe(0);
  });
});
