/**
 * Producer SDK against real Redis and the real coordinator (through `app.request`), and against
 * a double that speaks only the reference protocol: shard choice, entry layout, typed errors.
 */
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import {
  CoordinatorHttpError,
  InvalidOptionsError,
  InvalidRecordError,
  InvalidRoutingError,
  NoShardsError,
  RoutingUnavailableError,
} from '../../src/client/errors.js';
import { ioredisAdapter } from '../../src/client/ioredis-adapter.js';
import { createProducer } from '../../src/client/producer.js';
import { standaloneClient, uniquePrefix } from '../support/redis.js';
import { makeStack } from '../support/stack.js';
import { vectorsText } from '../support/vectors.js';
import { createStream, producer, readShard, stackFetch, totalEntries } from './fixtures.js';
import { referenceDouble } from './reference-double.js';

interface Vector {
  partitionKey: string;
  shards: Record<string, number>;
}
const vectors = JSON.parse(vectorsText()) as { vectors: Vector[]; shardCounts: number[] };

const stack = makeStack({ name: 'standalone', make: standaloneClient });
const redis = standaloneClient();
const adapter = ioredisAdapter(redis);
afterAll(async () => {
  await stack.close();
  await redis.quit();
});

describe('producer > routing interop (route-v1 vectors)', () => {
  const small = vectors.shardCounts.filter((n) => n <= 16);

  it.each(small)(
    'lands every vector on the reference shard of a %i-shard stream on our coordinator',
    async (n) => {
      const p = uniquePrefix('vec');
      await createStream(stack, p, n);
      const prod = producer({ streamPrefix: p, redis: adapter, fetch: stackFetch(stack) });
      for (const v of vectors.vectors) {
        const r = await prod.publish({ partitionKey: v.partitionKey, fields: { k: v.partitionKey } });
        expect(r.shardIndex, `${JSON.stringify(v.partitionKey)} of ${n}`).toBe(v.shards[String(n)]);
        expect(r.streamKey).toBe(`${p}:${r.shardIndex}`);
        const entries = await readShard(redis, r.streamKey);
        expect(entries.find(([id]) => id === r.entryId)?.[1]).toEqual({ k: v.partitionKey });
      }
    },
  );

  it.each(vectors.shardCounts.filter((n) => n > 16))(
    'lands every vector on the reference shard of a %i-shard reference-only coordinator',
    async (n) => {
      const p = uniquePrefix('vec');
      const double = referenceDouble({ streamPrefix: p, shardCount: n });
      // Only the expected shards exist: any other choice finds no key and fails the publish.
      for (const v of vectors.vectors) await redis.xadd(`${p}:${v.shards[String(n)]}`, '*', 'init', '1');
      const prod = producer({ streamPrefix: p, redis: adapter, fetch: double.fetch, publishMaxAttempts: 1 });
      for (const v of vectors.vectors) {
        expect((await prod.publish({ partitionKey: v.partitionKey, fields: { a: 'b' } })).shardIndex).toBe(
          v.shards[String(n)],
        );
      }
      expect(double.requests()).toBe(1);
    },
  );

  it('routes bytes keys like their UTF-8 string', async () => {
    const p = uniquePrefix('bytes');
    await createStream(stack, p, 8);
    const prod = producer({ streamPrefix: p, redis: adapter, fetch: stackFetch(stack) });
    const a = await prod.publish({ partitionKey: 'order-123', fields: { a: '1' } });
    const b = await prod.publish({ partitionKey: new TextEncoder().encode('order-123'), fields: { a: '2' } });
    expect([a.shardIndex, b.shardIndex]).toEqual([5, 5]);
  });
});

