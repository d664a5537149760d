/**
 * The Store contract, quotas: the streams index lists a prefix only within its
 * limit, and a join's commit applies only while the group has fewer live members than the
 * quota. Declared inside `defineStoreContract`, so every store runs it.
 */
import { describe, expect, it } from 'vitest';
import { memberOps, ordered, type PlanOp } from '../../src/core/commit-plan.js';
import { groupKeys } from '../../src/store/keys.js';
import { streamHeadOf } from '../../src/store/stream-head.js';
import { uniquePrefix } from '../support/redis.js';
import { member, streamDoc, T0 } from '../support/store-fixtures.js';
import type { ContractTarget } from './contract.js';

/** Declares the quota cases on the target `get` returns. */
export function defineQuotaContract(get: () => ContractTarget): void {
  describe('quotas', () => {
    it('lists a stream only while the index holds fewer than the limit (a listed one always passes)', async () => {
      const { store } = get();
      const [a, b, c] = [uniquePrefix('qa'), uniquePrefix('qb'), uniquePrefix('qc')];
      const limit = (await store.listStreams()).length + 2;
      expect(await store.registerStream(a, limit)).toBe(true);
      expect(await store.registerStream(b, limit)).toBe(true);
      expect(await store.registerStream(c, limit)).toBe(false);
      expect(await store.registerStream(a, limit)).toBe(true);
      expect(await store.registerStream(c)).toBe(true);
      const listed = await store.listStreams();
      expect([a, b, c].every((p) => listed.includes(p))).toBe(true);
      for (const p of [a, b, c]) await store.unregisterStream(p);
    });

    it('applies a commit checking live-below only under the count, or for a member already live', async () => {
      const { store } = get();
      const p = uniquePrefix('live-below');
      const doc = streamDoc(p, ['g']);
      const created = await store.commit({
        prefix: p,
        expect: 'absent',
        stream: { doc, head: streamHeadOf(doc, 3000) },
        groups: [
          { name: 'g', create: { groupEpoch: 1, assignmentEpoch: 1, metadataVersion: 1, at: T0 }, ops: [] },
        ],
      });
      expect(created.ok).toBe(true);
      const rev = created.ok ? (created.streamRev ?? 0) : 0;
      const commit = (ops: PlanOp[]) =>
        store.commit({
          prefix: p,
          expect: { rev },
          groups: [{ name: 'g', ops: [{ k: 'group-exists' }, ...ordered(ops)] }],
        });
      const join = (id: string): PlanOp[] =>
        memberOps(id, null, member(id), { owners: new Map(), staleMemberRetentionMs: 600_000 });

      expect((await commit([{ k: 'live-below', member: 'm1', count: 1 }, ...join('m1')])).ok).toBe(true);
      expect((await commit([{ k: 'live-below', member: 'm2', count: 1 }, ...join('m2')])).ok).toBe(false);
      expect(await get().raw.hlen(groupKeys(get().ns, p, 'g').members)).toBe(1);
      // m1 is in the lease index: at the limit it still passes (a live member is never refused).
      expect(
        (
          await commit([
            { k: 'live-below', member: 'm1', count: 1 },
            { k: 'touch', at: T0 },
          ])
        ).ok,
      ).toBe(true);
      expect((await commit([{ k: 'live-below', member: 'm2', count: 2 }, ...join('m2')])).ok).toBe(true);
    });
  });
}
