/**
 * The Store contract, heartbeat reads and the fast path: a member's view, fingerprint hits and
 * misses, and the fast path of a member waiting for a shard. Declared inside
 * `defineStoreContract`, so every store runs it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Fingerprint } from '../../src/core/commit-plan.js';
import type { HeartbeatOutput } from '../../src/core/heartbeat-types.js';
import { groupKeys } from '../../src/store/keys.js';
import { uniquePrefix } from '../support/redis.js';
import { member, T0 } from '../support/store-fixtures.js';
import type { ContractTarget } from './contract.js';
import { ANSWER, contractKit, PROGRESS } from './contract-kit.js';

/** Declares the heartbeat reads and the fast path cases on the target `get` returns. */
export function defineHeartbeatContract(get: () => ContractTarget): void {
  const { create, commit, add, readReq, view, dump } = contractKit(get);
  let t: ContractTarget;
  beforeAll(() => {
    t = get();
  });

  describe('heartbeat reads and the fast path', () => {
    it('reads a member’s view: header, record, target, ownership of its shards, holders’ status, due members', async () => {
      const p = uniquePrefix('view');
      await create(p);
      await add(p, 1, member('m1', { currentAssignment: [0], memberLeaseExpiresAt: T0 + 500 }), [0, 2]);
      await add(p, 1, member('m2', { state: 'LEAVING', memberEpoch: -1, revoking: [2] }));
      await add(
        p,
        1,
        member('m3', {
          state: 'FENCED',
          fence: 'BLOCKING',
          currentAssignment: [5],
          memberLeaseExpiresAt: T0 + 100,
        }),
      );
      const v = await view(p, 'm1', { shards: [5, 0] });
      expect(v.header).toMatchObject({
        groupEpoch: 1,
        assignmentEpoch: 1,
        metadataVersion: 1,
        correction: null,
      });
      expect(v.member?.record).toMatchObject({ memberId: 'm1', currentAssignment: [0] });
      expect(v.member?.rev).toBe(1);
      expect(v.target).toEqual([0, 2]);
      expect(v.targetStored).toBe(true);
      expect([...v.owners]).toEqual([
        [0, { memberId: 'm1', kind: 'c' }],
        [2, { memberId: 'm2', kind: 'r' }],
        [5, { memberId: 'm3', kind: 'c' }],
      ]);
      expect([...v.holders]).toEqual([
        ['m2', 'L'],
        ['m3', 'B'],
      ]);
      // m1's lease passed (T0+500 < now); m3's blocking fence lapses after its lease.
      expect(v.due.expired).toEqual(['m1']);
      expect(v.due.timers).toEqual(['m3']);
      const unknown = await view(p, 'nobody');
      expect(unknown.member).toBeNull();
      expect(unknown.targetStored).toBe(false);
    });

    it('answers the fast path from a matching fingerprint, renewing lease and progress; misses write nothing', async () => {
      const p = uniquePrefix('fast');
      await create(p);
      await add(p, 1, member('m1', { currentAssignment: [0, 1], grantedAssignment: [0, 1] }), [0, 1]);
      const fingerprint = (over = {}) => ({
        groupEpoch: 1,
        assignmentEpoch: 1,
        metadataVersion: 1,
        streamRev: 1,
        memberRev: 1,
        target: [0, 1],
        key: 'key-ü',
        waits: [] as Fingerprint['waits'],
        response: ANSWER,
        ...over,
      });
      await commit(p, 1, [{ k: 'fingerprint', member: 'm1', fingerprint: fingerprint() }]);
      const fast = readReq(p, 'm1', { fastKey: 'key-ü' });
      expect(await t.store.readMember(fast)).toEqual({ kind: 'fast', response: ANSWER });
      expect(Number(await t.raw.zscore(groupKeys(t.ns, p, 'g').leases, 'm1'))).toBe(T0 + 16_000);
      expect((await t.store.load(p, ['g']))!.groups.g!.members.m1!.shardProgress).toEqual(PROGRESS);
      // Never shortens a lease.
      expect((await t.store.readMember({ ...fast, leaseExpiresAt: T0 + 2000 })).kind).toBe('fast');
      expect(Number(await t.raw.zscore(groupKeys(t.ns, p, 'g').leases, 'm1'))).toBe(T0 + 16_000);

      const misses: Array<[string, Partial<ReturnType<typeof fingerprint>>]> = [
        ['group epoch', { groupEpoch: 2 }],
        ['assignment epoch', { assignmentEpoch: 0 }],
        ['metadata version', { metadataVersion: 5 }],
        ['stream revision', { streamRev: 2 }],
        ['record revision', { memberRev: 2 }],
        ['target', { target: [0] }],
        ['key', { key: 'other' }],
      ];
      for (const [what, over] of misses) {
        await commit(p, 1, [{ k: 'fingerprint', member: 'm1', fingerprint: fingerprint(over) }]);
        const before = await dump(p);
        expect((await t.store.readMember(fast)).kind, what).toBe('view');
        expect(await dump(p), what).toEqual(before);
      }
      await commit(p, 1, [{ k: 'fingerprint', member: 'm1', fingerprint: fingerprint() }]);
      // An open correction round, and a member whose lease passed, both close the fast path.
      await commit(p, 1, [
        {
          k: 'round',
          round: { targetMetadataVersion: 1, observedMetadataVersion: 2, requestedAt: 0, updatedAt: 0 },
          freshAcks: true,
        },
      ]);
      expect((await t.store.readMember(fast)).kind).toBe('view');
      await commit(p, 1, [{ k: 'round', round: null, freshAcks: false }]);
      expect((await t.store.readMember(fast)).kind).toBe('fast');
      await add(p, 1, member('late', { memberLeaseExpiresAt: T0 + 10 }));
      expect((await t.store.readMember(fast)).kind).toBe('view');
    });
  });

  describe('the fast path of a member waiting for a shard', () => {
    it('answers while the pending shard keeps its holder, and misses once the holder lets go or stops blocking', async () => {
      const p = uniquePrefix('wait');
      await create(p);
      await add(p, 1, member('m1', { grantedAssignment: [0] }), [0, 1]);
      await add(p, 1, member('h', { currentAssignment: [1] }));
      const pending: HeartbeatOutput = { ...ANSWER, assignedShards: [0], pendingShards: [1] };
      const waits: Fingerprint['waits'] = [{ shard: 1, owner: { memberId: 'h', kind: 'c' }, status: 'A' }];
      await commit(p, 1, [
        {
          k: 'fingerprint',
          member: 'm1',
          fingerprint: {
            groupEpoch: 1,
            assignmentEpoch: 1,
            metadataVersion: 1,
            streamRev: 1,
            memberRev: 1,
            target: [0, 1],
            key: 'k',
            waits,
            response: pending,
          },
        },
      ]);
      const fast = readReq(p, 'm1', { fastKey: 'k' });
      expect(await t.store.readMember(fast)).toEqual({ kind: 'fast', response: pending });
      // The holder's status changes (it starts leaving): no longer the recorded blocker.
      await commit(p, 1, [{ k: 'status', member: 'h', status: 'L' }]);
      expect((await t.store.readMember(fast)).kind).toBe('view');
      await commit(p, 1, [{ k: 'status', member: 'h', status: 'A' }]);
      expect((await t.store.readMember(fast)).kind).toBe('fast');
      // The holder lets go of the shard.
      await commit(p, 1, [{ k: 'release-owner', shard: 1, member: 'h' }]);
      expect((await t.store.readMember(fast)).kind).toBe('view');
    });
  });
}
