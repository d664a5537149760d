/**
 * The Store contract, stream mutex and in-doubt commits: one holder at a time per
 * stream, released only with its token; leases renew only while they are the caller's, a resent
 * commit is recognised by its token, and a commit naming a mutex it does not hold is refused.
 * Declared inside `defineStoreContract`, so every store runs it.
 */
import { describe, expect, it } from 'vitest';
import { streamKeys } from '../../src/store/keys.js';
import { streamHeadOf } from '../../src/store/stream-head.js';
import { uniquePrefix } from '../support/redis.js';
import { streamDoc, T0 } from '../support/store-fixtures.js';
import type { ContractTarget } from './contract.js';

/** Declares the mutex and in-doubt commit cases on the target `get` returns. */
export function defineMutexContract(get: () => ContractTarget): void {
  const head = (doc: ReturnType<typeof streamDoc>) => streamHeadOf(doc, 3000);
  describe('per-stream mutex', () => {
    it('lets one holder in at a time', async () => {
      const { store, raw: client, ns } = get();
      const p = uniquePrefix('lock');
      const results = await Promise.all(['a', 'b', 'c', 'd'].map((t) => store.tryLock(p, t, 10_000)));
      expect(results.filter(Boolean)).toHaveLength(1);
      const ttl = await client.pttl(streamKeys(ns, p).lock);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(10_000);
    });

    it('locks each stream separately', async () => {
      const { store } = get();
      expect(await store.tryLock(uniquePrefix('one'), 't', 10_000)).toBe(true);
      expect(await store.tryLock(uniquePrefix('two'), 't', 10_000)).toBe(true);
    });

    it('releases only with the token it was taken with', async () => {
      const { store, raw: client, ns } = get();
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
      const { store, raw: client, ns } = get();
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

  describe('stream mutex leases and in-doubt commits', () => {
    it('renews a mutex only while it holds the token (never takes a lost one again)', async () => {
      const p = uniquePrefix('renew');
      expect(await get().store.renewLock(p, 'a', 5000)).toBe(false);
      expect(await get().raw.exists(streamKeys(get().ns, p).lock)).toBe(0);
      expect(await get().store.tryLock(p, 'a', 300)).toBe(true);
      expect(await get().store.renewLock(p, 'a', 5000)).toBe(true);
      expect(await get().raw.pttl(streamKeys(get().ns, p).lock)).toBeGreaterThan(300);
      expect(await get().store.renewLock(p, 'b', 5000)).toBe(false);
    });

    it('answers a resent commit with its token as applied, writing nothing twice', async () => {
      const p = uniquePrefix('resend');
      const doc = streamDoc(p, ['g']);
      const plan = {
        prefix: p,
        expect: 'absent' as const,
        stream: { doc, head: head(doc) },
        groups: [
          { name: 'g', create: { groupEpoch: 1, assignmentEpoch: 1, metadataVersion: 1, at: T0 }, ops: [] },
        ],
        token: 'attempt-1',
      };
      const first = await get().store.commit(plan);
      expect(first).toMatchObject({ ok: true, streamRev: 1 });
      const again = await get().store.commit(plan);
      expect(again).toMatchObject({ ok: true, streamRev: 1, replayed: true });
      if (again.ok) expect(again.headers).toEqual(first.ok ? first.headers : []);
      // Another attempt's token is the ordinary conflict.
      expect(await get().store.commit({ ...plan, token: 'attempt-2' })).toMatchObject({ ok: false });
      expect(await get().raw.pttl(streamKeys(get().ns, p).commit)).toBeGreaterThan(0);
    });

    it('refuses a commit naming a stream mutex it does not hold', async () => {
      const p = uniquePrefix('lock-commit');
      const doc = streamDoc(p, ['g']);
      const plan = {
        prefix: p,
        expect: 'absent' as const,
        stream: { doc, head: head(doc) },
        groups: [
          { name: 'g', create: { groupEpoch: 1, assignmentEpoch: 1, metadataVersion: 1, at: T0 }, ops: [] },
        ],
        lock: 'mine',
      };
      expect(await get().store.commit(plan)).toMatchObject({ ok: false, lockLost: true });
      expect(await get().store.tryLock(p, 'theirs', 5000)).toBe(true);
      expect(await get().store.commit(plan)).toMatchObject({ ok: false, lockLost: true });
      expect(await get().raw.exists(streamKeys(get().ns, p).stream)).toBe(0);
      await get().store.unlock(p, 'theirs');
      expect(await get().store.tryLock(p, 'mine', 5000)).toBe(true);
      expect(await get().store.commit(plan)).toMatchObject({ ok: true, streamRev: 1 });
    });
  });
}
