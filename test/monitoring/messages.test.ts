/**
 * `GET …/shards/{i}/messages` against real Redis: cursor paging both ways over more records than
 * the limit, limit clamping, record shape, the consumable set, bad input, and no change to
 * consumer-group state.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../support/redis.js';
import { type Arranged, arrangeGroup, groupStates, markRemoved, T0 } from './arrange.js';

describe.each(backends)('monitoring > messages ($name)', (backend) => {
  let a: Arranged;
  let before: unknown[];
  const keys = () => [0, 1, 2, 3].map((i) => `${a.p}:${i}`);
  const page = (shard: number | string, query = '') =>
    a.get(`/streams/${a.p}/groups/${a.p}/shards/${shard}/messages${query ? `?${query}` : ''}`);

  /** Follows nextCursor until the end; returns every page's ids. */
  async function walk(shard: number, direction: string, limit: number): Promise<string[][]> {
    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const q = `direction=${direction}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`;
      const res = await page(shard, q);
      expect(res.status).toBe(200);
      pages.push(res.body.records.map((r: { recordId: string }) => r.recordId));
      cursor = res.body.nextCursor;
      expect(pages.length).toBeLessThan(20);
    } while (cursor !== null);
    return pages;
  }

  beforeAll(async () => {
    a = await arrangeGroup(backend);
    before = await groupStates(a.stack, keys());
  });
  afterAll(async () => {
    await a.stack.close();
  });

  it('returns the newest records first by default, limit 25, no next cursor when all fit', async () => {
    const res = await page(0);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      streamPrefix: a.p,
      consumerGroup: a.p,
      shard: { shardIndex: 0 },
      streamKey: `${a.p}:0`,
      direction: 'BACKWARD',
      limit: 25,
      nextCursor: null,
    });
    expect(res.body.records.map((r: { recordId: string }) => r.recordId)).toEqual([...a.ids[0]!].reverse());
  });

  it('renders each record with fields, payload and the id timestamp', async () => {
    const { body } = await page(0, 'direction=FORWARD&limit=1');
    expect(body.records[0]).toEqual({
      streamPrefix: a.p,
      consumerGroup: a.p,
      shard: { shardIndex: 0 },
      streamKey: `${a.p}:0`,
      recordId: a.ids[0]![0],
      fields: { payload: 'p0-0', n: '0' },
      payload: 'p0-0',
      recordTimestampMs: T0,
      recordTime: new Date(T0).toISOString(),
    });
    const other = await page(1, 'direction=FORWARD&limit=1');
    expect(other.body.records[0]).toMatchObject({ fields: { body: 'b1-0' }, payload: null });
  });

  it('pages backward with cursors over more records than the limit', async () => {
    const pages = await walk(0, 'BACKWARD', 3);
    const newestFirst = [...a.ids[0]!].reverse();
    expect(pages).toEqual([
      newestFirst.slice(0, 3),
      newestFirst.slice(3, 6),
      newestFirst.slice(6, 9),
      newestFirst.slice(9),
    ]);
  });

  it('pages forward with cursors, and ends exactly when the last page is full', async () => {
    expect(await walk(0, 'FORWARD', 4)).toEqual([
      a.ids[0]!.slice(0, 4),
      a.ids[0]!.slice(4, 8),
      a.ids[0]!.slice(8),
    ]);
    expect(await walk(0, 'FORWARD', 5)).toEqual([a.ids[0]!.slice(0, 5), a.ids[0]!.slice(5)]);
  });

  it('gives the last returned id as the next cursor', async () => {
    const { body } = await page(0, 'direction=FORWARD&limit=3');
    expect(body.nextCursor).toBe(a.ids[0]![2]);
    const next = await page(0, `direction=FORWARD&limit=3&cursor=${body.nextCursor}`);
    expect(next.body.records[0].recordId).toBe(a.ids[0]![3]);
  });

  it('continues after a cursor whose record was deleted', async () => {
    const gone = `${T0 + 2 * 3 + 1}-5`; // between ids[0][3] and ids[0][4], never existed
    const { body } = await page(0, `direction=FORWARD&limit=2&cursor=${gone}`);
    expect(body.records.map((r: { recordId: string }) => r.recordId)).toEqual(a.ids[0]!.slice(4, 6));
    expect(body.nextCursor).toBe(a.ids[0]![5]);
  });

  it('clamps the limit to 1..1000 instead of rejecting it', async () => {
    expect((await page(0, 'limit=0')).body).toMatchObject({ limit: 1, nextCursor: a.ids[0]![9] });
    expect((await page(0, 'limit=-7')).body.limit).toBe(1);
    expect((await page(0, 'limit=5000')).body).toMatchObject({ limit: 1000, nextCursor: null });
    expect((await page(0, 'limit=')).body.limit).toBe(25);
  });

  it('reads an empty shard as an empty page', async () => {
    expect((await page(2)).body).toMatchObject({ records: [], nextCursor: null });
  });

  it.each([
    ['a bad direction', 0, 'direction=SIDEWAYS'],
    ['a cursor that is not a stream id', 0, 'cursor=abc'],
    ['a cursor with a 65-bit sequence', 0, 'cursor=1-18446744073709551616'],
    ['a non-numeric limit', 0, 'limit=ten'],
    ['a fractional limit', 0, 'limit=2.5'],
    ['a non-numeric shard', 'x', ''],
    ['a shard outside the consumable set', 9, ''],
    ['a negative shard', -1, ''],
  ])('answers 400 INVALID_REQUEST for %s', async (_name, shard, query) => {
    const res = await page(shard, query);
    expect(res.status).toBe(400);
    expect(res.body.errorCode).toBe('INVALID_REQUEST');
  });

  it('answers 404 for an unknown group', async () => {
    const res = await a.get(`/streams/${a.p}/groups/nope/shards/0/messages`);
    expect(res.status).toBe(404);
    expect(res.body.errorCode).toBe('GROUP_NOT_FOUND');
  });

  it('reads removed-but-consumable shards', async () => {
    expect((await page(3)).status).toBe(400);
    await a.stack.redis.xadd(`${a.p}:3`, '*', 'payload', 'late');
    await markRemoved(a.stack, a.p, 3);
    const res = await page(3);
    expect(res.status).toBe(200);
    expect(res.body.records.map((r: { payload: string }) => r.payload)).toEqual(['late']);
    before = await groupStates(a.stack, keys());
  });

  it('changes no consumer-group state', async () => {
    await walk(0, 'BACKWARD', 2);
    await walk(1, 'FORWARD', 1);
    expect(await groupStates(a.stack, keys())).toEqual(before);
  });
});
