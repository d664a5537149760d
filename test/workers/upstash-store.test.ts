/**
 * The Upstash store against real Redis: the real @upstash/redis client → the REST bridge →
 * redis-server. Its data layout is the ioredis store's (each reads what the other wrote), its
 * scripts fall back from EVALSHA to EVAL, and its errors never leak what was sent.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { memberOps } from '../../src/core/commit-plan.js';
import { isCoordinatorError } from '../../src/core/errors.js';
import type { HeartbeatOutput } from '../../src/core/heartbeat-types.js';
import { IoredisStore } from '../../src/store/ioredis-store.js';
import { streamHeadOf } from '../../src/store/stream-head.js';
import { createUpstashClient } from '../../src/store/upstash-client.js';
import { UpstashStore } from '../../src/store/upstash-store.js';
import { standaloneClient, uniquePrefix } from '../support/redis.js';
import { member, streamDoc, T0 } from '../support/store-fixtures.js';
import { startUpstashBridge, type UpstashBridge } from '../support/upstash-bridge.js';

describe('store > Upstash store over the REST bridge', () => {
  let bridge: UpstashBridge;
  let redis: Redis;
  let ns: string;
  let store: UpstashStore;
  let node: IoredisStore;
  let requests = 0;

  beforeAll(async () => {
    bridge = await startUpstashBridge({ redisUrl: inject('redisUrl') });
    redis = standaloneClient();
    ns = uniquePrefix('ns');
    const client = createUpstashClient({ url: bridge.url, token: bridge.token });
    store = new UpstashStore(client, { namespace: ns, onRequest: () => requests++ });
    node = new IoredisStore(redis, { namespace: ns });
  });
  afterAll(async () => {
    await bridge.close();
    await redis.quit();
  });

  it('reads what the ioredis store wrote and the other way round (one layout)', async () => {
    const p = uniquePrefix('orders/ü');
    const names = ['billing', 'grüße', 'x:{y}'];
    const doc = streamDoc(p, names);
    const created = await store.commit({
      prefix: p,
      expect: 'absent',
      stream: { doc, head: streamHeadOf(doc, 3000) },
      groups: names.map((name) => ({
        name,
        create: { groupEpoch: 1, assignmentEpoch: 1, metadataVersion: 1, at: T0 },
        ops: memberOps('m1', null, member('m1', { memberName: '✓' }), {
          owners: new Map(),
          staleMemberRetentionMs: 600_000,
        }),
      })),
    });
    expect(created).toMatchObject({ ok: true, streamRev: 1 });
    const viaNode = await node.load(p, 'all');
    expect(await store.load(p, 'all')).toEqual(viaNode);
    expect(viaNode?.groups['grüße']?.members.m1?.memberName).toBe('✓');
    const ops = memberOps('m2', null, member('m2'), { owners: new Map(), staleMemberRetentionMs: 600_000 });
    expect(
      (await node.commit({ prefix: p, expect: { rev: 1 }, groups: [{ name: 'billing', ops }] })).ok,
    ).toBe(true);
    expect(Object.keys((await store.load(p, ['billing']))?.groups.billing?.members ?? {}).sort()).toEqual([
      'm1',
      'm2',
    ]);
  });

  it('answers a steady heartbeat in one request', async () => {
    const p = uniquePrefix('fast');
    const doc = streamDoc(p, ['g']);
    const answer: HeartbeatOutput = {
      status: 'OK',
      memberId: 'm0',
      memberEpoch: 1,
      groupEpoch: 1,
      assignmentEpoch: 1,
      metadataVersion: 1,
      assignedShards: [],
      pendingShards: [],
      assignmentMetadataVersion: 1,
    };
    await node.commit({
      prefix: p,
      expect: 'absent',
      stream: { doc, head: streamHeadOf(doc, 3000) },
      groups: [
        {
          name: 'g',
          create: { groupEpoch: 1, assignmentEpoch: 1, metadataVersion: 1, at: T0 },
          ops: [
            ...memberOps('m0', null, member('m0'), { owners: new Map(), staleMemberRetentionMs: 600_000 }),
            {
              k: 'fingerprint',
              member: 'm0',
              fingerprint: {
                groupEpoch: 1,
                assignmentEpoch: 1,
                metadataVersion: 1,
                streamRev: 1,
                memberRev: 1,
                target: [],
                key: 'k1',
                waits: [],
                response: answer,
              },
            },
          ],
        },
      ],
    });
    const req = {
      prefix: p,
      group: 'g',
      memberId: 'm0',
      now: T0 + 1000,
      fastKey: 'k1',
      leaseExpiresAt: T0 + 16_000,
      progressJson: '[]',
      shards: [],
      maxDue: 8,
    };
    // Warm the script cache (a fresh Redis answers NOSCRIPT once), then count one steady call.
    expect(await store.readMember(req)).toEqual({ kind: 'fast', response: answer });
    bridge.reset();
    expect(await store.readMember({ ...req, now: T0 + 1500 })).toEqual({ kind: 'fast', response: answer });
    expect(bridge.requests.map((r) => r.commands[0]?.[0]?.toLowerCase())).toEqual(['evalsha']);
    expect(Number(await redis.zscore(`${ns}:{${p}}:leases:g`, 'm0'))).toBe(T0 + 16_000);
  });

  it('falls back to EVAL when Redis does not know a script (SCRIPT FLUSH)', async () => {
    const p = uniquePrefix('flush');
    await redis.script('FLUSH');
    bridge.reset();
    const before = requests;
    expect(await store.load(p, 'all')).toBeNull();
    expect(bridge.requests.map((r) => r.commands[0]?.[0]?.toLowerCase())).toEqual(['evalsha', 'eval']);
    expect(requests - before).toBe(2);
    bridge.reset();
    expect(await store.load(p, 'all')).toBeNull();
    expect(bridge.requests.map((r) => r.commands[0]?.[0]?.toLowerCase())).toEqual(['evalsha']);
  });

  it('provisions shard streams, counts keys and keeps the stream listing', async () => {
    const p = uniquePrefix('prov');
    await store.provision(`${p}:0`, 'g1');
    await store.provision(`${p}:0`, 'g1'); // BUSYGROUP is success
    expect(await store.countExisting([`${p}:0`, `${p}:1`, p])).toBe(1);
    expect(await store.countExisting([])).toBe(0);
    const groups = (await redis.xinfo('GROUPS', `${p}:0`)) as unknown[][];
    expect(groups.map((g) => g[1])).toEqual(['g1']);
    await redis.set(`${p}:9`, 'not a stream');
    await expect(store.provision(`${p}:9`, 'g1')).rejects.toMatchObject({
      code: 'REDIS_STREAM_PROVISIONING_FAILED',
    });

    await store.registerStream(p);
    await store.registerStream(`${p}-b`);
    expect(await store.listStreams()).toEqual([p, `${p}-b`].sort());
    await store.unregisterStream(p);
    expect(await store.listStreams()).toEqual([`${p}-b`]);
    expect(await store.ping()).toBe(true);
  });

  it('reads drain evidence and retires shards exactly as the ioredis store does', async () => {
    const p = uniquePrefix('shards');
    const key = `${p}:0`;
    expect(await store.readShard(key)).toEqual({ kind: 'absent' });
    expect(await store.provisionExisting(key, 'g')).toBe(false);
    expect(await redis.exists(key)).toBe(0);
    const id = (await redis.xadd(key, '*', 'payload', 'x'))!;
    expect(await store.provisionExisting(key, 'g')).toBe(true);
    await redis.xgroup('CREATE', key, 'early', '0');
    const reading = await store.readShard(key);
    expect(reading).toEqual(await node.readShard(key));
    expect(reading).toMatchObject({ kind: 'stream', length: 1, entriesAdded: 1 });
    // `early` has an undelivered entry: no evidence, nothing deleted.
    const refused = await store.retireShard(key, ['g']);
    expect(refused).toMatchObject({ kind: 'refused', reading: { kind: 'stream', length: 1 } });
    expect(await redis.exists(key)).toBe(1);
    await redis.xreadgroup('GROUP', 'early', 'c', 'STREAMS', key, '>');
    await redis.xack(key, 'early', id);
    // `early` is not a group the coordinator manages: the key is never deleted while it is there.
    expect((await store.retireShard(key, ['g'])).kind).toBe('refused');
    expect(await redis.exists(key)).toBe(1);
    expect(await store.retireShard(key, ['g', 'early'])).toEqual({ kind: 'deleted' });
    expect(await redis.exists(key)).toBe(0);
    expect(await store.retireShard(key, ['g', 'early'])).toEqual({ kind: 'absent' });
    await redis.set(`${p}:1`, 'not a stream');
    expect(await store.readShard(`${p}:1`)).toMatchObject({ kind: 'error' });
  });

  it('saves and reads the sweep cursor', async () => {
    expect(await store.readSweepCursor()).toBeNull();
    await store.writeSweepCursor('orders ü');
    expect(await store.readSweepCursor()).toBe('orders ü');
    expect(await redis.get(`${ns}:sweep-cursor`)).toBe('orders ü');
  });

  it('maps a document of the wrong Redis type to METADATA_CORRUPT without echoing the command', async () => {
    const p = uniquePrefix('wrongtype');
    const secret = randomBytes(8).toString('hex');
    await redis.set(`${ns}:{${p}}:stream`, 'a string, not a hash');
    const err = await store
      .tryLock(p, secret, 1000)
      .then(() => store.load(p, 'all'))
      .catch((e) => e);
    expect(isCoordinatorError(err)).toBe(true);
    expect(err.code).toBe('METADATA_CORRUPT');
    expect(err.message).not.toContain('command was');
    await store.unlock(p, secret);
  });

  it('answers REDIS_UNAVAILABLE for a rejected token or an unreachable endpoint, naming no secret', async () => {
    const token = `tok-${randomBytes(8).toString('hex')}`;
    const wrong = new UpstashStore(createUpstashClient({ url: bridge.url, token }), { namespace: ns });
    const err = await wrong.load('x', 'all').catch((e) => e);
    expect(err).toMatchObject({ code: 'REDIS_UNAVAILABLE' });
    expect(err.message).toContain('UPSTASH_REDIS_REST_TOKEN');
    expect(err.message).not.toContain(token);
    expect(await wrong.ping()).toBe(false);

    const dead = new UpstashStore(createUpstashClient({ url: 'http://127.0.0.1:1', token, retries: 0 }), {
      namespace: ns,
    });
    await expect(dead.tryLock('x', 't', 100)).rejects.toMatchObject({ code: 'REDIS_UNAVAILABLE' });
    expect(await dead.ping()).toBe(false);
  });
});