describe('producer > writing entries', () => {
  it('writes the fields in order, with MAXLEN trimming', async () => {
    const p = uniquePrefix('fields');
    await createStream(stack, p, 1);
    const prod = producer({
      streamPrefix: p,
      redis: adapter,
      fetch: stackFetch(stack),
      maxLen: 3,
      approximateTrim: false,
    });
    let last = '';
    for (let i = 0; i < 5; i++) {
      const r = await prod.publish({ partitionKey: 'k', fields: { payload: `p${i}`, seq: String(i) } });
      expect(r.duplicate).toBe(false);
      last = r.entryId;
    }
    const entries = await readShard(redis, `${p}:0`);
    expect(entries.map(([, f]) => f.payload)).toEqual(['p2', 'p3', 'p4']);
    expect(entries.at(-1)).toEqual([last, { payload: 'p4', seq: '4' }]);
  });

  it('reads routing from a consumer group other than the prefix', async () => {
    const p = uniquePrefix('grp');
    const res = await stack.call('POST', `/coord/v1/streams/${p}`, {
      initialShardCount: 2,
      consumerGroup: 'billing',
      requestedBy: 't',
    });
    expect(res.status).toBe(201);
    const prod = producer({
      streamPrefix: p,
      consumerGroup: 'billing',
      redis: adapter,
      fetch: stackFetch(stack),
    });
    expect((await prod.routing()).consumerGroup).toBe('billing');
    await expect(prod.publish({ partitionKey: 'x', fields: { a: '1' } })).resolves.toMatchObject({
      streamKey: expect.any(String),
    });
  });
});

describe('producer > ioredis client settings', () => {
  it('works over a RESP3 connection (the ioredis 6 default)', async () => {
    const p = uniquePrefix('resp3');
    await createStream(stack, p, 4);
    const resp3 = new Redis(inject('redisUrl'));
    try {
      const prod = producer({ streamPrefix: p, redis: ioredisAdapter(resp3), fetch: stackFetch(stack) });
      const one = await prod.publish({ partitionKey: 'a', fields: { v: '1' } });
      const idem = await prod.publish({ partitionKey: 'a', fields: { v: '2' }, eventId: 'e' });
      const again = await prod.publish({ partitionKey: 'a', fields: { v: '3' }, eventId: 'e' });
      const batch = await prod.publishBatch([
        { partitionKey: 'b', fields: { v: '4' } },
        { partitionKey: 'c', fields: { v: '5' }, eventId: 'e2' },
      ]);
      expect(one.entryId).toMatch(/^\d+-\d+$/);
      expect(again).toEqual({ ...idem, duplicate: true });
      expect(batch.every((b) => b.ok)).toBe(true);
      expect(await totalEntries(redis, p, 4)).toBe(4);
    } finally {
      resp3.disconnect();
    }
  });
});

