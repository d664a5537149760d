import { afterAll, describe, expect, it } from 'vitest';
import { isCoordinatorError } from '../../src/core/errors.js';
import { IoredisStore } from '../../src/store/ioredis-store.js';
import { groupKeys, streamKeys } from '../../src/store/keys.js';
import { backends, uniquePrefix } from '../support/redis.js';
import { groupDoc, streamDoc, T0 } from '../support/store-fixtures.js';

describe.each(backends)('store > unreadable metadata fails closed ($name)', ({ make }) => {
  const client = make();
  const ns = uniquePrefix('ns');
  const store = new IoredisStore(client, { namespace: ns });
  afterAll(async () => {
    await client.quit();
  });

  async function create(p: string): Promise<void> {
    await store.commit({
      prefix: p,
      expectedRevision: 0,
      stream: streamDoc(p, ['g']),
      groups: { g: groupDoc(p, 'g', ['m1']) },
      fastPathUntil: { g: T0 },
    });
  }

  async function expectCorrupt(p: string, groups: string[] | 'all'): Promise<string> {
    const err = await store.load(p, groups).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isCoordinatorError(err) && err.code).toBe('METADATA_CORRUPT');
    const message = (err as Error).message;
    expect(message).toContain(`stored metadata for stream "${p}" is unreadable: `);
    expect(message).not.toMatch(/redis:\/\/|127\.0\.0\.1/);
    return message;
  }

  const streamCorruptions: Array<[string, (doc: Record<string, unknown>) => string]> = [
    ['is not JSON', () => '{"streamPrefix": '],
    ['misses shardCount', ({ shardCount: _s, ...rest }) => JSON.stringify(rest)],
    ['has a string shardCount', (doc) => JSON.stringify({ ...doc, shardCount: '4' })],
    ['is JSON null', () => 'null'],
  ];

  it.each(streamCorruptions)(
    'rejects a stream document that %s and leaves it untouched',
    async (_n, corruptIt) => {
      const p = uniquePrefix('bad');
      await create(p);
      const key = streamKeys(ns, p).stream;
      const bad = corruptIt(JSON.parse((await client.hget(key, 'doc')) ?? '{}'));
      await client.hset(key, 'doc', bad);
      await expectCorrupt(p, 'all');
      await expectCorrupt(p, ['g']);
      expect(await client.hget(key, 'doc')).toBe(bad);
      expect(await client.hget(key, 'rev')).toBe('1');
    },
  );

  it('rejects a stream hash without a revision', async () => {
    const p = uniquePrefix('norev');
    await create(p);
    await client.hdel(streamKeys(ns, p).stream, 'rev');
    expect(await expectCorrupt(p, [])).toContain('revision');
  });

  it('rejects a group document that misses a field and leaves it untouched', async () => {
    const p = uniquePrefix('badgroup');
    await create(p);
    const key = groupKeys(ns, p, 'g').group;
    const { groupEpoch: _e, ...rest } = JSON.parse((await client.hget(key, 'doc')) ?? '{}');
    const bad = JSON.stringify(rest);
    await client.hset(key, 'doc', bad);
    expect(await expectCorrupt(p, ['g'])).toContain('group "g"');
    expect(await client.hget(key, 'doc')).toBe(bad);
  });

  it('rejects a group listed by the stream but missing in Redis', async () => {
    const p = uniquePrefix('lost');
    await create(p);
    await client.del(groupKeys(ns, p, 'g').group);
    await expectCorrupt(p, 'all');
  });

  it('rejects an unreadable live entry', async () => {
    const p = uniquePrefix('badlive');
    await create(p);
    await client.hset(groupKeys(ns, p, 'g').live, 'm1', '{"at":"soon"}');
    await expectCorrupt(p, ['g']);
  });

  it('does not overwrite corrupt metadata on commit', async () => {
    const p = uniquePrefix('keep');
    await create(p);
    const key = streamKeys(ns, p).stream;
    await client.hset(key, 'doc', 'garbage');
    expect(await store.commit({ prefix: p, expectedRevision: 0, stream: streamDoc(p) })).toEqual({
      ok: false,
      reason: 'conflict',
    });
    expect(await client.hget(key, 'doc')).toBe('garbage');
  });
});
