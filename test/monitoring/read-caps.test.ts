/**
 * Read caps of the message routes against real Redis (standalone and 6-node
 * Cluster): no request reads more than MAX_RECORDS_READ_PER_REQUEST records in all. A tail
 * cursor whose window needs more answers 400 instead of reading the stream; merged paging over
 * many shards shrinks its page limit to the budget; ordinary pages are unchanged.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { MAX_RECORDS_READ_PER_REQUEST } from '../../src/http/message-pages.js';
import { IoredisInspector } from '../../src/store/ioredis-inspector.js';
import { backends, uniquePrefix } from '../support/redis.js';
import { makeStack, type Stack } from '../support/stack.js';

const originalRange = IoredisInspector.prototype.range;

/** Records on shard 0: the budget plus a short last page. */
const FILLED = 10_050;

describe.each(backends)('monitoring > message read caps ($name)', (backend) => {
  let stack: Stack;
  let p: string;
  let wide: string;
  /** COUNT of every XRANGE/XREVRANGE the app sends, summed per request. */
  let requested = 0;

  const grafana = (prefix: string, query: string) =>
    stack.call(
      'GET',
      `/coord/v1/monitoring/grafana/messages?streamPrefix=${prefix}&consumerGroup=${prefix}&${query}`,
    );

  beforeAll(async () => {
    vi.spyOn(IoredisInspector.prototype, 'range').mockImplementation(function (
      this: IoredisInspector,
      key,
      q,
    ) {
      requested += q.count;
      return originalRange.call(this, key, q);
    });
    stack = makeStack(backend);
    p = uniquePrefix('caps');
    wide = uniquePrefix('caps-wide');
    for (const [prefix, shards] of [
      [p, 2],
      [wide, 16],
    ] as const) {
      const res = await stack.call('POST', `/coord/v1/streams/${prefix}`, {
        initialShardCount: shards,
        requestedBy: 'test',
      });
      expect(res.status).toBe(201);
    }
    for (let start = 0; start < FILLED; start += 1000) {
      const batch = stack.redis.pipeline();
      for (let i = start; i < Math.min(FILLED, start + 1000); i++) batch.xadd(`${p}:0`, '*', 'n', String(i));
      await batch.exec();
    }
    for (let s = 0; s < 16; s++) await stack.redis.xadd(`${wide}:${s}`, '*', 'n', String(s));
    requested = 0;
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await stack.close();
  });
  afterEach(() => {
    requested = 0;
  });

  it('a tail cursor whose window needs more than the budget answers 400 and reads no record', async () => {
    const res = await grafana(p, 'shardIndex=0&limit=3&direction=FORWARD&cursor=__rsc_tail__:999999');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errorCode: 'INVALID_REQUEST' });
    expect(JSON.stringify(res.body)).toContain(String(MAX_RECORDS_READ_PER_REQUEST));
    expect(requested).toBe(0);
  });

  it('tail windows up to the budget are served; one page further is refused', async () => {
    // Pages of 1000 over 10,050 records: the last holds 50; tail 9 reads 50 + 8×1000 + 1000.
    const within = await grafana(p, 'shardIndex=0&limit=1000&direction=FORWARD&cursor=__rsc_tail__:9');
    expect(within.status).toBe(200);
    expect(within.body).toHaveLength(1000);
    expect(requested).toBe(9050);
    requested = 0;
    const beyond = await grafana(p, 'shardIndex=0&limit=1000&direction=FORWARD&cursor=__rsc_tail__:10');
    expect(beyond.status).toBe(400);
    expect(requested).toBe(0);
  });

  it('merged paging over 16 shards with limit 1000 shrinks the page to the budget', async () => {
    const res = await grafana(wide, 'shardIndex=all&limit=1000&direction=FORWARD');
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(16);
    const limit = Math.floor(MAX_RECORDS_READ_PER_REQUEST / 16) - 2;
    expect(res.body[0].pageLimit).toBe(limit);
    expect(requested).toBeLessThanOrEqual(MAX_RECORDS_READ_PER_REQUEST);
  });

  it('ordinary pages are unchanged: the last page, a small tail page, a cursor page', async () => {
    const last = await grafana(p, 'shardIndex=0&limit=25&direction=FORWARD&cursor=__rsc_last__');
    expect(last.status).toBe(200);
    expect(last.body).toHaveLength(FILLED % 25 || 25);
    const tail = await grafana(p, 'shardIndex=all&limit=100&direction=BACKWARD&cursor=__rsc_tail__:3');
    expect(tail.status).toBe(200);
    expect(tail.body).toHaveLength(100);
    const page = await stack.call(
      'GET',
      `/coord/v1/monitoring/streams/${p}/groups/${p}/shards/0/messages?limit=1000&direction=BACKWARD`,
    );
    expect(page.status).toBe(200);
    expect(page.body.records).toHaveLength(1000);
    expect(page.body.nextCursor).not.toBeNull();
  });
});
