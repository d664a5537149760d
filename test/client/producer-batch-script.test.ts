/**
 * Idempotent batches against real Redis: the records of a batch bound for one
 * shard run as ONE idempotent-batch script call — counted on a private redis-server's
 * commandstats — with the per-record outcomes a pipeline of single scripts had: input order kept
 * across plain and `eventId` records, repeats (also within the batch) answered with the first
 * entry id, a refused record reported alone.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ioredisAdapter } from '../../src/client/ioredis-adapter.js';
import { createProducer } from '../../src/client/producer.js';
import { routeV1 } from '../../src/routing/route-v1.js';
import { uniquePrefix } from '../support/redis.js';
import { type StandaloneRedis, startStandalone } from '../support/redis-server.js';
import { markerKey, readShard } from './fixtures.js';
import { referenceDouble } from './reference-double.js';

let server: StandaloneRedis;
let redis: Redis;
beforeAll(async () => {
  server = await startStandalone();
  redis = new Redis(server.url);
});
afterAll(async () => {
  redis.disconnect();
  await server.stop();
});

/** Calls of the commands matching `names` (a regexp alternation) the server has run so far. */
async function calls(names: string): Promise<number> {
  const info = await redis.info('commandstats');
  let n = 0;
  for (const m of info.matchAll(new RegExp(`^cmdstat_(${names}):calls=(\\d+)`, 'gm'))) n += Number(m[2]);
  return n;
}

/** Script runs (EVALSHA + EVAL) the server has executed so far. */
const scriptCalls = () => calls('evalsha|eval');

/** A producer of `p` over `shards` existing shards (routing from a reference double). */
async function producerOn(p: string, shards: number) {
  for (let i = 0; i < shards; i++) await redis.xadd(`${p}:${i}`, '*', 'init', '1');
  const double = referenceDouble({ streamPrefix: p, shardCount: shards });
  return createProducer({
    streamPrefix: p,
    coordinatorUrl: 'http://coordinator.localhost',
    redis: ioredisAdapter(redis),
    fetch: double.fetch,
  });
}

const keyOn = (shard: number, shards: number) =>
  Array.from({ length: 64 }, (_, i) => `k${i}`).find((k) => routeV1(k, shards) === shard)!;

