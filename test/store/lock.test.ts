import { afterAll, describe, expect, it } from 'vitest';
import { IoredisStore } from '../../src/store/ioredis-store.js';
import { streamKeys } from '../../src/store/keys.js';
import { backends, uniquePrefix } from '../support/redis.js';

describe.each(backends)('store > per-stream mutex ($name)', ({ make }) => {
  const client = make();
  const ns = uniquePrefix('ns');
  const store = new IoredisStore(client, { namespace: ns });
  afterAll(async () => {
    await client.quit();
  });

  it('lets one holder in at a time', async () => {
    const p = uniquePrefix('lock');
    const results = await Promise.all(['a', 'b', 'c', 'd'].map((t) => store.tryLock(p, t, 10_000)));
    expect(results.filter(Boolean)).toHaveLength(1);
    const ttl = await client.pttl(streamKeys(ns, p).lock);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(10_000);
  });

  it('locks each stream separately', async () => {
    expect(await store.tryLock(uniquePrefix('one'), 't', 10_000)).toBe(true);
    expect(await store.tryLock(uniquePrefix('two'), 't', 10_000)).toBe(true);
  });

  it('releases only with the token it was taken with', async () => {
    const p = uniquePrefix('release');
    const key = streamKeys(ns, p).lock;
    expect(await store.tryLock(p, 'mine', 10_000)).toBe(true);
    await store.unlock(p, 'theirs');
    expect(await client.get(key)).toBe('mine');
    expect(await store.tryLock(p, 'theirs', 10_000)).toBe(false);
    await store.unlock(p, 'mine');
    expect(await client.exists(key)).toBe(0);
    expect(await store.tryLock(p, 'theirs', 10_000)).toBe(true);
  });

  it('does not release a lock another holder took after ours expired', async () => {
    const p = uniquePrefix('expired');
    const key = streamKeys(ns, p).lock;
    // Simulate expiry of our lock by another holder taking the key.
    expect(await store.tryLock(p, 'old', 10_000)).toBe(true);
    await client.del(key);
    expect(await store.tryLock(p, 'new', 10_000)).toBe(true);
    await store.unlock(p, 'old');
    expect(await client.get(key)).toBe('new');
  });
});
