/**
 * The Store contract, shard streams and the streams index: provisioning a consumer group at the
 * tail, counting keys across slots, drain evidence and retirement of removed shards, the
 * listing of stream prefixes, and ping. Declared inside `defineStoreContract`, so every store
 * runs it.
 */
import type { Cluster, Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { isCoordinatorError } from '../../src/core/errors.js';
import { shardKey } from '../../src/store/keys.js';
import type { ShardOps, Store, StreamOps } from '../../src/store/store.js';
import { streamHeadOf } from '../../src/store/stream-head.js';
import { uniquePrefix } from '../support/redis.js';
import { streamDoc } from '../support/store-fixtures.js';
import type { ContractTarget } from './contract.js';

/** XINFO GROUPS of `key` as objects (RESP2 flat pairs). */
async function groupsOf(client: Redis | Cluster, key: string) {
  const raw = (await client.xinfo('GROUPS', key)) as unknown[][];
  return raw.map((flat) => {
    const o: Record<string, unknown> = {};
    for (let i = 0; i < flat.length; i += 2) o[String(flat[i])] = flat[i + 1];
    return o;
  });
}

/** A store with the shard operations the port leaves optional. */
type WithShardOps = Store & ShardOps & Required<Pick<StreamOps, 'provisionExisting'>>;

/** The store's shard operations (optional in the port; every store under contract has them). */
function shardOps(store: Store): WithShardOps {
  if (!store.readShard || !store.retireShard || !store.provisionExisting)
    throw new Error('the store under contract has no shard operations');
  return store as WithShardOps;
}

/** Declares the shard stream and listing cases on the target `get` returns. */
export function defineStreamOpsContract(get: () => ContractTarget): void {
  let store: Store;
  let client: Redis | Cluster;
  beforeAll(() => {
    ({ store, raw: client } = get());
  });

  describe('streams, provisioning and health', () => {
    it('creates a missing shard stream with the group at the tail and lag 0', async () => {
      const key = shardKey(uniquePrefix('prov'), 0);
      await store.provision(key, 'billing');
      expect(await client.exists(key)).toBe(1);
      const [g] = await groupsOf(client, key);
      expect(g).toMatchObject({ name: 'billing', pending: 0, lag: 0, 'entries-read': 0 });
    });

    it('starts a new group after existing entries, so old records are not delivered', async () => {
      const key = shardKey(uniquePrefix('tail'), 3);
      for (let i = 0; i < 3; i++) await client.xadd(key, '*', 'n', String(i));
      const lastId = (await client.xrevrange(key, '+', '-', 'COUNT', 1))[0]?.[0];
      await store.provision(key, 'late');
      const [g] = await groupsOf(client, key);
      expect(g).toMatchObject({ name: 'late', lag: 0, 'entries-read': 3, 'last-delivered-id': lastId });
      await client.xadd(key, '*', 'n', 'new');
      expect((await groupsOf(client, key))[0]).toMatchObject({ lag: 1 });
    });

    it('is idempotent: an existing group (BUSYGROUP) is success and keeps its position', async () => {
      const key = shardKey(uniquePrefix('busy'), 1);
      await store.provision(key, 'g');
      await client.xadd(key, '*', 'n', '1');
      await store.provision(key, 'g');
      const groups = await groupsOf(client, key);
      expect(groups).toHaveLength(1);
      expect(groups[0]).toMatchObject({ lag: 1 });
    });

    it('reports any other Redis error as REDIS_STREAM_PROVISIONING_FAILED naming the stream', async () => {
      const key = shardKey(uniquePrefix('wrong'), 0);
      await client.set(key, 'not a stream');
      const err = await store.provision(key, 'g').catch((e: unknown) => e);
      expect(isCoordinatorError(err) && err.code).toBe('REDIS_STREAM_PROVISIONING_FAILED');
      expect((err as Error).message).toContain(`"${key}"`);
      expect((err as Error).message).toContain('WRONGTYPE');
      expect((err as Error).message).not.toMatch(/redis:\/\//);
      expect(await client.get(key)).toBe('not a stream');
    });

    it('counts existing keys across slots', async () => {
      const p = uniquePrefix('count');
      const keys = Array.from({ length: 8 }, (_, i) => shardKey(p, i));
      for (const k of keys.slice(0, 5)) await client.xadd(k, '*', 'a', '1');
      expect(await store.countExisting(keys)).toBe(5);
      expect(await store.countExisting([])).toBe(0);
      expect(await store.countExisting([keys[0]!, keys[7]!, p])).toBe(1);
    });

    it('lists registered streams sorted, and forgets unregistered ones', async () => {
      // A namespace of its own: critical sections in other cases list their streams.
      const store = get().storeIn(uniquePrefix('ns'));
      expect(await store.listStreams()).toEqual([]);
      await store.registerStream('orders');
      await store.registerStream('audit');
      await store.registerStream('orders');
      expect(await store.listStreams()).toEqual(['audit', 'orders']);
      await store.unregisterStream('orders');
      expect(await store.listStreams()).toEqual(['audit']);
    });

    it('keeps the listing separate from stream documents', async () => {
      const p = uniquePrefix('listing');
      const doc = streamDoc(p);
      const r = await store.commit({
        prefix: p,
        expect: 'absent',
        stream: { doc, head: streamHeadOf(doc, 3000) },
        groups: [],
      });
      expect(r.ok).toBe(true);
      expect(await store.listStreams()).not.toContain(p);
    });

    it('answers ping', async () => {
      expect(await store.ping()).toBe(true);
      if (store.pingOutcome) expect(await store.pingOutcome()).toEqual({ ok: true });
    });

    it('keeps the first candidate as the deployment token secret and answers it to every later caller', async () => {
      if (!store.tokenSecret) throw new Error('the store under contract keeps no token secret');
      const first = await store.tokenSecret('first-candidate');
      expect(await store.tokenSecret('second-candidate')).toBe(first);
      expect(first).toBe('first-candidate');
    });
  });

  describe('drain evidence and retirement of removed shards', () => {
    it('reads drain evidence and retires a shard only when every group on it is drained and managed', async () => {
      const shards = shardOps(store);
      const p = uniquePrefix('shards');
      const key = `${p}:0`;
      expect(await shards.readShard(key)).toEqual({ kind: 'absent' });
      expect(await shards.provisionExisting(key, 'g')).toBe(false);
      expect(await client.exists(key)).toBe(0);
      const id = (await client.xadd(key, '*', 'payload', 'x'))!;
      expect(await shards.provisionExisting(key, 'g')).toBe(true);
      await client.xgroup('CREATE', key, 'early', '0');
      const reading = await shards.readShard(key);
      expect(reading).toMatchObject({ kind: 'stream', length: 1, entriesAdded: 1 });
      // `early` has an undelivered entry: no evidence, nothing deleted.
      const refused = await shards.retireShard(key, ['g']);
      expect(refused).toMatchObject({ kind: 'refused', reading: { kind: 'stream', length: 1 } });
      expect(await client.exists(key)).toBe(1);
      await client.xreadgroup('GROUP', 'early', 'c', 'STREAMS', key, '>');
      await client.xack(key, 'early', id);
      // `early` is not a group the coordinator manages: the key is never deleted while it is there.
      expect((await shards.retireShard(key, ['g'])).kind).toBe('refused');
      expect(await client.exists(key)).toBe(1);
      expect(await shards.retireShard(key, ['g', 'early'])).toEqual({ kind: 'deleted' });
      expect(await client.exists(key)).toBe(0);
      expect(await shards.retireShard(key, ['g', 'early'])).toEqual({ kind: 'absent' });
      await client.set(`${p}:1`, 'not a stream');
      expect(await shards.readShard(`${p}:1`)).toMatchObject({ kind: 'error' });
    });
  });
}