describe('producer > typed errors', () => {
  it('fails with NO_SHARDS when the stream has shardCount 0', async () => {
    const p = uniquePrefix('drained');
    const double = referenceDouble({ streamPrefix: p, shardCount: 0 });
    const prod = producer({ streamPrefix: p, redis: adapter, fetch: double.fetch });
    const err = await prod.publish({ partitionKey: 'k', fields: { a: '1' } }).catch((e) => e);
    expect(err).toBeInstanceOf(NoShardsError);
    expect(err).toMatchObject({ code: 'NO_SHARDS', retryable: false });
  });

  it('fails with INVALID_ROUTING when the answer is for another group', async () => {
    const p = uniquePrefix('invalid');
    const double = referenceDouble({ streamPrefix: p, shardCount: 2 });
    double.state.body = {
      streamPrefix: p,
      consumerGroup: 'nope',
      metadataVersion: 1,
      shardCount: 0,
      shards: [],
    };
    const prod = producer({ streamPrefix: p, redis: adapter, fetch: double.fetch });
    await expect(prod.publish({ partitionKey: 'k', fields: { a: '1' } })).rejects.toBeInstanceOf(
      InvalidRoutingError,
    );
  });

  it('fails with ROUTING_UNAVAILABLE (not retryable) for a stream the coordinator does not know', async () => {
    const prod = producer({
      streamPrefix: uniquePrefix('unknown'),
      redis: adapter,
      fetch: stackFetch(stack),
    });
    const err = await prod.publish({ partitionKey: 'k', fields: { a: '1' } }).catch((e) => e);
    expect(err).toBeInstanceOf(RoutingUnavailableError);
    expect(err.retryable).toBe(false);
    expect(err.cause).toBeInstanceOf(CoordinatorHttpError);
    expect(err.cause).toMatchObject({ status: 404, errorCode: 'GROUP_NOT_FOUND' });
  });

  it('rejects a malformed record before any I/O', async () => {
    const p = uniquePrefix('rec');
    const double = referenceDouble({ streamPrefix: p, shardCount: 1 });
    const prod = producer({ streamPrefix: p, redis: adapter, fetch: double.fetch });
    const bad = [
      { partitionKey: 'k', fields: {} },
      { partitionKey: 'k', fields: { a: 1 } },
      { partitionKey: 5, fields: { a: '1' } },
      { partitionKey: 'k', fields: { a: '1' }, eventId: '' },
    ];
    for (const record of bad) {
      // biome-ignore lint/suspicious/noExplicitAny: deliberately wrong shapes.
      await expect(prod.publish(record as any)).rejects.toBeInstanceOf(InvalidRecordError);
    }
    expect(double.requests()).toBe(0);
  });

  it('rejects options out of range with INVALID_OPTIONS', () => {
    const base = { coordinatorUrl: 'http://c', streamPrefix: 'orders', redis: adapter };
    for (const bad of [
      { streamPrefix: '{orders}' },
      { coordinatorUrl: 'not a url' },
      { routingLeaseMs: 1000, refreshAheadMs: 1000 },
      { maxLen: 0 },
      { publishMaxAttempts: 0 },
      { redis: {} },
    ]) {
      // biome-ignore lint/suspicious/noExplicitAny: deliberately wrong shapes.
      expect(() => createProducer({ ...base, ...bad } as any)).toThrow(InvalidOptionsError);
    }
  });
});

describe('producer > reference-only coordinator and credentials', () => {
  it('publishes through a server that speaks only the reference routing protocol, with Basic credentials', async () => {
    const p = uniquePrefix('ref');
    const basic = { username: 'writer', password: 's3cr3t-pass' };
    const double = referenceDouble({ streamPrefix: p, shardCount: 3, basic });
    for (let i = 0; i < 3; i++) await redis.xadd(`${p}:${i}`, '*', 'init', '1');
    const prod = producer({ streamPrefix: p, redis: adapter, fetch: double.fetch, credentials: basic });
    const r = await prod.publish({ partitionKey: 'order-123', fields: { a: '1' } });
    expect(r).toMatchObject({ shardIndex: 1, streamKey: `${p}:1` });
  });

  it('uses a bearer token', async () => {
    const p = uniquePrefix('bearer');
    const double = referenceDouble({ streamPrefix: p, shardCount: 1, token: 'tkn.sig' });
    await redis.xadd(`${p}:0`, '*', 'init', '1');
    const prod = producer({
      streamPrefix: p,
      redis: adapter,
      fetch: double.fetch,
      credentials: { token: 'tkn.sig' },
    });
    await expect(prod.publish({ partitionKey: 'k', fields: { a: '1' } })).resolves.toMatchObject({
      shardIndex: 0,
    });
  });

  it('reports rejected credentials as a non-retryable 401 without echoing them', async () => {
    const p = uniquePrefix('denied');
    const double = referenceDouble({
      streamPrefix: p,
      shardCount: 1,
      basic: { username: 'u', password: 'right' },
    });
    const credentials = { username: 'u', password: 'wrong-password-123' };
    const prod = producer({ streamPrefix: p, redis: adapter, fetch: double.fetch, credentials });
    const err = await prod.publish({ partitionKey: 'k', fields: { a: '1' } }).catch((e) => e);
    expect(err).toBeInstanceOf(RoutingUnavailableError);
    expect(err).toMatchObject({ retryable: false, cause: { status: 401 } });
    expect(`${err.message} ${err.cause.message}`).not.toContain('wrong-password-123');
  });
});
