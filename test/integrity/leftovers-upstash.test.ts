/**
 * The same lifetimes over Upstash (the real @upstash/redis client → the REST bridge →
 * redis-server): the Upstash store's shard deletion and post-retirement clearing take the
 * fenced-ack tokens and the idempotency incarnation with the shard, and the edge producer does
 * not answer a re-created stream's publish as a duplicate of the old stream's record.
 */
import { Redis as Upstash } from '@upstash/redis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { upstashAdapter } from '../../src/client/upstash-adapter.js';
import { createUpstashClient } from '../../src/store/upstash-client.js';
import { UpstashStore } from '../../src/store/upstash-store.js';
import { createStream, producer, stackFetch, totalEntries } from '../client/fixtures.js';
import { standaloneClient, uniquePrefix } from '../support/redis.js';
import { makeStack } from '../support/stack.js';
import { startUpstashBridge, type UpstashBridge } from '../support/upstash-bridge.js';
import { keysOfStream } from './leftovers-support.js';

const stack = makeStack({ name: 'standalone', make: standaloneClient });
const redis = standaloneClient();
let bridge: UpstashBridge;
let client: Upstash;
let store: UpstashStore;

beforeAll(async () => {
  bridge = await startUpstashBridge({ redisUrl: inject('redisUrl') });
  client = new Upstash({
    url: bridge.url,
    token: bridge.token,
    automaticDeserialization: false,
    enableTelemetry: false,
    retry: false,
  });
  store = new UpstashStore(createUpstashClient({ url: bridge.url, token: bridge.token }), {
    namespace: uniquePrefix('ns'),
  });
});
afterAll(async () => {
  await bridge.close();
  await stack.close();
  await redis.quit();
});

const del = (p: string) =>
  stack.call('DELETE', `/coord/v1/streams/${p}`, { requestedBy: 'test', reason: 'leftovers', force: true });

describe('leftovers > over Upstash', () => {
  it('an edge producer writes a re-created stream’s record with an old event id instead of calling it a duplicate', async () => {
    const p = uniquePrefix('lo-up');
    await createStream(stack, p, 2);
    const prod = producer({ streamPrefix: p, redis: upstashAdapter(client), fetch: stackFetch(stack) });
    const record = (n: number) => ({ partitionKey: 'c-1', fields: { n: String(n) }, eventId: `evt-${n}` });
    await prod.publish(record(1));
    expect((await prod.publishBatch([record(2), record(3)])).every((r) => r.ok)).toBe(true);
    expect((await del(p)).status).toBe(200);
    await createStream(stack, p, 2);
    expect((await prod.publish(record(1))).duplicate).toBe(false);
    expect((await prod.publishBatch([record(2), record(3)])).map((r) => r.ok && r.duplicate)).toEqual([
      false,
      false,
    ]);
    expect(await totalEntries(redis, p, 2)).toBe(3);
  });

  it('the Upstash store deletes a shard with its side keys, and clears them after a retirement', async () => {
    const p = uniquePrefix('lo-up-store');
    const side = (i: number) => [`{${p}:${i}}:owner`, `{${p}:${i}}:incarnation`];
    for (const i of [0, 1]) {
      await redis.xadd(`${p}:${i}`, '*', 'a', '1');
      await redis.hset(side(i)[0]!, 'g', '9:0:old-member');
      await redis.set(side(i)[1]!, 'i1');
    }
    expect(await store.deleteShard(`${p}:0`)).toBe('deleted');
    // While the shard key exists, clearing leaves everything in place.
    expect(await store.clearShardKeys(`${p}:1`)).toBe(false);
    expect(await redis.exists(`${p}:1`, ...side(1))).toBe(3);
    await redis.del(`${p}:1`);
    expect(await store.clearShardKeys(`${p}:1`)).toBe(true);
    expect(await keysOfStream(redis, p)).toEqual([]);
  });
});
