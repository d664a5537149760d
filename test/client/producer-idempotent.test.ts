/**
 * Idempotent publish (`eventId`) against real Redis: one script checks/sets the marker on the
 * shard and XADDs atomically; in-doubt retries stay on the shard of the first attempt while it
 * exists; a missing shard re-routes and sets no marker.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { RedisCommandError } from '../../src/client/errors.js';
import { ioredisAdapter } from '../../src/client/ioredis-adapter.js';
import type { FetchLike } from '../../src/client/transport.js';
import { routeV1 } from '../../src/routing/route-v1.js';
import { IDEMPOTENT_BATCH } from '../../src/store/scripts/idempotent-batch.js';
import { IDEMPOTENT_PUBLISH } from '../../src/store/scripts/idempotent-publish.js';
import { standaloneClient, uniquePrefix } from '../support/redis.js';
import { keysMatching } from '../support/scan.js';
import { makeStack } from '../support/stack.js';
import {
  createStream,
  faultyAdapter,
  markerKey,
  producer,
  readShard,
  stackFetch,
  totalEntries,
} from './fixtures.js';
import { referenceDouble } from './reference-double.js';

const sha1Hex = (text: string) => createHash('sha1').update(text).digest('hex');

const stack = makeStack({ name: 'standalone', make: standaloneClient });
const redis = standaloneClient();
const adapter = ioredisAdapter(redis);
afterAll(async () => {
  await stack.close();
  await redis.quit();
});

describe('producer > idempotent publish', () => {
  it('writes exactly one entry for 50 concurrent publishes of one eventId, all with its entry id', async () => {
    const p = uniquePrefix('idem');
    await createStream(stack, p, 4);
    const prod = producer({ streamPrefix: p, redis: adapter, fetch: stackFetch(stack) });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        prod.publish({ partitionKey: 'order-7', fields: { attempt: String(i) }, eventId: 'evt-1' }),
      ),
    );
    expect(new Set(results.map((r) => r.entryId)).size).toBe(1);
    expect(results.filter((r) => !r.duplicate)).toHaveLength(1);
    expect(await totalEntries(redis, p, 4)).toBe(1);
  });

  it('returns the first entry id on a later repeat and keeps the marker for the TTL', async () => {
    const p = uniquePrefix('idem');
    await createStream(stack, p, 2);
    const prod = producer({
      streamPrefix: p,
      redis: adapter,
      fetch: stackFetch(stack),
      idempotencyTtlSeconds: 600,
    });
    const first = await prod.publish({ partitionKey: 'k', fields: { v: '1' }, eventId: 'e' });
    const again = await prod.publish({ partitionKey: 'k', fields: { v: '2' }, eventId: 'e' });
    expect(again).toEqual({ ...first, duplicate: true });
    const marker = await markerKey(redis, first.streamKey, 'e');
    expect(await redis.get(marker)).toBe(first.entryId);
    const ttl = await redis.ttl(marker);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(600);
    expect(await readShard(redis, first.streamKey)).toEqual([[first.entryId, { v: '1' }]]);
    const other = await prod.publish({ partitionKey: 'k', fields: { v: '3' }, eventId: 'f' });
    expect(other.entryId).not.toBe(first.entryId);
  });

  it('sets no marker when the shard is missing, and re-routes', async () => {
    const p = uniquePrefix('idem');
    await createStream(stack, p, 4);
    const double = referenceDouble({ streamPrefix: p, shardCount: 2 });
    let target: FetchLike = stackFetch(stack);
    const prod = producer({ streamPrefix: p, redis: adapter, fetch: (u, i) => target(u, i) });
    await prod.routing();
    const key = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].find((k) => routeV1(k, 4) === 3)!;
    target = double.fetch;
    await redis.del(`${p}:3`);
    const r = await prod.publish({ partitionKey: key, fields: { v: '1' }, eventId: 'e1' });
    expect(r.shardIndex).toBe(routeV1(key, 2));
    expect(await keysMatching(redis, `{${p}:3}:*`)).toEqual([]);
    expect(await redis.get(await markerKey(redis, r.streamKey, 'e1'))).toBe(r.entryId);
  });

  it('falls back to EVAL when Redis does not know the script (single and pipelined)', async () => {
    const p = uniquePrefix('noscript');
    await createStream(stack, p, 2);
    const lua = `-- ${randomBytes(8).toString('hex')}\n${IDEMPOTENT_PUBLISH.lua}`;
    const fresh = ioredisAdapter(redis, { idempotentScript: { name: 'fresh', lua, sha1: sha1Hex(lua) } });
    const prod = producer({ streamPrefix: p, redis: fresh, fetch: stackFetch(stack) });
    await expect(
      prod.publish({ partitionKey: 'k', fields: { a: '1' }, eventId: 'x' }),
    ).resolves.toMatchObject({
      duplicate: false,
    });
    const lua2 = `-- ${randomBytes(8).toString('hex')}\n${IDEMPOTENT_PUBLISH.lua}`;
    const lua3 = `-- ${randomBytes(8).toString('hex')}\n${IDEMPOTENT_BATCH.lua}`;
    const fresh2 = ioredisAdapter(redis, {
      idempotentScript: { name: 'fresh2', lua: lua2, sha1: sha1Hex(lua2) },
      batchScript: { name: 'fresh3', lua: lua3, sha1: sha1Hex(lua3) },
    });
    const prod2 = producer({ streamPrefix: p, redis: fresh2, fetch: stackFetch(stack) });
    const batch = await prod2.publishBatch(
      Array.from({ length: 6 }, (_, i) => ({
        partitionKey: 'same',
        fields: { i: String(i) },
        eventId: `y${i % 3}`,
      })),
    );
    expect(batch.every((b) => b.ok)).toBe(true);
    expect(batch.map((b) => b.ok && b.duplicate)).toEqual([false, false, false, true, true, true]);
    expect(await totalEntries(redis, p, 2)).toBe(4);
  });
});

describe('producer > in-doubt retries of an idempotent publish', () => {
  it.each([
    ['with', 10_000],
    ['without', 0],
  ])(
    'retries on the same shard after a lost reply, even when routing moved meanwhile (%s cross-call memory)',
    async (_, maxInDoubtEvents) => {
      const p = uniquePrefix('doubt');
      await createStream(stack, p, 4);
      const key = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].find((k) => routeV1(k, 4) === 3)!;
      const double = referenceDouble({ streamPrefix: p, shardCount: 2 });
      let target: FetchLike = stackFetch(stack);
      let t = 0;
      // The first attempt lands, its reply is lost; meanwhile routing moves to 2 shards and the
      // lease runs out, so a fresh route would pick another shard.
      const faulty = faultyAdapter(adapter, () => {
        target = double.fetch;
        t += 60_000;
      });
      faulty.faults.push('after-send');
      const prod = producer({
        streamPrefix: p,
        redis: faulty.adapter,
        fetch: (u, i) => target(u, i),
        now: () => t,
        maxInDoubtEvents,
      });
      const r = await prod.publish({ partitionKey: key, fields: { v: '1' }, eventId: 'evt' });
      expect(faulty.targets).toEqual([`${p}:3`, `${p}:3`]);
      expect(r).toMatchObject({ shardIndex: 3, streamKey: `${p}:3`, duplicate: true });
      expect(await totalEntries(redis, p, 4)).toBe(1);
    },
  );

  it('re-routes once the in-doubt shard is gone', async () => {
    const p = uniquePrefix('doubt');
    await createStream(stack, p, 4);
    const key = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].find((k) => routeV1(k, 4) === 3)!;
    const double = referenceDouble({ streamPrefix: p, shardCount: 2 });
    let target: FetchLike = stackFetch(stack);
    const faulty = faultyAdapter(adapter, async () => {
      target = double.fetch;
      await redis.del(`${p}:3`);
    });
    faulty.faults.push('before-send');
    const prod = producer({ streamPrefix: p, redis: faulty.adapter, fetch: (u, i) => target(u, i) });
    const r = await prod.publish({ partitionKey: key, fields: { v: '1' }, eventId: 'evt' });
    expect(faulty.targets).toEqual([`${p}:3`, `${p}:3`, `${p}:${routeV1(key, 2)}`]);
    expect(r).toMatchObject({ shardIndex: routeV1(key, 2), duplicate: false });
    expect(await readShard(redis, r.streamKey)).toEqual([[r.entryId, { v: '1' }]]);
  });

  it('remembers the shard across calls when every attempt of a call was in doubt', async () => {
    const p = uniquePrefix('doubt');
    await createStream(stack, p, 4);
    const key = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].find((k) => routeV1(k, 4) === 3)!;
    const double = referenceDouble({ streamPrefix: p, shardCount: 2 });
    let target: FetchLike = stackFetch(stack);
    let t = 0;
    const faulty = faultyAdapter(adapter);
    faulty.faults.push('after-send', 'before-send');
    const prod = producer({
      streamPrefix: p,
      redis: faulty.adapter,
      fetch: (u, i) => target(u, i),
      now: () => t,
      publishMaxAttempts: 2,
    });
    const err = await prod.publish({ partitionKey: key, fields: { v: '1' }, eventId: 'evt' }).catch((e) => e);
    expect(err).toBeInstanceOf(RedisCommandError);
    expect(err).toMatchObject({ inDoubt: true, retryable: true });

    target = double.fetch;
    t += 60_000;
    const r = await prod.publish({ partitionKey: key, fields: { v: '1' }, eventId: 'evt' });
    expect(r).toMatchObject({ shardIndex: 3, duplicate: true });
    expect(await totalEntries(redis, p, 4)).toBe(1);
    // Known now: a later publish of the same id routes normally again (and finds nothing to dedupe there).
    const next = await prod.publish({ partitionKey: key, fields: { v: '2' }, eventId: 'evt' });
    expect(next.shardIndex).toBe(routeV1(key, 2));
  });
});
