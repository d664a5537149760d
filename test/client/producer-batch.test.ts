/**
 * `publishBatch` on standalone Redis and the 6-node Cluster: one pipeline per shard, results
 * in input order, every record on its routeV1 shard, per-record failures reported as typed
 * errors while the rest of the batch lands.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { ClientError } from '../../src/client/errors.js';
import { ioredisAdapter } from '../../src/client/ioredis-adapter.js';
import type { PublishRecord } from '../../src/client/producer.js';
import type { ProducerRedis, ShardWrite } from '../../src/client/redis-adapter.js';
import { routeV1 } from '../../src/routing/route-v1.js';
import { backends, uniquePrefix } from '../support/redis.js';
import { makeStack } from '../support/stack.js';
import { createStream, producer, readShard, stackFetch, totalEntries } from './fixtures.js';
import { referenceDouble } from './reference-double.js';

describe.each(backends)('producer > publishBatch ($name)', (backend) => {
  const stack = makeStack(backend);
  const redis = backend.make();
  afterAll(async () => {
    await stack.close();
    redis.disconnect();
  });

  /** Records the shard groups of every pipelined batch the producer hands the adapter. */
  function observed(inner: ProducerRedis) {
    const batches: string[][][] = [];
    const adapter: ProducerRedis = {
      ...inner,
      pipelineShards: (groups: readonly (readonly ShardWrite[])[]) => {
        batches.push(groups.map((g) => [...new Set(g.map((w) => w.key))]));
        return inner.pipelineShards(groups);
      },
    };
    return { adapter, batches };
  }

  it('lands 200 records across 8 shards in input order, grouped per shard', async () => {
    const p = uniquePrefix('batch');
    await createStream(stack, p, 8);
    const { adapter, batches } = observed(ioredisAdapter(redis));
    const prod = producer({ streamPrefix: p, redis: adapter, fetch: stackFetch(stack) });
    const records: PublishRecord[] = Array.from({ length: 200 }, (_, i) => ({
      // Records i and i + 100 share a partition key, so a repeated event id meets its marker.
      partitionKey: `customer-${(i % 100) % 37}`,
      fields: { seq: String(i) },
      // Every fourth record is idempotent; ids repeat once, so 25 of them are duplicates.
      ...(i % 4 === 0 ? { eventId: `evt-${i % 100}` } : {}),
    }));
    const results = await prod.publishBatch(records);

    expect(results).toHaveLength(200);
    results.forEach((r, i) => {
      expect(r.ok, `record ${i}`).toBe(true);
      if (!r.ok) return;
      const eventId = records[i]!.eventId;
      const firstWithId = records.findIndex((x) => x.eventId !== undefined && x.eventId === eventId);
      expect(r.shardIndex).toBe(routeV1(records[i]!.partitionKey, 8));
      expect(r.duplicate).toBe(eventId !== undefined && firstWithId !== i);
    });
    // One batch, at most one group per shard, each group on a single key. On the Cluster the
    // adapter sends each group as its own pipeline (ioredis refuses cross-slot pipelines).
    expect(batches).toHaveLength(1);
    expect(batches[0]!.length).toBeLessThanOrEqual(8);
    for (const keys of batches[0]!) expect(keys).toHaveLength(1);

    expect(await totalEntries(redis, p, 8)).toBe(200 - 25);
    for (let s = 0; s < 8; s++) {
      const entries = await readShard(redis, `${p}:${s}`);
      const expected = results
        .map((r, i) => ({ r, i }))
        .filter(({ r }) => r.ok && r.shardIndex === s && !r.duplicate)
        .map(({ r, i }) => [r.ok ? r.entryId : '', { seq: String(i) }]);
      // Within a shard, entries are in input order.
      expect(entries).toEqual(expected);
    }
  });

  it('reports malformed records and Redis refusals per record while the rest lands', async () => {
    const p = uniquePrefix('partial');
    const double = referenceDouble({ streamPrefix: p, shardCount: 2 });
    await redis.xadd(`${p}:0`, '*', 'init', '1');
    // Shard 1 exists but is not a stream: XADD gets WRONGTYPE (refused, not in doubt).
    await redis.set(`${p}:1`, 'not-a-stream');
    const prod = producer({ streamPrefix: p, redis: ioredisAdapter(redis), fetch: double.fetch });
    const keyOn = (shard: number) => ['a', 'b', 'c', 'd', 'e', 'f'].find((k) => routeV1(k, 2) === shard)!;
    const results = await prod.publishBatch([
      { partitionKey: keyOn(0), fields: { n: '0' } },
      { partitionKey: keyOn(1), fields: { n: '1' } },
      { partitionKey: keyOn(0), fields: {} },
      { partitionKey: keyOn(1), fields: { n: '3' }, eventId: 'e3' },
      { partitionKey: keyOn(0), fields: { n: '4' }, eventId: 'e4' },
    ]);
    expect(results.map((r) => (r.ok ? 'ok' : (r.error as ClientError).code))).toEqual([
      'ok',
      'REDIS_ERROR',
      'INVALID_RECORD',
      'REDIS_ERROR',
      'ok',
    ]);
    expect(results[1]).toMatchObject({ ok: false, error: { inDoubt: false, retryable: false } });
    expect((await readShard(redis, `${p}:0`)).map(([, f]) => f.n)).toEqual([undefined, '0', '4']);
  });

  it('publishes single records and idempotent repeats (script keys share the shard slot)', async () => {
    const p = uniquePrefix('single');
    await createStream(stack, p, 8);
    const prod = producer({ streamPrefix: p, redis: ioredisAdapter(redis), fetch: stackFetch(stack) });
    for (let i = 0; i < 8; i++) {
      const r = await prod.publish({ partitionKey: `k${i}`, fields: { i: String(i) } });
      expect(r.shardIndex).toBe(routeV1(`k${i}`, 8));
    }
    const repeats = await Promise.all(
      Array.from({ length: 10 }, () =>
        prod.publish({ partitionKey: 'k1', fields: { v: '1' }, eventId: 'e' }),
      ),
    );
    expect(new Set(repeats.map((r) => r.entryId)).size).toBe(1);
    expect(await totalEntries(redis, p, 8)).toBe(9);
  });

  it('returns an empty array for an empty batch without asking the coordinator', async () => {
    const p = uniquePrefix('empty');
    const double = referenceDouble({ streamPrefix: p, shardCount: 2 });
    const prod = producer({ streamPrefix: p, redis: ioredisAdapter(redis), fetch: double.fetch });
    expect(await prod.publishBatch([])).toEqual([]);
    expect(double.requests()).toBe(0);
  });
});
