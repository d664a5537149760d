import { afterAll, describe, expect, it } from 'vitest';
import { IoredisStore } from '../../src/store/ioredis-store.js';
import { groupKeys, streamKeys } from '../../src/store/keys.js';
import { backends, uniquePrefix } from '../support/redis.js';
import { groupDoc, member, streamDoc, T0 } from '../support/store-fixtures.js';

describe.each(backends)('store > commit and load ($name)', ({ make }) => {
  const client = make();
  const ns = uniquePrefix('ns');
  const store = new IoredisStore(client, { namespace: ns });
  afterAll(async () => {
    await client.quit();
  });

  it('creates a stream with a group and loads it back', async () => {
    const p = uniquePrefix('orders');
    const g = groupDoc(p, 'billing', ['m1', 'm2']);
    const r = await store.commit({
      prefix: p,
      expectedRevision: 0,
      stream: streamDoc(p, ['billing']),
      groups: { billing: g },
      fastPathUntil: { billing: T0 + 10_000 },
    });
    expect(r).toEqual({ ok: true, revision: 1 });

    const named = await store.load(p, ['billing', 'missing']);
    expect(named).toEqual({ revision: 1, stream: streamDoc(p, ['billing']), groups: { billing: g } });
    expect(await store.load(p, 'all')).toEqual(named);
  });

  it('returns null for a stream that does not exist', async () => {
    expect(await store.load(uniquePrefix('none'), 'all')).toBeNull();
  });

  it('loads every group of the stream document, whatever characters their names hold', async () => {
    const p = uniquePrefix('odd name/ü');
    const odd = 'grüße';
    const names = ['a b', odd, 'x:{y}', "it's~*"];
    const groups = Object.fromEntries(names.map((n) => [n, groupDoc(p, n, ['m'])]));
    const until = Object.fromEntries(names.map((n) => [n, T0]));
    await store.commit({
      prefix: p,
      expectedRevision: 0,
      stream: streamDoc(p, names),
      groups,
      fastPathUntil: until,
    });
    const snap = await store.load(p, 'all');
    expect(Object.keys(snap?.groups ?? {}).sort()).toEqual([...names].sort());
    expect(snap?.groups[odd]).toEqual(groups[odd]);
  });

  it('refuses to create a stream that already exists', async () => {
    const p = uniquePrefix('dup');
    const create = { prefix: p, expectedRevision: 0, stream: streamDoc(p) };
    expect(await store.commit(create)).toEqual({ ok: true, revision: 1 });
    expect(await store.commit({ ...create, stream: streamDoc(p, [], { shardCount: 9 }) })).toEqual({
      ok: false,
      reason: 'conflict',
    });
    expect((await store.load(p, []))?.stream.shardCount).toBe(4);
  });

  it('rejects a commit made against a stale revision and writes nothing', async () => {
    const p = uniquePrefix('cas');
    await store.commit({ prefix: p, expectedRevision: 0, stream: streamDoc(p) });
    expect(
      await store.commit({ prefix: p, expectedRevision: 1, stream: streamDoc(p, [], { shardCount: 5 }) }),
    ).toEqual({ ok: true, revision: 2 });
    const stale = await store.commit({
      prefix: p,
      expectedRevision: 1,
      stream: streamDoc(p, ['g'], { shardCount: 6 }),
      groups: { g: groupDoc(p, 'g') },
      fastPathUntil: { g: 0 },
    });
    expect(stale).toEqual({ ok: false, reason: 'conflict' });
    const snap = await store.load(p, 'all');
    expect(snap?.revision).toBe(2);
    expect(snap?.stream.shardCount).toBe(5);
    expect(await client.exists(groupKeys(ns, p, 'g').group)).toBe(0);
  });

  it('treats a commit to a missing stream as a conflict', async () => {
    const p = uniquePrefix('gone');
    expect(await store.commit({ prefix: p, expectedRevision: 3, stream: streamDoc(p) })).toEqual({
      ok: false,
      reason: 'conflict',
    });
  });

  it('bumps the revision only when a document is written', async () => {
    const p = uniquePrefix('rev');
    await store.commit({
      prefix: p,
      expectedRevision: 0,
      stream: streamDoc(p, ['g']),
      groups: { g: groupDoc(p, 'g', ['m1']) },
      fastPathUntil: { g: T0 },
    });
    const leaseOnly = await store.commit({
      prefix: p,
      expectedRevision: 1,
      leases: {
        g: [{ memberId: 'm1', live: true, leaseExpiresAt: T0 + 20_000, lastHeartbeatAt: T0 + 5000 }],
      },
    });
    expect(leaseOnly).toEqual({ ok: true, revision: 1 });
    const groupOnly = await store.commit({
      prefix: p,
      expectedRevision: 1,
      groups: { g: groupDoc(p, 'g', ['m1'], { groupEpoch: 2 }) },
      fastPathUntil: { g: T0 },
    });
    expect(groupOnly).toEqual({ ok: true, revision: 2 });
    expect(await client.hget(groupKeys(ns, p, 'g').group, 'rev')).toBe('2');
    expect(await client.hget(streamKeys(ns, p).stream, 'rev')).toBe('2');
  });

  it('deletes a group with all of its per-group keys', async () => {
    const p = uniquePrefix('del');
    await store.commit({
      prefix: p,
      expectedRevision: 0,
      stream: streamDoc(p, ['g', 'h']),
      groups: { g: groupDoc(p, 'g', ['m1']), h: groupDoc(p, 'h', ['m1']) },
      fastPathUntil: { g: T0 + 1000, h: T0 + 1000 },
      leases: { g: [{ memberId: 'm1', live: true, leaseExpiresAt: T0 + 15_000, lastHeartbeatAt: T0 }] },
      progress: { group: 'g', memberId: 'm1', json: '[]', at: T0 },
      fastPath: { group: 'g', memberId: 'm1', key: 'k', response: '{}' },
    });
    const k = groupKeys(ns, p, 'g');
    for (const key of [k.group, k.leases, k.live, k.fast]) expect(await client.exists(key)).toBe(1);

    const r = await store.commit({
      prefix: p,
      expectedRevision: 1,
      stream: streamDoc(p, ['h']),
      groups: { g: null },
    });
    expect(r).toEqual({ ok: true, revision: 2 });
    for (const key of [k.group, k.leases, k.live, k.fast]) expect(await client.exists(key)).toBe(0);
    expect(Object.keys((await store.load(p, 'all'))?.groups ?? {})).toEqual(['h']);
  });

  it('deletes the stream document', async () => {
    const p = uniquePrefix('drop');
    await store.commit({ prefix: p, expectedRevision: 0, stream: streamDoc(p) });
    expect(await store.commit({ prefix: p, expectedRevision: 1, deleteStream: true })).toEqual({
      ok: true,
      revision: 2,
    });
    expect(await store.load(p, 'all')).toBeNull();
  });

  it('forgets lease entries of members no longer in a rewritten group document', async () => {
    const p = uniquePrefix('prune');
    const lease = (memberId: string) => ({
      memberId,
      live: true,
      leaseExpiresAt: T0 + 9000,
      lastHeartbeatAt: T0,
    });
    await store.commit({
      prefix: p,
      expectedRevision: 0,
      stream: streamDoc(p, ['g']),
      groups: { g: groupDoc(p, 'g', ['a', 'b']) },
      fastPathUntil: { g: T0 },
      leases: { g: [lease('a'), lease('b')] },
      fastPath: { group: 'g', memberId: 'b', key: 'k', response: 'r' },
    });
    await store.commit({
      prefix: p,
      expectedRevision: 1,
      groups: { g: groupDoc(p, 'g', ['a']) },
      fastPathUntil: { g: T0 },
    });
    const k = groupKeys(ns, p, 'g');
    expect(await client.zrange(k.leases, '0', '-1')).toEqual(['a']);
    expect(await client.hkeys(k.live)).toEqual(['a']);
    expect(await client.hkeys(k.fast)).toEqual([]);
  });

  it('keeps unknown document fields written by a newer version', async () => {
    const p = uniquePrefix('fwd');
    const doc = { ...streamDoc(p), futureField: 'x' };
    await store.commit({ prefix: p, expectedRevision: 0, stream: doc });
    expect((await store.load(p, []))?.stream).toEqual(doc);
  });

  it('rejects a member record missing a required field as corrupt data on load', async () => {
    const p = uniquePrefix('mem');
    const { memberEpoch: _drop, ...broken } = member('m1');
    const g = groupDoc(p, 'g');
    await store.commit({
      prefix: p,
      expectedRevision: 0,
      stream: streamDoc(p, ['g']),
      groups: { g: { ...g, members: { m1: broken as never } } },
      fastPathUntil: { g: T0 },
    });
    await expect(store.load(p, ['g'])).rejects.toMatchObject({ code: 'METADATA_CORRUPT' });
  });
});
