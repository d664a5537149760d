/**
 * The Store contract, the due index (docs/architecture.md#the-due-index): a commit that creates
 * time-driven work lists its stream as due no later than that work; claims are exclusive until
 * they lapse; a settle records the next due time, and a commit made during a claim is never lost.
 * Each case runs in a namespace of its own (the index is one per namespace).
 */
import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import { uniquePrefix } from '../support/redis.js';
import { T0 } from '../support/store-fixtures.js';
import type { ContractTarget } from './contract.js';
import { contractKit } from './contract-kit.js';

/** Declares the due-index cases on the target `get` returns. */
export function defineDueIndexContract(get: () => ContractTarget): void {
  let current: Store;
  const fresh = (): Store => {
    current = get().storeIn(uniquePrefix('due-ns'));
    return current;
  };
  const seeded = async (): Promise<Store> => {
    const store = fresh();
    await store.seedDue([], T0);
    return store;
  };
  // Streams and commits in the namespace of the case's own store.
  const { create, commit } = contractKit(() => ({ ...get(), store: current }));

  describe('due index', () => {
    it('is not complete until seeded, and then lists every seeded stream as due once', async () => {
      const store = fresh();
      expect(await store.claimDue(T0, T0 + 60_000, 10)).toBeNull();
      await store.seedDue(['a', 'b', 'c'], T0);
      expect(await store.claimDue(T0, T0 + 60_000, 2)).toEqual({ prefixes: ['a', 'b'], backlog: 1 });
      expect(await store.claimDue(T0, T0 + 60_000, 10)).toEqual({ prefixes: ['c'], backlog: 0 });
      // Claimed: nobody else gets them until the claim lapses.
      expect(await store.claimDue(T0 + 59_999, T0 + 120_000, 10)).toEqual({ prefixes: [], backlog: 0 });
      expect((await store.claimDue(T0 + 60_000, T0 + 120_000, 10))?.prefixes).toEqual(['a', 'b', 'c']);
    });

    it('lists a stream at the earliest time-driven work a commit creates', async () => {
      const store = await seeded();
      const p = uniquePrefix('due');
      const rev = await create(p);
      // Creating a stream with an idle group creates no time-driven work.
      expect(await store.claimDue(T0 + 60_000, T0 + 120_000, 10)).toEqual({ prefixes: [], backlog: 0 });
      expect((await commit(p, rev, [{ k: 'lease', member: 'm', at: T0 + 500 }])).ok).toBe(true);
      expect(await store.claimDue(T0 + 499, T0 + 60_000, 10)).toEqual({ prefixes: [], backlog: 0 });
      expect((await store.claimDue(T0 + 500, T0 + 60_000, 10))?.prefixes).toEqual([p]);
    });

    it('a renewed lease marks nothing: the index covers it already', async () => {
      const store = await seeded();
      const p = uniquePrefix('due');
      const rev = await create(p);
      await commit(p, rev, [{ k: 'lease', member: 'm', at: T0 + 900, renewal: true }]);
      expect(await store.claimDue(T0 + 60_000, T0 + 120_000, 10)).toEqual({ prefixes: [], backlog: 0 });
    });

    it('settles a claim with the next due time, or drops the stream when nothing is due', async () => {
      const store = await seeded();
      await store.seedDue(['x', 'y'], T0);
      await store.claimDue(T0, T0 + 60_000, 10);
      await store.settleDue('x', T0 + 60_000, T0 + 5_000);
      await store.settleDue('y', T0 + 60_000, null);
      expect(await store.claimDue(T0 + 4_999, T0 + 60_000, 10)).toEqual({ prefixes: [], backlog: 0 });
      expect(await store.claimDue(T0 + 100_000, T0 + 160_000, 10)).toEqual({ prefixes: ['x'], backlog: 0 });
    });

    it('keeps a due time a commit recorded during the claim, whatever the visit read', async () => {
      const store = await seeded();
      const p = uniquePrefix('due');
      const rev = await create(p);
      await store.seedDue([p], T0);
      await store.claimDue(T0, T0 + 60_000, 10);
      // The visit read nothing due; meanwhile a commit created work due at T0 + 2 s.
      const deadline = { k: 'deadline', member: 'm', at: T0 + 2_000, ifAbsent: true } as const;
      expect((await commit(p, rev, [deadline])).ok).toBe(true);
      await store.settleDue(p, T0 + 60_000, null);
      expect((await store.claimDue(T0 + 2_000, T0 + 60_000, 10))?.prefixes).toEqual([p]);
    });

    it('a lapsed claim settled late does not undo the claim another sweep took since', async () => {
      const store = await seeded();
      await store.seedDue(['s'], T0);
      await store.claimDue(T0, T0 + 1_000, 10);
      expect((await store.claimDue(T0 + 1_000, T0 + 61_000, 10))?.prefixes).toEqual(['s']);
      // The first sweep comes back late and says nothing is due: the second one's claim stands.
      await store.settleDue('s', T0 + 1_000, null);
      expect(await store.claimDue(T0 + 60_999, T0 + 120_000, 10)).toEqual({ prefixes: [], backlog: 0 });
      expect((await store.claimDue(T0 + 61_000, T0 + 120_000, 10))?.prefixes).toEqual(['s']);
    });

    it('is seeded again when Redis lost it', async () => {
      const t = get();
      const ns = uniquePrefix('due-ns');
      const store = t.storeIn(ns);
      await store.seedDue(['a'], T0);
      await t.raw.del(`${ns}:{#due}:at`);
      expect(await store.claimDue(T0, T0 + 60_000, 10)).toBeNull();
    });
  });
}
