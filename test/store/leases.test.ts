import { afterAll, describe, expect, it } from 'vitest';
import { IoredisStore } from '../../src/store/ioredis-store.js';
import { groupKeys } from '../../src/store/keys.js';
import type { LeaseWrite } from '../../src/store/store.js';
import { backends, uniquePrefix } from '../support/redis.js';
import { groupDoc, member, streamDoc, T0 } from '../support/store-fixtures.js';

const progress = (shard: number, id: string) => [
  { shard, streamKey: `s:${shard}`, lastDeliveredId: id, lastAckedId: id, pendingCount: 0, updatedAt: null },
];

describe.each(backends)('store > leases merge by maximum ($name)', ({ make }) => {
  const client = make();
  const ns = uniquePrefix('ns');
  const store = new IoredisStore(client, { namespace: ns });
  afterAll(async () => {
    await client.quit();
  });

  const lease = (
    memberId: string,
    leaseExpiresAt: number,
    lastHeartbeatAt: number,
    live = true,
  ): LeaseWrite => ({
    memberId,
    live,
    leaseExpiresAt,
    lastHeartbeatAt,
  });

  async function create(p: string, members = ['m1']): Promise<void> {
    const r = await store.commit({
      prefix: p,
      expectedRevision: 0,
      stream: streamDoc(p, ['g']),
      groups: { g: groupDoc(p, 'g', members) },
      fastPathUntil: { g: T0 },
      leases: { g: members.map((m) => lease(m, T0 + 15_000, T0)) },
    });
    expect(r.ok).toBe(true);
  }

  it('never lowers a fresher lease with an older one', async () => {
    const p = uniquePrefix('max');
    await create(p);
    await store.commit({
      prefix: p,
      expectedRevision: 1,
      leases: { g: [lease('m1', T0 + 50_000, T0 + 35_000)] },
    });
    await store.commit({
      prefix: p,
      expectedRevision: 1,
      leases: { g: [lease('m1', T0 + 20_000, T0 + 5000)] },
    });
    expect(Number(await client.zscore(groupKeys(ns, p, 'g').leases, 'm1'))).toBe(T0 + 50_000);
    const m = (await store.load(p, ['g']))?.groups.g?.members.m1;
    expect(m?.memberLeaseExpiresAt).toBe(T0 + 50_000);
    expect(m?.lastHeartbeatAt).toBe(T0 + 35_000);
  });

  it('prefers the document when its lease is the later one', async () => {
    const p = uniquePrefix('doc');
    await create(p);
    const later = member('m1', { memberLeaseExpiresAt: T0 + 90_000, lastHeartbeatAt: T0 + 75_000 });
    await store.commit({
      prefix: p,
      expectedRevision: 1,
      groups: { g: groupDoc(p, 'g', [later]) },
      fastPathUntil: { g: 0 },
    });
    const m = (await store.load(p, ['g']))?.groups.g?.members.m1;
    expect(m?.memberLeaseExpiresAt).toBe(T0 + 90_000);
    expect(m?.lastHeartbeatAt).toBe(T0 + 75_000);
  });

  it('removes members that are no longer live from the lease index', async () => {
    const p = uniquePrefix('zrem');
    await create(p, ['m1', 'm2']);
    await store.commit({ prefix: p, expectedRevision: 1, leases: { g: [lease('m2', T0, T0, false)] } });
    expect(await client.zrange(groupKeys(ns, p, 'g').leases, '0', '-1')).toEqual(['m1']);
  });

  it('refuses an expiry when the member renewed its lease after the decision', async () => {
    const p = uniquePrefix('renew');
    await create(p);
    // The member renews (as the fast path would) after the caller observed T0 + 15 s.
    await store.commit({
      prefix: p,
      expectedRevision: 1,
      leases: { g: [lease('m1', T0 + 30_000, T0 + 15_000)] },
    });
    const expired = groupDoc(p, 'g', [member('m1', { state: 'EXPIRED' })]);
    const r = await store.commit({
      prefix: p,
      expectedRevision: 1,
      groups: { g: expired },
      fastPathUntil: { g: 0 },
      expiries: { g: [{ memberId: 'm1', observedLeaseExpiresAt: T0 + 15_000 }] },
      leases: { g: [lease('m1', T0 + 15_000, T0, false)] },
    });
    expect(r).toEqual({ ok: false, reason: 'lease-renewed' });
    const snap = await store.load(p, ['g']);
    expect(snap?.revision).toBe(1);
    expect(snap?.groups.g?.members.m1?.state).toBe('ACTIVE');
    expect(Number(await client.zscore(groupKeys(ns, p, 'g').leases, 'm1'))).toBe(T0 + 30_000);
  });

  it('applies an expiry decided on the current lease', async () => {
    const p = uniquePrefix('expire');
    await create(p);
    const r = await store.commit({
      prefix: p,
      expectedRevision: 1,
      groups: { g: groupDoc(p, 'g', [member('m1', { state: 'EXPIRED' })]) },
      fastPathUntil: { g: 0 },
      expiries: { g: [{ memberId: 'm1', observedLeaseExpiresAt: T0 + 15_000 }] },
      leases: { g: [lease('m1', T0 + 15_000, T0, false)] },
    });
    expect(r).toEqual({ ok: true, revision: 2 });
    expect(await client.zcard(groupKeys(ns, p, 'g').leases)).toBe(0);
  });

  it('stores reported progress and serves it on load while it is the newest', async () => {
    const p = uniquePrefix('progress');
    await create(p);
    await store.commit({
      prefix: p,
      expectedRevision: 1,
      leases: { g: [lease('m1', T0 + 18_000, T0 + 3000)] },
      progress: { group: 'g', memberId: 'm1', json: JSON.stringify(progress(0, '1-1')), at: T0 + 3000 },
    });
    let m = (await store.load(p, ['g']))?.groups.g?.members.m1;
    expect(m?.shardProgress).toEqual(progress(0, '1-1'));
    expect(m?.lastHeartbeatAt).toBe(T0 + 3000);

    // A later document carries its own, newer progress: the document wins.
    const newer = member('m1', { lastHeartbeatAt: T0 + 6000, shardProgress: progress(1, '2-2') });
    await store.commit({
      prefix: p,
      expectedRevision: 1,
      groups: { g: groupDoc(p, 'g', [newer]) },
      fastPathUntil: { g: 0 },
    });
    m = (await store.load(p, ['g']))?.groups.g?.members.m1;
    expect(m?.shardProgress).toEqual(progress(1, '2-2'));

    // An older progress write never replaces a newer live entry.
    await store.commit({
      prefix: p,
      expectedRevision: 2,
      progress: { group: 'g', memberId: 'm1', json: JSON.stringify(progress(0, '9-9')), at: T0 + 9000 },
    });
    await store.commit({
      prefix: p,
      expectedRevision: 2,
      progress: { group: 'g', memberId: 'm1', json: JSON.stringify(progress(0, '0-1')), at: T0 + 1000 },
    });
    m = (await store.load(p, ['g']))?.groups.g?.members.m1;
    expect(m?.shardProgress).toEqual(progress(0, '9-9'));
    expect(m?.lastHeartbeatAt).toBe(T0 + 9000);
  });

  it('writes nothing for a group that does not exist', async () => {
    const p = uniquePrefix('nogroup');
    await create(p);
    const r = await store.commit({
      prefix: p,
      expectedRevision: 1,
      leases: { ghost: [lease('m1', T0 + 15_000, T0)] },
      fastPathUntil: { ghost: T0 },
      fastPath: { group: 'ghost', memberId: 'm1', key: 'k', response: 'r' },
    });
    expect(r).toEqual({ ok: true, revision: 1 });
    const k = groupKeys(ns, p, 'ghost');
    for (const key of [k.group, k.leases, k.live, k.fast]) expect(await client.exists(key)).toBe(0);
  });
});
