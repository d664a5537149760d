/**
 * What the offsets reset reads and writes on a shard stream, through the store on standalone
 * Redis and on a Cluster: the group's position and the stream's ends in one read, range counts
 * that are exact (bounds as documented) or say they stopped at their limit, the entry before an
 * id, and the group moved with its read counter.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { IoredisStore } from '../../src/store/ioredis-store.js';
import { backends, uniquePrefix } from '../support/redis.js';

describe.each(backends)('store > group positions ($name)', (backend) => {
  const raw = backend.make();
  const store = new IoredisStore(backend.make(), { namespace: uniquePrefix('ns'), ownsClient: true });
  const positions = store.positions;
  afterAll(async () => {
    await store.close();
    raw.disconnect();
  });

  /** A stream `key` with entries `1-0` … `n-0` and group `g` at `0-0`. */
  async function streamOf(n: number): Promise<string> {
    const key = `${uniquePrefix('pos')}:0`;
    const batch = 1000;
    for (let from = 1; from <= n; from += batch) {
      const p = raw.pipeline();
      for (let i = from; i < Math.min(from + batch, n + 1); i++) p.xadd(key, `${i}-0`, 'n', String(i));
      await p.exec();
    }
    await raw.xgroup('CREATE', key, 'g', '0', 'MKSTREAM', 'ENTRIESREAD', 0);
    return key;
  }

  it('reads the stream’s ends and counters and the group’s position in one call', async () => {
    const key = await streamOf(5);
    await raw.xdel(key, '1-0');
    const read = await positions.read(key, 'g');
    expect(read.stream).toMatchObject({
      length: 4,
      firstRecordId: '2-0',
      lastRecordId: '5-0',
      lastGeneratedId: '5-0',
      entriesAdded: 5,
    });
    expect(read.group).toMatchObject({ name: 'g', lastDeliveredId: '0-0', entriesRead: 0, pending: 0 });
    expect((await positions.read(key, 'other')).group).toBeNull();
    expect(await positions.read(`${key}-missing`, 'g')).toEqual({ stream: null, group: null });
  });

  it('counts (low, high] exactly, and says when it stopped at the limit', async () => {
    const key = await streamOf(10);
    expect(await positions.count(key, '0-0', '+', 100)).toEqual({ count: 10, complete: true });
    expect(await positions.count(key, '3-0', '7-0', 100)).toEqual({ count: 4, complete: true });
    expect(await positions.count(key, '7-0', '7-0', 100)).toEqual({ count: 0, complete: true });
    expect(await positions.count(key, '10-0', '+', 100)).toEqual({ count: 0, complete: true });
    expect(await positions.count(key, '0-0', '+', 10)).toEqual({ count: 10, complete: true });
    expect(await positions.count(key, '0-0', '+', 9)).toEqual({ count: 9, complete: false });
  });

  it('counts a range longer than one counting call', async () => {
    const key = await streamOf(25_001);
    expect(await positions.count(key, '0-0', '+', 1_000_000)).toEqual({ count: 25_001, complete: true });
    expect(await positions.count(key, '2-0', '20000-0', 1_000_000)).toEqual({
      count: 19_998,
      complete: true,
    });
    expect(await positions.count(key, '0-0', '+', 20_000)).toEqual({ count: 20_000, complete: false });
  });

  it('finds the newest entry before an id', async () => {
    const key = await streamOf(3);
    expect(await positions.lastBefore(key, '3-0')).toBe('2-0');
    expect(await positions.lastBefore(key, '2-5')).toBe('2-0');
    expect(await positions.lastBefore(key, '1-0')).toBeNull();
    expect(await positions.lastBefore(key, '0-0')).toBeNull();
    expect(await positions.lastBefore(key, '99-0')).toBe('3-0');
  });

  it('moves the group with its read counter, and refuses a key that does not exist', async () => {
    const key = await streamOf(4);
    await positions.set(key, 'g', '3-0', 3);
    expect((await positions.read(key, 'g')).group).toMatchObject({
      lastDeliveredId: '3-0',
      entriesRead: 3,
      lag: 1,
    });
    await expect(positions.set(`${key}-missing`, 'g', '0-0', 0)).rejects.toMatchObject({
      name: 'CoordinatorError',
    });
  });
});
