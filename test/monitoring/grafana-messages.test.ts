/**
 * `/monitoring/grafana/messages` against real Redis: single-shard and merged cursor paging, the
 * `__rsc_last__` / `__rsc_tail__:<n>` tail pages, exact `recordId` lookup, row shape and bad
 * input. Shard 0 holds ids at even ms, shard 1 at odd ms, so merged pages interleave.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareStreamIds } from '../../src/http/stream-id.js';
import { backends } from '../support/redis.js';
import { type Arranged, arrangeGroup, groupStates, T0 } from './arrange.js';

interface Row {
  recordId: string;
  shardIndex: number;
  pageNextCursor: string | null;
}

describe.each(backends)('monitoring > grafana messages ($name)', (backend) => {
  let a: Arranged;
  let before: unknown[];
  /** Every record of shards 0 and 1, oldest first. */
  let merged: string[];
  const keys = () => [0, 1, 2].map((i) => `${a.p}:${i}`);
  const messages = (query: string) =>
    a.get(`/grafana/messages?streamPrefix=${a.p}&consumerGroup=${a.p}&${query}`);
  const ids = (rows: Row[]) => rows.map((r) => r.recordId);

  /** Follows pageNextCursor to the end; returns each page's ids. */
  async function walk(query: string): Promise<string[][]> {
    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const res = await messages(`${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      pages.push(ids(res.body));
      cursor = res.body.at(-1)?.pageNextCursor ?? null;
      expect(pages.length).toBeLessThan(20);
    } while (cursor !== null);
    return pages;
  }

  beforeAll(async () => {
    a = await arrangeGroup(backend);
    merged = [...a.ids[0]!, ...a.ids[1]!].sort(compareStreamIds);
    before = await groupStates(a.stack, keys());
  });
  afterAll(async () => {
    await a.stack.close();
  });

  it('renders one row per record with page facts (shard 0 by default)', async () => {
    const res = await messages('limit=2&direction=FORWARD');
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(2);
    expect(res.body[0]).toEqual({
      streamPrefix: a.p,
      consumerGroup: a.p,
      shardIndex: 0,
      shardSelector: '0',
      shardLabel: ':0',
      streamKey: `${a.p}:0`,
      recordId: a.ids[0]![0],
      payload: 'p0-0',
      fieldsJson: JSON.stringify({ payload: 'p0-0', n: '0' }),
      pageDirection: 'FORWARD',
      pageLimit: 2,
      pageNextCursor: a.ids[0]![1],
      pageTotalMessages: 10,
      recordTimestampMs: T0,
      recordTime: new Date(T0).toISOString(),
    });
  });

  it('pages one shard with plain id cursors', async () => {
    const pages = await walk('shardIndex=1&limit=3&direction=BACKWARD');
    expect(pages).toEqual([[...a.ids[1]!].reverse().slice(0, 3), [a.ids[1]![0]]]);
  });

  it.each(['all', 'ALL', '.*', '__all', '$__all'])(
    'merges every shard by id for shardIndex=%s',
    async (sel) => {
      const res = await messages(`shardIndex=${encodeURIComponent(sel)}&limit=5&direction=FORWARD`);
      expect(ids(res.body)).toEqual(merged.slice(0, 5));
      expect(res.body.map((r: Row) => r.shardIndex)).toEqual([0, 1, 0, 1, 0]);
      expect(res.body[0]).toMatchObject({ shardSelector: sel, pageTotalMessages: 14 });
      expect(res.body[0].pageNextCursor).toBe(`all:0=${merged[4]},1=${merged[3]}`);
    },
  );

  it('walks merged pages forward and backward with all: cursors', async () => {
    const forward = await walk('shardIndex=all&limit=5&direction=FORWARD');
    expect(forward).toEqual([merged.slice(0, 5), merged.slice(5, 10), merged.slice(10)]);
    const backward = await walk('shardIndex=all&limit=4&direction=BACKWARD');
    expect(backward.flat()).toEqual([...merged].reverse());
    expect(backward.map((p) => p.length)).toEqual([4, 4, 4, 2]);
  });

  it('serves the last page and pages before it with tail cursors', async () => {
    // Shard 0, FORWARD pages of 3 over 10 records: [0-2] [3-5] [6-8] [9].
    const last = await messages('limit=3&direction=FORWARD&cursor=__rsc_last__');
    expect(ids(last.body)).toEqual([a.ids[0]![9]]);
    expect(last.body[0].pageNextCursor).toBeNull();
    const tail1 = await messages('limit=3&direction=FORWARD&cursor=__rsc_tail__:1');
    expect(ids(tail1.body)).toEqual(a.ids[0]!.slice(6, 9));
    expect(tail1.body[0].pageNextCursor).toBe('__rsc_tail__:0');
    const far = await messages('limit=3&direction=FORWARD&cursor=__rsc_tail__:99');
    expect(ids(far.body)).toEqual(a.ids[0]!.slice(0, 3));
    expect(far.body[0].pageNextCursor).toBe('__rsc_tail__:2');
    // BACKWARD pages run newest first, so the last page holds the oldest record.
    const back = await messages('limit=3&direction=BACKWARD&cursor=__rsc_last__');
    expect(ids(back.body)).toEqual([a.ids[0]![0]]);
  });

  it('serves merged tail pages', async () => {
    // 14 merged records in FORWARD pages of 5: [0-4] [5-9] [10-13].
    const last = await messages('shardIndex=all&limit=5&direction=FORWARD&cursor=__rsc_last__');
    expect(ids(last.body)).toEqual(merged.slice(10));
    const prev = await messages('shardIndex=all&limit=5&direction=FORWARD&cursor=__rsc_tail__:1');
    expect(ids(prev.body)).toEqual(merged.slice(5, 10));
    expect(prev.body[0].pageNextCursor).toBe('__rsc_tail__:0');
  });

  it('looks a record id up on every shard, ignoring shard and cursor', async () => {
    const id = a.ids[1]![2]!;
    const res = await messages(`shardIndex=0&cursor=__rsc_last__&recordId=${id}`);
    expect(res.body).toHaveLength(1);
    expect(res.body[0]).toMatchObject({
      recordId: id,
      shardIndex: 1,
      shardSelector: 'all',
      pageNextCursor: null,
      pageTotalMessages: 14,
    });
    expect((await messages('recordId=1-1')).body).toEqual([]);
  });

  it('answers [] when a name parameter is blank', async () => {
    expect((await a.get(`/grafana/messages?streamPrefix=&consumerGroup=${a.p}`)).body).toEqual([]);
    expect((await a.get(`/grafana/messages?streamPrefix=${a.p}&consumerGroup=`)).body).toEqual([]);
  });

  it.each([
    ['a non-numeric shardIndex', 'shardIndex=zero'],
    ['a shard outside the consumable set', 'shardIndex=7'],
    ['a bad direction', 'direction=UP'],
    ['a bad limit', 'limit=many'],
    ['a bad plain cursor', 'cursor=nope'],
    ['a bad merged cursor token', 'shardIndex=all&cursor=all:0=x'],
    ['a merged cursor token without =', 'shardIndex=all&cursor=all:0'],
    ['a bad recordId', 'recordId=abc'],
  ])('answers 400 INVALID_REQUEST for %s', async (_name, query) => {
    const res = await messages(query);
    expect(res.status).toBe(400);
    expect(res.body.errorCode).toBe('INVALID_REQUEST');
  });

  it('answers 404 for an unknown group', async () => {
    const res = await a.get(`/grafana/messages?streamPrefix=${a.p}&consumerGroup=nope`);
    expect(res.status).toBe(404);
  });

  it('changes no consumer-group state', async () => {
    await walk('shardIndex=all&limit=3&direction=FORWARD');
    expect(await groupStates(a.stack, keys())).toEqual(before);
  });
});