describe('producer > idempotent batches run one script per shard', () => {
  it('runs 4 script calls for a batch of 100 eventId records on 4 shards, and 4 again for its repeat', async () => {
    const p = uniquePrefix('batch-script');
    const prod = await producerOn(p, 4);
    await prod.routing();
    // A producer learns each shard's incarnation (what its markers are named after) from its
    // first idempotent call there: that call is sent twice, once per shard and producer (shard 0
    // goes first: it also loads the script).
    const warmUp = (s: number) =>
      prod.publish({ partitionKey: keyOn(s, 4), fields: { w: '1' }, eventId: `w${s}` });
    await warmUp(0);
    const warm = await scriptCalls();
    for (let s = 1; s < 4; s++) await warmUp(s);
    expect((await scriptCalls()) - warm).toBe(6);
    const records = Array.from({ length: 100 }, (_, i) => ({
      partitionKey: `order-${i}`,
      fields: { i: String(i) },
      eventId: `evt-${i}`,
    }));
    const before = await scriptCalls();
    const first = await prod.publishBatch(records);
    const afterFirst = await scriptCalls();
    expect(first.every((r) => r.ok && !r.duplicate)).toBe(true);
    expect(afterFirst - before).toBe(4);
    const again = await prod.publishBatch(records);
    expect((await scriptCalls()) - afterFirst).toBe(4);
    expect(again.map((r) => r.ok && r.duplicate)).toEqual(records.map(() => true));
    expect(again.map((r) => r.ok && r.entryId)).toEqual(first.map((r) => r.ok && r.entryId));
    let total = 0;
    for (let i = 0; i < 4; i++) total += (await readShard(redis, `${p}:${i}`)).length - 2;
    expect(total).toBe(100);
  });

  it('splits a shard of 2,500 eventId records into script calls of 1,000 at most, in order, repeats included', async () => {
    const p = uniquePrefix('batch-slices');
    const prod = await producerOn(p, 2);
    const k = keyOn(1, 2);
    await prod.publish({ partitionKey: k, fields: { w: '1' }, eventId: 'warm' });
    // Two records per eventId, the repeat 1,250 records later: in another call than its first.
    const records = Array.from({ length: 2_500 }, (_, i) => ({
      partitionKey: k,
      fields: { i: String(i) },
      eventId: `e${i % 1_250}`,
    }));
    const before = await scriptCalls();
    const results = await prod.publishBatch(records);
    // No call holds Redis for more than 1,000 records (about 6 ms): three calls, not one.
    expect((await scriptCalls()) - before).toBe(3);
    expect(results.map((r) => r.ok && r.duplicate)).toEqual(records.map((_, i) => i >= 1_250));
    results.slice(1_250).forEach((r, i) => {
      expect(r).toMatchObject({ ok: true, entryId: results[i]!.ok ? results[i]!.entryId : '' });
    });
    const order = (await readShard(redis, `${p}:1`)).slice(2).map(([, f]) => Number(f.i));
    expect(order).toEqual(records.slice(0, 1_250).map((_, i) => i));
  });

  it('loads its script once per server, and again after the script cache was flushed', async () => {
    const p = uniquePrefix('batch-load');
    const prod = await producerOn(p, 4);
    await prod.routing();
    const batch = (tag: string) =>
      Array.from({ length: 40 }, (_, i) => ({
        partitionKey: `order-${i}`,
        fields: { i: String(i) },
        eventId: `${tag}-${i}`,
      }));
    const loads = () => calls('script\\|load');
    expect((await prod.publishBatch(batch('a'))).every((r) => r.ok && !r.duplicate)).toBe(true);
    const afterFirst = await loads();
    expect((await prod.publishBatch(batch('b'))).every((r) => r.ok && !r.duplicate)).toBe(true);
    expect((await prod.publishBatch(batch('a'))).every((r) => r.ok && r.duplicate)).toBe(true);
    expect(await loads()).toBe(afterFirst);
    // A flushed cache (restart, failover): NOSCRIPT, the full text is sent, nothing lost or doubled.
    await redis.script('FLUSH');
    const flushed = await prod.publishBatch([...batch('b'), ...batch('c')]);
    expect(flushed.map((r) => r.ok && r.duplicate)).toEqual([
      ...batch('b').map(() => true),
      ...batch('c').map(() => false),
    ]);
    expect((await prod.publishBatch(batch('d'))).every((r) => r.ok && !r.duplicate)).toBe(true);
    expect(await loads()).toBeGreaterThan(afterFirst);
    let total = 0;
    for (let i = 0; i < 4; i++) total += (await readShard(redis, `${p}:${i}`)).length - 1;
    expect(total).toBe(160);
  });

  it('keeps input order across plain and eventId records, and answers a repeat within the batch with the first id', async () => {
    const p = uniquePrefix('batch-order');
    const prod = await producerOn(p, 2);
    const k = keyOn(1, 2);
    const results = await prod.publishBatch([
      { partitionKey: k, fields: { n: 'a' } },
      { partitionKey: k, fields: { n: 'b' }, eventId: 'e1' },
      { partitionKey: k, fields: { n: 'c' } },
      { partitionKey: k, fields: { n: 'd' }, eventId: 'e1' },
      { partitionKey: k, fields: { n: 'e' }, eventId: 'e2' },
    ]);
    expect(results.map((r) => r.ok && r.duplicate)).toEqual([false, false, false, true, false]);
    expect(results[3]).toMatchObject({ ok: true, entryId: results[1]!.ok ? results[1]!.entryId : '' });
    const entries = await readShard(redis, `${p}:1`);
    expect(entries.map(([, f]) => f.n)).toEqual([undefined, 'a', 'b', 'c', 'e']);
    expect(await redis.get(await markerKey(redis, `${p}:1`, 'e2'))).toBe(
      results[4]!.ok ? results[4]!.entryId : '',
    );
  });

  it('reports a record refused by Redis on its own (not in doubt) while the rest of its shard lands', async () => {
    const p = uniquePrefix('batch-refused');
    const prod = await producerOn(p, 2);
    const k = keyOn(0, 2);
    const old = await prod.publish({ partitionKey: k, fields: { n: '0' }, eventId: 'e-old' });
    // The marker key of e-bad (in the shard's incarnation, there since the publish above) holds a
    // list: GET answers WRONGTYPE for that record only.
    const bad = await markerKey(redis, `${p}:0`, 'e-bad');
    await redis.rpush(bad, 'x');
    const results = await prod.publishBatch([
      { partitionKey: k, fields: { n: '1' }, eventId: 'e-ok' },
      { partitionKey: k, fields: { n: '2' }, eventId: 'e-bad' },
      { partitionKey: k, fields: { n: '3' } },
      { partitionKey: k, fields: { n: '4' }, eventId: 'e-old' },
      { partitionKey: k, fields: { n: '5' }, eventId: 'e-ok' },
    ]);
    expect(results[3]).toMatchObject({ ok: true, duplicate: true, entryId: old.entryId });
    expect(results[4]).toMatchObject({ ok: true, duplicate: true });
    expect(await redis.type(bad)).toBe('list');
    expect(results[0]).toMatchObject({ ok: true, duplicate: false });
    expect(results[1]).toMatchObject({
      ok: false,
      error: { code: 'REDIS_ERROR', inDoubt: false, retryable: false },
    });
    expect(results[2]).toMatchObject({ ok: true });
    expect((await readShard(redis, `${p}:0`)).map(([, f]) => f.n)).toEqual([undefined, '0', '1', '3']);
  });
});
