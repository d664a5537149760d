/**
 * The producer over @upstash/redis, against real Redis behind a minimal Upstash REST bridge
 * (the Miniflare run of the edge build is another suite): routing, stale-route re-routing,
 * idempotent publish and batches behave as over ioredis.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Redis as Upstash } from '@upstash/redis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { FetchLike } from '../../src/client/transport.js';
import { upstashAdapter } from '../../src/client/upstash-adapter.js';
import { routeV1 } from '../../src/routing/route-v1.js';
import { IDEMPOTENT_BATCH } from '../../src/store/scripts/idempotent-batch.js';
import { IDEMPOTENT_PUBLISH } from '../../src/store/scripts/idempotent-publish.js';
import { standaloneClient, uniquePrefix } from '../support/redis.js';
import { makeStack } from '../support/stack.js';
import { startUpstashBridge, type UpstashBridge } from '../support/upstash-bridge.js';
import { createStream, producer, readShard, stackFetch, totalEntries } from './fixtures.js';
import { referenceDouble } from './reference-double.js';

const stack = makeStack({ name: 'standalone', make: standaloneClient });
const redis = standaloneClient();
let bridge: UpstashBridge;
let client: Upstash;

beforeAll(async () => {
  bridge = await startUpstashBridge({ redisUrl: inject('redisUrl') });
  client = new Upstash({
    url: bridge.url,
    token: bridge.token,
    automaticDeserialization: false,
    enableTelemetry: false,
    retry: false,
  });
});
/** The commands the bridge received since its last reset, SCRIPT LOADs aside (lower case). */
function billed(b: UpstashBridge): string[] {
  return b.requests
    .flatMap((r) => r.commands)
    .map((c) => String(c[0]).toLowerCase())
    .filter((c) => c !== 'script');
}

/** A new stream of 4 shards and a producer over the bridge that tries each record once. */
async function singleAttemptProducer() {
  const p = uniquePrefix('up');
  await createStream(stack, p, 4);
  const prod = producer({
    streamPrefix: p,
    redis: upstashAdapter(client),
    fetch: stackFetch(stack),
    publishMaxAttempts: 1,
  });
  return { p, prod };
}

/** A partition key that routes to `shard` of 4. */
function keyOn(shard: number): string {
  for (let i = 0; ; i++) if (routeV1(`s${i}`, 4) === shard) return `s${i}`;
}

/** One batch over the bridge, so Redis holds the batch script and its first EVALSHA is not refused. */
async function warmUp(): Promise<void> {
  const p = uniquePrefix('warm');
  await createStream(stack, p, 2);
  const prod = producer({ streamPrefix: p, redis: upstashAdapter(client), fetch: stackFetch(stack) });
  await prod.publishBatch([0, 1, 2].map((i) => ({ partitionKey: `k${i}`, fields: { i: String(i) } })));
}

afterAll(async () => {
  await bridge.close();
  await stack.close();
  await redis.quit();
});

