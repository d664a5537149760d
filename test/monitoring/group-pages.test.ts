/**
 * `GET /monitoring/groups` in pages (docs/protocol.md#listing-groups-in-pages) against real Redis:
 * the pages cover every group once in (stream, group) order, a page reads only the streams it
 * needs, bad `limit` and `cursor` answer 400, and groups created or deleted between two pages
 * do not break the walk.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { backends } from '../support/redis.js';
import { makeStack, type Stack } from '../support/stack.js';

const GROUPS = '/coord/v1/monitoring/groups';
const meta = { requestedBy: 'test', reason: 'paging' };
/** `stream/group` of every group of an answer. */
const names = (body: { groups: Array<{ streamPrefix: string; consumerGroup: string }> }) =>
  body.groups.map((g) => `${g.streamPrefix}/${g.consumerGroup}`);
const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/** (stream, group) order of `stream/group` names. */
const pairOrder = (a: string, b: string) => {
  const [pa, ga] = a.split('/') as [string, string];
  const [pb, gb] = b.split('/') as [string, string];
  return byCodeUnits(pa, pb) || byCodeUnits(ga, gb);
};

describe.each(backends)('monitoring > groups in pages ($name)', (backend) => {
  let stack: Stack;
  /** `stream/group` of every group arranged, in listing order. */
  let expected: string[];

  const createStream = async (p: string) =>
    expect(
      (await stack.call('POST', `/coord/v1/streams/${p}`, { ...meta, initialShardCount: 1 })).status,
    ).toBe(201);
  const createGroup = async (p: string, g: string) =>
    expect((await stack.call('POST', `/coord/v1/streams/${p}/groups/${g}`, meta)).status).toBe(201);
  const deleteGroup = async (p: string, g: string) =>
    expect((await stack.call('DELETE', `/coord/v1/streams/${p}/groups/${g}`, meta)).status).toBe(200);

  /** Every page from the first, at `limit` each, with `between(pageIndex)` run after each page. */
  const walk = async (limit: number, between: (page: number) => Promise<void> = async () => {}) => {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 100; page++) {
      const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const res = await stack.call('GET', `${GROUPS}?limit=${limit}${query}`);
      expect(res.status).toBe(200);
      expect(res.body.groups.length).toBeLessThanOrEqual(limit);
      expect(res.body.limit).toBe(limit);
      seen.push(...names(res.body));
      cursor = res.body.nextCursor;
      if (cursor === null) return seen;
      expect(res.body.totalGroups).toBeNull();
      await between(page);
    }
    throw new Error('the walk did not end');
  };

  beforeAll(async () => {
    stack = makeStack(backend, { config: { COORDINATOR_PROVISIONING: 'false' } });
    // Names whose code-unit order differs from insertion order; some streams with several groups.
    const streams = ['s-b', 's-a', 's-B', 's-c', 's-é', 's-a-1', 's-d', 's-e', 's-f'];
    for (const p of streams) await createStream(p);
    await createGroup('s-a', 'x-2');
    await createGroup('s-a', 'x-1');
    await createGroup('s-d', 'Z');
    expected = [...streams.map((p) => `${p}/${p}`), 's-a/x-2', 's-a/x-1', 's-d/Z'].sort(pairOrder);
  });
  afterAll(async () => {
    await stack.close();
  });

  it('without parameters answers every group in one page, with the totals', async () => {
    const res = await stack.call('GET', GROUPS);
    expect(res.status).toBe(200);
    expect(names(res.body)).toEqual(expected);
    expect(res.body).toMatchObject({ nextCursor: null, limit: 1000, totalStreams: 9, totalGroups: 12 });
  });

  it.each([1, 2, 5, 11, 12, 13])('pages of %i cover every group exactly once, in order', async (limit) => {
    expect(await walk(limit)).toEqual(expected);
  });

  it('a page loads only the streams it needs, and every page says how many streams exist', async () => {
    const load = vi.spyOn(stack.store, 'load');
    try {
      const first = await stack.call('GET', `${GROUPS}?limit=2`);
      expect(first.body).toMatchObject({ totalStreams: 9, totalGroups: null });
      expect(names(first.body)).toEqual(expected.slice(0, 2));
      expect(load.mock.calls.length).toBeLessThanOrEqual(2);
      load.mockClear();
      const second = await stack.call('GET', `${GROUPS}?limit=3&cursor=${first.body.nextCursor}`);
      expect(names(second.body)).toEqual(expected.slice(2, 5));
      expect(second.body.totalStreams).toBe(9);
      expect(load.mock.calls.length).toBeLessThanOrEqual(3);
    } finally {
      load.mockRestore();
    }
  });

  it('/grafana/groups with limit and cursor rows exactly the groups of that page', async () => {
    const first = await stack.call('GET', `${GROUPS}?limit=3`);
    const second = await stack.call('GET', `${GROUPS}?limit=3&cursor=${first.body.nextCursor}`);
    const rows = await stack.call(
      'GET',
      `/coord/v1/monitoring/grafana/groups?limit=3&cursor=${first.body.nextCursor}`,
    );
    expect(rows.status).toBe(200);
    expect(
      rows.body.map(
        (r: { streamPrefix: string; consumerGroup: string }) => `${r.streamPrefix}/${r.consumerGroup}`,
      ),
    ).toEqual(names(second.body));
    expect((await stack.call('GET', '/coord/v1/monitoring/grafana/groups?limit=0')).status).toBe(400);
    expect((await stack.call('GET', '/coord/v1/monitoring/grafana/groups')).body).toHaveLength(
      expected.length,
    );
  });

  it.each([
    ['limit=0', 'limit: must be an integer from 1 to 1000'],
    ['limit=1001', 'limit: must be an integer from 1 to 1000'],
    ['limit=-3', 'limit: must be an integer from 1 to 1000'],
    ['limit=2.5', 'limit: must be an integer from 1 to 1000'],
    ['limit=ten', 'limit: must be an integer from 1 to 1000'],
    ['cursor=not-a-cursor!', 'cursor: is not a cursor of this list'],
    ['cursor=abc', 'cursor: is not a cursor of this list'],
    [`cursor=${Buffer.from('["g1","s-a"]').toString('base64url')}`, 'cursor: is not a cursor of this list'],
    [
      `cursor=${Buffer.from('["g9","s-a","s-a"]').toString('base64url')}`,
      'cursor: is not a cursor of this list',
    ],
  ])('?%s answers 400 INVALID_REQUEST', async (query, message) => {
    const res = await stack.call('GET', `${GROUPS}?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.errorCode).toBe('INVALID_REQUEST');
    expect(res.body.message).toContain(message);
  });

  it('a group created or deleted between pages does not break the walk', async () => {
    // The first page ends at s-a/s-a. Then: the cursor's own stream goes (all its groups), a
    // stream ahead goes, a stream is created behind the cursor and one ahead of it.
    expect(expected.slice(0, 2)).toEqual(['s-B/s-B', 's-a/s-a']);
    const seen = await walk(2, async (page) => {
      if (page !== 0) return;
      for (const g of ['s-a', 'x-1', 'x-2']) await deleteGroup('s-a', g);
      await deleteGroup('s-e', 's-e');
      await createStream('s-0');
      await createStream('s-cc');
    });
    const gone = new Set(['s-a/x-1', 's-a/x-2', 's-e/s-e']);
    const walked = [...expected.filter((n) => !gone.has(n)), 's-cc/s-cc'].sort(pairOrder);
    expect(seen).toEqual(walked);
    expect(new Set(seen).size).toBe(seen.length);
    // The listing now counts the deletions and both new streams (s-d has two groups).
    const all = await stack.call('GET', GROUPS);
    const now = ['s-0/s-0', ...walked.filter((n) => n !== 's-a/s-a')].sort(pairOrder);
    expect(names(all.body)).toEqual(now);
    expect(all.body).toMatchObject({ totalStreams: 9, totalGroups: now.length, nextCursor: null });
  });
});
