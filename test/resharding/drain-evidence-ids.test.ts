/**
 * Drain evidence rests on the group's position, not on its lag counter (docs/protocol.md#scale-in-drain-evidence):
 * after a restart from the AOF (or a replica promotion) Redis 7.0 can report a fully read and
 * acknowledged group with a stale `entries-read` and so a lag equal to the stream's length.
 * `XGROUP SETID … ENTRIESREAD n` builds that state (and the opposite one, a lag of 0 while an
 * entry is still undelivered) directly, on standalone Redis and on a Cluster.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drainVerdict } from '../../src/core/drain-evidence.js';
import { IoredisStore } from '../../src/store/ioredis-store.js';
import { backends, uniquePrefix } from '../support/redis.js';
import { exists, fill, groupsOn, readAndAck } from './support.js';

const MAX_ID = '18446744073709551615-18446744073709551615';

describe.each(backends)('resharding > drain evidence from stream IDs ($name)', (backend) => {
  const redis = backend.make();
  let store: IoredisStore;
  const key = (name: string) => `${uniquePrefix('ids')}:${name}`;
  beforeAll(() => {
    store = new IoredisStore(backend.make(), { namespace: uniquePrefix('ns'), ownsClient: true });
  });
  afterAll(async () => {
    await store.close();
    redis.disconnect();
  });

  /** A stream with group `g` created at its tail, `n` entries, all read and acknowledged by `g`. */
  async function consumed(name: string, n: number): Promise<{ k: string; ids: string[] }> {
    const k = key(name);
    await redis.xgroup('CREATE', k, 'g', '$', 'MKSTREAM', 'ENTRIESREAD', 0);
    const ids = await fill(redis, k, n);
    expect(await readAndAck(redis, k, 'g', 'c')).toEqual(ids);
    return { k, ids };
  }

  const verdict = async (k: string, groups = ['g']) => drainVerdict(await store.readShard(k), groups);

  it('a fully read and acknowledged stream whose entries-read went stale is drained and retires', async () => {
    const { k, ids } = await consumed('stale', 5);
    // What the AOF replay leaves behind: the position is right, the entries-read count is not.
    await redis.xgroup('SETID', k, 'g', ids[4]!, 'ENTRIESREAD', 0);
    expect((await groupsOn(redis, k))[0]).toMatchObject({ pending: 0, lag: 5 });
    expect(await verdict(k)).toMatchObject({ drained: true });
    expect(await store.readShard(k)).toEqual({
      kind: 'stream',
      length: 5,
      entriesAdded: 5,
      groups: [{ name: 'g', pending: 0, lag: 5, lastDeliveredId: ids[4], entryAfterLastDelivered: false }],
    });
    expect(await store.retireShard(k, ['g'])).toEqual({ kind: 'deleted' });
    expect(await exists(redis, k)).toBe(false);
  });

  it('an entry after the last delivered id keeps a shard draining even when lag says 0', async () => {
    const { k, ids } = await consumed('behind', 5);
    // The group is moved back one entry while its entries-read claims everything: lag 0, one unread.
    await redis.xgroup('SETID', k, 'g', ids[3]!, 'ENTRIESREAD', 5);
    expect((await groupsOn(redis, k))[0]).toMatchObject({ pending: 0, lag: 0 });
    const v = await verdict(k);
    expect(v.drained).toBe(false);
    expect(v.reason).toContain(`after its last-delivered-id ${ids[3]}`);
    expect(await store.retireShard(k, ['g'])).toMatchObject({
      kind: 'refused',
      reading: {
        kind: 'stream',
        groups: [{ name: 'g', lastDeliveredId: ids[3], entryAfterLastDelivered: true }],
      },
    });
    expect(await exists(redis, k)).toBe(true);
  });

  it('pending entries keep a shard draining whatever the position says', async () => {
    const k = key('pending');
    await redis.xgroup('CREATE', k, 'g', '$', 'MKSTREAM', 'ENTRIESREAD', 0);
    const ids = await fill(redis, k, 3);
    await redis.xreadgroup('GROUP', 'g', 'c', 'STREAMS', k, '>');
    await redis.xack(k, 'g', ids[0]!, ids[1]!);
    await redis.xgroup('SETID', k, 'g', ids[2]!, 'ENTRIESREAD', 0);
    const v = await verdict(k);
    expect(v.drained).toBe(false);
    expect(v.reason).toContain('"g": 1 pending');
    expect((await store.retireShard(k, ['g'])).kind).toBe('refused');
    expect(await exists(redis, k)).toBe(true);
  });

  it('a null lag with nothing after the last delivered id is drained; with an entry after it, not', async () => {
    // The last entry was deleted after the group passed the one before it: Redis cannot count the
    // lag (null), but nothing is left after the group's position.
    const done = key('null-done');
    await redis.xgroup('CREATE', done, 'g', '$', 'MKSTREAM', 'ENTRIESREAD', 0);
    const a = await fill(redis, done, 4);
    await redis.xreadgroup('GROUP', 'g', 'c', 'COUNT', 3, 'STREAMS', done, '>');
    await redis.xack(done, 'g', a[0]!, a[1]!, a[2]!);
    await redis.xdel(done, a[3]!);
    expect((await groupsOn(redis, done))[0]).toMatchObject({ pending: 0, lag: null });
    expect(await verdict(done)).toMatchObject({ drained: true });
    expect(await store.retireShard(done, ['g'])).toEqual({ kind: 'deleted' });

    // An entry beyond the position was deleted, another one remains after it: not drained.
    const left = key('null-left');
    await redis.xgroup('CREATE', left, 'g', '$', 'MKSTREAM', 'ENTRIESREAD', 0);
    const b = await fill(redis, left, 3);
    await redis.xreadgroup('GROUP', 'g', 'c', 'COUNT', 1, 'STREAMS', left, '>');
    await redis.xack(left, 'g', b[0]!);
    await redis.xdel(left, b[1]!);
    expect((await groupsOn(redis, left))[0]).toMatchObject({ pending: 0, lag: null });
    const v = await verdict(left);
    expect(v.drained).toBe(false);
    expect(v.reason).toContain('lag unknown (null');
    expect((await store.retireShard(left, ['g'])).kind).toBe('refused');
    expect(await exists(redis, left)).toBe(true);
  });

  it('a group that never read anything: drained only when nothing was written after its position', async () => {
    // Created at 0-0 on a stream with entries: every entry is after its position.
    const fromStart = key('from-start');
    await redis.xadd(fromStart, '*', 'f', 'v');
    await redis.xgroup('CREATE', fromStart, 'g', '0');
    expect(await store.readShard(fromStart)).toMatchObject({
      groups: [{ name: 'g', lastDeliveredId: '0-0', entryAfterLastDelivered: true }],
    });
    expect((await verdict(fromStart)).drained).toBe(false);
    expect((await store.retireShard(fromStart, ['g'])).kind).toBe('refused');

    // Created at the tail of a stream with entries, nothing added since: none of them is its to read.
    const atTail = key('at-tail');
    await redis.xadd(atTail, '*', 'f', 'v');
    await redis.xgroup('CREATE', atTail, 'g', '$');
    expect((await verdict(atTail)).drained).toBe(true);

    // An empty stream, group at 0-0: nothing to read.
    const empty = key('empty');
    await redis.xgroup('CREATE', empty, 'g', '0', 'MKSTREAM');
    expect(await store.readShard(empty)).toMatchObject({
      length: 0,
      groups: [{ name: 'g', lastDeliveredId: '0-0', entryAfterLastDelivered: false }],
    });
    expect(await store.retireShard(empty, ['g'])).toEqual({ kind: 'deleted' });

    // A group moved past every possible ID: nothing can follow it.
    const past = key('past');
    await redis.xadd(past, '*', 'f', 'v');
    await redis.xgroup('CREATE', past, 'g', '$');
    await redis.xgroup('SETID', past, 'g', MAX_ID);
    expect(await store.readShard(past)).toMatchObject({
      groups: [{ name: 'g', lastDeliveredId: MAX_ID, entryAfterLastDelivered: false }],
    });
    expect((await verdict(past)).drained).toBe(true);
  });

  it('every group counts: one stale-but-done group and one with an unread entry is not drained', async () => {
    const { k, ids } = await consumed('two', 3);
    await redis.xgroup('CREATE', k, 'h', ids[1]!);
    await redis.xgroup('SETID', k, 'g', ids[2]!, 'ENTRIESREAD', 0);
    const v = await verdict(k, ['g', 'h']);
    expect(v.drained).toBe(false);
    expect(v.reason).toContain('"h"');
    expect(v.reason).not.toContain('"g"');
    expect((await store.retireShard(k, ['g', 'h'])).kind).toBe('refused');
    await readAndAck(redis, k, 'h', 'c');
    expect(await store.retireShard(k, ['g', 'h'])).toEqual({ kind: 'deleted' });
  });
});
