/**
 * The Upstash store against real Redis: the real @upstash/redis client → the REST bridge →
 * redis-server, in what only it does. Its data layout is the ioredis store's (each reads what
 * the other wrote), a steady heartbeat is one request, its scripts fall back from EVALSHA to
 * EVAL, and its errors never leak what was sent. Everything the Store port promises runs in the
 * Store contract (test/store/contract-upstash.test.ts).
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { memberOps } from '../../src/core/commit-plan.js';
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

  it('reads the same drain evidence as the ioredis store', async () => {
    const key = `${uniquePrefix('shards')}:0`;
    const id = (await redis.xadd(key, '*', 'payload', 'x'))!;
    expect(await store.provisionExisting(key, 'g')).toBe(true);
    await redis.xgroup('CREATE', key, 'early', '0');
    const reading = await store.readShard(key);
    expect(reading).toEqual(await node.readShard(key));
    expect(reading).toMatchObject({ kind: 'stream', length: 1, entriesAdded: 1 });
    await redis.xreadgroup('GROUP', 'early', 'c', 'STREAMS', key, '>');
    await redis.xack(key, 'early', id);
    expect(await store.readShard(key)).toEqual(await node.readShard(key));
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
