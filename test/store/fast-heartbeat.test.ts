import type { Cluster, Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { IoredisStore } from '../../src/store/ioredis-store.js';
import { groupKeys } from '../../src/store/keys.js';
import { encodeFastHeartbeat } from '../../src/store/scripts/fast-heartbeat-args.js';
import type { FastHeartbeatRequest } from '../../src/store/store.js';
import { backends, uniquePrefix } from '../support/redis.js';
import { groupDoc, streamDoc, T0 } from '../support/store-fixtures.js';

const RESPONSE = JSON.stringify({ status: 'OK', memberId: 'm0', memberEpoch: 3, assignedShards: [0, 1] });
const PROGRESS = JSON.stringify([
  {
    shard: 0,
    streamKey: 's:0',
    lastDeliveredId: '5-0',
    lastAckedId: '5-0',
    pendingCount: 0,
    updatedAt: null,
  },
]);

/** Everything the fast path may touch, to prove a miss wrote nothing. */
async function state(client: Redis | Cluster, ns: string, p: string): Promise<unknown> {
  const k = groupKeys(ns, p, 'g');
  return {
    group: await client.hgetall(k.group),
    leases: await client.zrange(k.leases, '0', '-1', 'WITHSCORES'),
    live: await client.hgetall(k.live),
    fast: await client.hgetall(k.fast),
  };
}

describe.each(backends)('store > heartbeat fast path ($name)', ({ make }) => {
  const client = make();
  const ns = uniquePrefix('ns');
  const store = new IoredisStore(client, { namespace: ns });
  afterAll(async () => {
    await client.quit();
  });

  /** A group of `n` live members whose fingerprint for m0 is `key`, window open until T0 + 10 s. */
  async function steadyGroup(p: string, n = 3, leaseOf = (_i: number) => T0 + 15_000): Promise<void> {
    const ids = Array.from({ length: n }, (_, i) => `m${i}`);
    const r = await store.commit({
      prefix: p,
      expectedRevision: 0,
      stream: streamDoc(p, ['g']),
      groups: { g: groupDoc(p, 'g', ids) },
      fastPathUntil: { g: T0 + 10_000 },
      leases: {
        g: ids.map((memberId, i) => ({
          memberId,
          live: true,
          leaseExpiresAt: leaseOf(i),
          lastHeartbeatAt: T0,
        })),
      },
      fastPath: { group: 'g', memberId: 'm0', key: 'e3|v1|abc', response: RESPONSE },
    });
    expect(r.ok).toBe(true);
  }

  const hb = (p: string, over: Partial<FastHeartbeatRequest> = {}): FastHeartbeatRequest => ({
    prefix: p,
    group: 'g',
    memberId: 'm0',
    key: 'e3|v1|abc',
    now: T0 + 3000,
    leaseExpiresAt: T0 + 18_000,
    progressJson: PROGRESS,
    ...over,
  });

  it('answers a steady heartbeat with the stored response and renews lease and progress', async () => {
    const p = uniquePrefix('hit');
    await steadyGroup(p);
    expect(await store.fastHeartbeat(hb(p))).toBe(RESPONSE);
    const snap = await store.load(p, ['g']);
    expect(snap?.revision).toBe(1);
    const m = snap?.groups.g?.members.m0;
    expect(m?.memberLeaseExpiresAt).toBe(T0 + 18_000);
    expect(m?.lastHeartbeatAt).toBe(T0 + 3000);
    expect(m?.shardProgress).toEqual(JSON.parse(PROGRESS));
  });

  it('serves a heartbeat again once the window is widened without rewriting the group', async () => {
    const p = uniquePrefix('widen');
    await steadyGroup(p);
    expect(await store.fastHeartbeat(hb(p, { now: T0 + 12_000 }))).toBeNull();
    await store.commit({ prefix: p, expectedRevision: 1, fastPathUntil: { g: T0 + 20_000 } });
    expect(await store.fastHeartbeat(hb(p, { now: T0 + 12_000 }))).toBe(RESPONSE);
  });

  it('keeps a stored lease that is later than the renewal', async () => {
    const p = uniquePrefix('gt');
    await steadyGroup(p);
    expect(await store.fastHeartbeat(hb(p, { leaseExpiresAt: T0 + 1000 }))).toBe(RESPONSE);
    expect(Number(await client.zscore(groupKeys(ns, p, 'g').leases, 'm0'))).toBe(T0 + 15_000);
  });

  const misses: Array<[string, (p: string) => Promise<FastHeartbeatRequest>]> = [
    ['the key differs', async (p) => hb(p, { key: 'e4|v1|abc' })],
    ['the key is a prefix of the stored one', async (p) => hb(p, { key: 'e3|v1|ab' })],
    ['the member has no fingerprint', async (p) => hb(p, { memberId: 'm1' })],
    ['the fast-path window has closed', async (p) => hb(p, { now: T0 + 10_000 })],
    [
      'another member’s lease has passed',
      async (p) => {
        // Widen the window (a lease-only commit keeps the fingerprint valid) so only m2's lease fails.
        await store.commit({ prefix: p, expectedRevision: 1, fastPathUntil: { g: T0 + 60_000 } });
        return hb(p, { now: T0 + 16_000, leaseExpiresAt: T0 + 31_000 });
      },
    ],
    [
      'the group was rewritten since the fingerprint',
      async (p) => {
        await store.commit({
          prefix: p,
          expectedRevision: 1,
          groups: { g: groupDoc(p, 'g', ['m0', 'm1', 'm2'], { groupEpoch: 2 }) },
          fastPathUntil: { g: T0 + 10_000 },
        });
        return hb(p);
      },
    ],
    [
      'the member left the lease index',
      async (p) => {
        await store.commit({
          prefix: p,
          expectedRevision: 1,
          leases: { g: [{ memberId: 'm0', live: false, leaseExpiresAt: T0, lastHeartbeatAt: T0 }] },
        });
        return hb(p);
      },
    ],
  ];

  it.each(misses)('misses and writes nothing when %s', async (_name, arrange) => {
    const p = uniquePrefix('miss');
    await steadyGroup(p, 3, (i) => (i === 2 ? T0 + 15_000 : T0 + 60_000));
    const req = await arrange(p);
    const before = await state(client, ns, p);
    expect(await store.fastHeartbeat(req)).toBeNull();
    expect(await state(client, ns, p)).toEqual(before);
  });

  it('moves the same bytes for 10 and 1,000 members', async () => {
    const sizes: number[] = [];
    for (const n of [10, 1000]) {
      const p = uniquePrefix('bytes');
      await steadyGroup(p, n);
      const call = encodeFastHeartbeat(ns, hb(p));
      const reply = await store.fastHeartbeat(hb(p));
      expect(reply).toBe(RESPONSE);
      const argBytes = [...call.keys, ...call.args].reduce((a, s) => a + Buffer.byteLength(s), 0);
      sizes.push(argBytes + Buffer.byteLength(reply ?? ''));
    }
    expect(sizes[1]).toBe(sizes[0]);
  });
});