describe('producer over @upstash/redis (real Redis behind a REST bridge)', () => {
  it('publishes to the routeV1 shard with the fields as given', async () => {
    const p = uniquePrefix('up');
    await createStream(stack, p, 8);
    const prod = producer({ streamPrefix: p, redis: upstashAdapter(client), fetch: stackFetch(stack) });
    const r = await prod.publish({ partitionKey: 'order-123', fields: { payload: '{"a":1}', n: '42' } });
    expect(r).toMatchObject({ shardIndex: 5, streamKey: `${p}:5`, duplicate: false });
    expect(await readShard(redis, r.streamKey)).toEqual([[r.entryId, { payload: '{"a":1}', n: '42' }]]);
  });

  it('re-routes after a stale route (nil from XADD NOMKSTREAM)', async () => {
    const p = uniquePrefix('up');
    await createStream(stack, p, 4);
    const double = referenceDouble({ streamPrefix: p, shardCount: 2 });
    let target: FetchLike = stackFetch(stack);
    const prod = producer({ streamPrefix: p, redis: upstashAdapter(client), fetch: (u, i) => target(u, i) });
    await prod.routing();
    target = double.fetch;
    await redis.del(`${p}:2`, `${p}:3`);
    const keys = Array.from({ length: 12 }, (_, i) => `k${i}`);
    for (const k of keys) {
      const r = await prod.publish({ partitionKey: k, fields: { k } });
      expect(r.shardIndex).toBe(routeV1(k, 2));
    }
    expect(await totalEntries(redis, p, 2)).toBe(12);
  });

  it('writes one entry for 20 concurrent publishes of one eventId', async () => {
    const p = uniquePrefix('up');
    await createStream(stack, p, 4);
    const prod = producer({ streamPrefix: p, redis: upstashAdapter(client), fetch: stackFetch(stack) });
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        prod.publish({ partitionKey: 'x', fields: { a: '1' }, eventId: 'once' }),
      ),
    );
    expect(new Set(results.map((r) => r.entryId)).size).toBe(1);
    expect(await totalEntries(redis, p, 4)).toBe(1);
  });

  it('appends a batch over 4 shards as ONE billed command, in input order, refusing per record', async () => {
    const { p, prod } = await singleAttemptProducer();
    await prod.routing();
    const records = Array.from({ length: 40 }, (_, i) => ({
      partitionKey: `c${i}`,
      fields: { i: String(i) },
    }));
    expect(new Set(records.map((r) => routeV1(r.partitionKey, 4))).size).toBe(4);
    await warmUp();
    bridge.reset();
    const results = await prod.publishBatch(records);
    // One script call for the whole batch (after the first sight of a script, its SCRIPT LOAD aside).
    expect(billed(bridge)).toEqual(['evalsha']);
    expect(results.every((r) => r.ok)).toBe(true);
    expect(results.map((r) => r.ok && r.shardIndex)).toEqual(records.map((r) => routeV1(r.partitionKey, 4)));
    for (let shard = 0; shard < 4; shard++) {
      const order = (await readShard(redis, `${p}:${shard}`)).map(([, f]) => Number(f.i));
      expect(order).toEqual(records.map((_, i) => i).filter((i) => routeV1(`c${i}`, 4) === shard));
    }
    // A shard whose key is gone refuses its own records (stale route); the other shards' are written.
    await redis.del(`${p}:2`);
    bridge.reset();
    const mixed = await prod.publishBatch(records);
    expect(billed(bridge)).toEqual(['evalsha']);
    mixed.forEach((r, i) => {
      if (routeV1(`c${i}`, 4) === 2)
        expect(r).toMatchObject({ ok: false, error: { code: 'STREAM_MISSING' } });
      else expect(r.ok).toBe(true);
    });
    const onTwo = records.filter((r) => routeV1(r.partitionKey, 4) === 2).length;
    expect(await totalEntries(redis, p, 4)).toBe(2 * (40 - onTwo));
  });

  it('keeps idempotency per shard in the one call: repeats answered duplicate, a re-created shard sent again on its own', async () => {
    const p = uniquePrefix('up');
    await createStream(stack, p, 4);
    const prod = producer({ streamPrefix: p, redis: upstashAdapter(client), fetch: stackFetch(stack) });
    const records = Array.from({ length: 24 }, (_, i) => ({
      partitionKey: `k${i % 12}`,
      fields: { i: String(i) },
      ...(i % 3 !== 2 ? { eventId: `e${i % 12}` } : {}),
    }));
    const first = await prod.publishBatch(records);
    expect(first.every((r) => r.ok)).toBe(true);
    // 16 records carry an eventId, 8 distinct: each second one (same key, same shard) is a repeat.
    const withId = records.filter((r) => r.eventId !== undefined);
    const distinct = new Set(withId.map((r) => r.eventId)).size;
    expect(first.filter((r) => r.ok && r.duplicate)).toHaveLength(withId.length - distinct);
    const written = records.length - (withId.length - distinct);
    expect(await totalEntries(redis, p, 4)).toBe(written);

    // The same batch again: every eventId answered duplicate with its first entry id, in one call.
    bridge.reset();
    const again = await prod.publishBatch(records);
    expect(billed(bridge)).toEqual(['evalsha']);
    records.forEach((r, i) => {
      const a = again[i]!;
      if (r.eventId === undefined) {
        expect(a).toMatchObject({ ok: true, duplicate: false });
        return;
      }
      const firstOfId = first[records.findIndex((x) => x.eventId === r.eventId)]!;
      expect(a).toMatchObject({ ok: true, duplicate: true });
      expect(a.ok && firstOfId.ok && a.entryId).toBe(firstOfId.ok && firstOfId.entryId);
    });

    // Shard 1 deleted and created again (a new incarnation): its segment answers the new
    // incarnation and is sent once more alone; its eventIds are new there, the others repeats.
    const shard1 = records.map((_r, i) => i).filter((i) => routeV1(records[i]!.partitionKey, 4) === 1);
    expect(shard1.length).toBeGreaterThan(0);
    await redis.del(`${p}:1`, `{${p}:1}:incarnation`);
    await redis.xadd(`${p}:1`, '*', 'seed', '1');
    await redis.xdel(`${p}:1`, (await redis.xrange(`${p}:1`, '-', '+'))[0]![0]);
    bridge.reset();
    const third = await prod.publishBatch(records);
    expect(billed(bridge)).toEqual(['evalsha', 'evalsha']);
    const secondCall = bridge.requests
      .flatMap((r) => r.commands)
      .filter((c) => c[0]?.toLowerCase() === 'evalsha')[1]!;
    expect(secondCall.slice(3, 5)).toEqual([`${p}:1`, `{${p}:1}:incarnation`]);
    expect(secondCall.filter((c) => String(c).startsWith(`${p}:`))).toEqual([`${p}:1`]);
    third.forEach((r, i) => {
      expect(r.ok).toBe(true);
      const inShard1 = shard1.includes(i);
      const firstOfId = records.findIndex(
        (x) => x.eventId !== undefined && x.eventId === records[i]!.eventId,
      );
      const repeatInBatch = firstOfId !== -1 && firstOfId < i;
      if (records[i]!.eventId === undefined) expect(r).toMatchObject({ duplicate: false });
      else expect(r).toMatchObject({ duplicate: !inShard1 || repeatInBatch });
    });
  });

  it('refuses one shard whose incarnation key cannot be read and writes the others, in the same call', async () => {
    const { p, prod } = await singleAttemptProducer();
    // A first batch learns every shard's incarnation (so the call below is the only one).
    await prod.publishBatch(
      [0, 1, 2, 3].map((s) => ({ partitionKey: keyOn(s), fields: { s: 'x' }, eventId: `w${s}` })),
    );
    await redis.del(`{${p}:0}:incarnation`);
    // A wrong-typed incarnation key on shard 0, the first segment of the call: a script that
    // raised there would fail the whole call; under pcall only shard 0's records are refused.
    await redis.lpush(`{${p}:0}:incarnation`, 'x');
    const records = Array.from({ length: 20 }, (_, i) => ({
      partitionKey: `w${i}`,
      fields: { i: String(i) },
      eventId: `id${i}`,
    }));
    bridge.reset();
    const results = await prod.publishBatch(records);
    expect(billed(bridge)).toEqual(['evalsha']);
    results.forEach((r, i) => {
      if (routeV1(`w${i}`, 4) === 0)
        expect(r).toMatchObject({ ok: false, error: { code: 'REDIS_ERROR', inDoubt: false } });
      else expect(r).toMatchObject({ ok: true, duplicate: false });
    });
    const onZero = records.filter((r) => routeV1(r.partitionKey, 4) === 0).length;
    expect(onZero).toBeGreaterThan(0);
    expect(await totalEntries(redis, p, 4)).toBe(4 + 20 - onZero);
  });

  it('sends a batch of 2,500 records as calls of 1,000 records at most, each shard in input order', async () => {
    const { p, prod } = await singleAttemptProducer();
    await prod.routing();
    const records = Array.from({ length: 2_500 }, (_, i) => ({
      partitionKey: `c${i}`,
      fields: { i: String(i) },
    }));
    await warmUp();
    bridge.reset();
    const results = await prod.publishBatch(records);
    expect(billed(bridge)).toEqual(['evalsha', 'evalsha', 'evalsha']);
    expect(results.every((r) => r.ok)).toBe(true);
    for (let shard = 0; shard < 4; shard++) {
      const order = (await readShard(redis, `${p}:${shard}`)).map(([, f]) => Number(f.i));
      expect(order).toEqual(records.map((_, i) => i).filter((i) => routeV1(`c${i}`, 4) === shard));
    }
  });

  it('with oneCallPerBatch off, sends one script call per shard in one pipeline', async () => {
    const p = uniquePrefix('up');
    await createStream(stack, p, 4);
    const prod = producer({
      streamPrefix: p,
      redis: upstashAdapter(client, { oneCallPerBatch: false }),
      fetch: stackFetch(stack),
    });
    await prod.routing();
    const records = Array.from({ length: 40 }, (_, i) => ({
      partitionKey: `c${i}`,
      fields: { i: String(i) },
    }));
    bridge.reset();
    const results = await prod.publishBatch(records);
    expect(billed(bridge)).toEqual(['evalsha', 'evalsha', 'evalsha', 'evalsha']);
    expect(results.every((r) => r.ok)).toBe(true);
    expect(await totalEntries(redis, p, 4)).toBe(40);
  });

  it('pipelines a batch per shard, loading an unknown script first', async () => {
    const p = uniquePrefix('up');
    await createStream(stack, p, 4);
    const lua = `-- ${randomBytes(8).toString('hex')}\n${IDEMPOTENT_PUBLISH.lua}`;
    const sha1 = createHash('sha1').update(lua).digest('hex');
    const batchLua = `-- ${randomBytes(8).toString('hex')}\n${IDEMPOTENT_BATCH.lua}`;
    const batchScript = {
      name: 'fresh-batch',
      lua: batchLua,
      sha1: createHash('sha1').update(batchLua).digest('hex'),
    };
    const adapter = upstashAdapter(client, { idempotentScript: { name: 'fresh', lua, sha1 }, batchScript });
    const prod = producer({ streamPrefix: p, redis: adapter, fetch: stackFetch(stack) });
    const records = Array.from({ length: 30 }, (_, i) => ({
      partitionKey: `c${i % 10}`,
      fields: { i: String(i) },
      ...(i % 2 === 0 ? { eventId: `e${i % 10}` } : {}),
    }));
    const results = await prod.publishBatch(records);
    expect(results.every((r) => r.ok)).toBe(true);
    // e0,e2,…,e8 each appear three times: two repeats of five ids are duplicates.
    expect(results.filter((r) => r.ok && r.duplicate)).toHaveLength(10);
    expect(await totalEntries(redis, p, 4)).toBe(20);
    for (const r of results) if (r.ok) expect(r.streamKey).toBe(`${p}:${r.shardIndex}`);
    // Loaded once: the next batch sends no SCRIPT LOAD, only the EVALSHAs.
    bridge.reset();
    const again = await prod.publishBatch(records);
    expect(again.filter((r) => r.ok && r.duplicate)).toHaveLength(15);
    const sent = bridge.requests.flatMap((r) => r.commands.map((c) => c[0]?.toLowerCase()));
    expect(sent).not.toContain('script');
    expect(sent).toContain('evalsha');
  });
});
