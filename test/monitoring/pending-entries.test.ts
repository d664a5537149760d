/**
 * `GET …/pending-entries?shard=i` against real Redis (standalone and Cluster): a shard's pending
 * entries with the consumer holding each, idle time and delivery count, read a page at a time
 * with the cursor, filtered by consumer and idle time; 400 for bad input, 404 for an unknown
 * group and for a shard key without the stream or the group; and no change to consumer-group state.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.js';
import { backends } from '../support/redis.js';
import { type Arranged, arrangeGroup, groupStates } from './arrange.js';

describe.each(backends)('monitoring > pending entries ($name)', (backend) => {
  let a: Arranged;
  let keys: string[];
  let before: unknown[];
  const entries = (query: string) => a.get(`/streams/${a.p}/groups/${a.p}/pending-entries?${query}`);
  const ids = (body: { entries: Array<{ id: string }> }) => body.entries.map((e) => e.id);

  beforeAll(async () => {
    a = await arrangeGroup(backend);
    // Shard 0 already has 2 pending with `reader` (ids 4, 5); `other` takes 3 more (6, 7, 8).
    await a.stack.redis.xreadgroup('GROUP', a.p, 'other', 'COUNT', 3, 'STREAMS', `${a.p}:0`, '>');
    keys = [0, 1, 2].map((i) => `${a.p}:${i}`);
    before = await groupStates(a.stack, keys);
  });
  afterAll(async () => {
    expect(await groupStates(a.stack, keys)).toEqual(before);
    await a.stack.close();
  });

  it('answers the pending entries of a shard with their holder, idle time and delivery count', async () => {
    const res = await entries('shard=0');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      streamPrefix: a.p,
      consumerGroup: a.p,
      shard: { shardIndex: 0 },
      streamKey: `${a.p}:0`,
      count: 50,
      consumer: null,
      minIdleMs: null,
      nextCursor: null,
    });
    const held = a.ids[0]!;
    expect(res.body.entries.map((e: { id: string; consumer: string }) => `${e.id} ${e.consumer}`)).toEqual([
      `${held[4]} reader`,
      `${held[5]} reader`,
      `${held[6]} other`,
      `${held[7]} other`,
      `${held[8]} other`,
    ]);
    for (const e of res.body.entries) {
      expect(e.deliveryCount).toBe(1);
      expect(e.idleMs).toBeGreaterThanOrEqual(0);
    }
    expect(res.body.readAtMs).toBeGreaterThan(0);
    // Shard 1 has records and no pending entry.
    expect((await entries('shard=1')).body).toMatchObject({ entries: [], nextCursor: null });
  });

  it('pages with the cursor, exclusive of the id it names', async () => {
    const held = a.ids[0]!;
    const first = await entries('shard=0&count=2');
    expect(ids(first.body)).toEqual([held[4], held[5]]);
    expect(first.body.nextCursor).toBe(held[5]);
    const second = await entries(`shard=0&count=2&start=${first.body.nextCursor}`);
    expect(ids(second.body)).toEqual([held[6], held[7]]);
    expect(second.body.nextCursor).toBe(held[7]);
    const last = await entries(`shard=0&count=2&start=${second.body.nextCursor}`);
    expect(ids(last.body)).toEqual([held[8]]);
    expect(last.body.nextCursor).toBeNull();
    // Exactly a page left: no cursor pointing at an empty page.
    const exact = await entries(`shard=0&count=3&start=${held[5]}`);
    expect(ids(exact.body)).toEqual([held[6], held[7], held[8]]);
    expect(exact.body.nextCursor).toBeNull();
  });

  it('filters by consumer and by idle time', async () => {
    const held = a.ids[0]!;
    const other = await entries('shard=0&consumer=other');
    expect(other.body.consumer).toBe('other');
    expect(ids(other.body)).toEqual([held[6], held[7], held[8]]);
    const paged = await entries('shard=0&consumer=reader&count=1');
    expect(ids(paged.body)).toEqual([held[4]]);
    expect(paged.body.nextCursor).toBe(held[4]);
    expect((await entries('shard=0&consumer=nobody')).body.entries).toEqual([]);
    const fresh = await entries('shard=0&minIdleMs=3600000');
    expect(fresh.body).toMatchObject({ minIdleMs: 3_600_000, entries: [], nextCursor: null });
    expect(ids((await entries('shard=0&minIdleMs=0')).body)).toHaveLength(5);
  });

  it('counts deliveries: a claimed entry shows its new holder and count', async () => {
    const held = a.ids[0]!;
    // Two claims by `other`: delivered three times in all.
    for (let i = 0; i < 2; i++) await a.stack.redis.call('XCLAIM', `${a.p}:0`, a.p, 'other', '0', held[4]!);
    before = await groupStates(a.stack, keys);
    const res = await entries('shard=0&count=1');
    expect(res.body.entries).toEqual([
      { id: held[4], consumer: 'other', idleMs: expect.any(Number), deliveryCount: 3 },
    ]);
  });

  it.each([
    ['', 'shard: is required'],
    ['shard=abc', 'shard: must be a shard index'],
    ['shard=7', 'shard: shard 7 is not consumable'],
    ['shard=0&count=0', 'count: must be an integer from 1 to 500'],
    ['shard=0&count=501', 'count: must be an integer from 1 to 500'],
    ['shard=0&count=1.5', 'count: must be an integer from 1 to 500'],
    ['shard=0&start=yesterday', 'start:'],
    ['shard=0&minIdleMs=-1', 'minIdleMs: must be an integer'],
    [`shard=0&consumer=${'x'.repeat(201)}`, 'consumer: must be at most 200 characters'],
  ])('answers 400 INVALID_REQUEST for %s', async (query, message) => {
    const res = await entries(query);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errorCode: 'INVALID_REQUEST', requestId: expect.any(String) });
    expect(res.body.message).toContain(message);
  });

  it('answers 404 for an unknown stream or group', async () => {
    for (const path of [`/streams/${a.p}/groups/nope`, `/streams/no-such-stream/groups/${a.p}`]) {
      const res = await a.get(`${path}/pending-entries?shard=0`);
      expect(res.status, path).toBe(404);
      expect(res.body.errorCode).toBe('GROUP_NOT_FOUND');
    }
  });

  it('answers 503 REDIS_NOT_CONFIGURED without an inspector', async () => {
    const app = createApp({ coordinator: a.stack.coordinator, config: a.stack.config });
    const res = await app.request(
      `/coord/v1/monitoring/streams/${a.p}/groups/${a.p}/pending-entries?shard=0`,
    );
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ errorCode: 'REDIS_NOT_CONFIGURED' });
  });

  it('answers 404 GROUP_NOT_FOUND naming the key when Redis lacks the group or the stream on the shard', async () => {
    await a.stack.redis.xgroup('DESTROY', `${a.p}:2`, a.p);
    const noGroup = await entries('shard=2');
    expect(noGroup.status).toBe(404);
    expect(noGroup.body).toMatchObject({ errorCode: 'GROUP_NOT_FOUND', requestId: expect.any(String) });
    expect(noGroup.body.message).toContain(`is not on "${a.p}:2" (shard 2) in Redis`);
    await a.stack.redis.del(`${a.p}:2`);
    const noStream = await entries('shard=2');
    expect(noStream.status).toBe(404);
    expect(noStream.body.message).toContain(`has no stream at "${a.p}:2"`);
    // Reading created nothing.
    expect(await a.stack.redis.exists(`${a.p}:2`)).toBe(0);
    keys = [0, 1].map((i) => `${a.p}:${i}`);
    before = await groupStates(a.stack, keys);
  });
});
