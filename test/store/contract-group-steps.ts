/**
 * The Store contract, group steps: the assignment read and its lock, due members, the oldest
 * unassigned change, and the stream mutex. Declared inside `defineStoreContract`, so every store
 * runs it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { streamKeys } from '../../src/store/keys.js';
import { uniquePrefix } from '../support/redis.js';
import { member, T0 } from '../support/store-fixtures.js';
import type { ContractTarget } from './contract.js';
import { contractKit } from './contract-kit.js';

/** Declares the group steps cases on the target `get` returns. */
export function defineGroupStepsContract(get: () => ContractTarget): void {
  const { create, commit, add, readReq, view } = contractKit(get);
  let t: ContractTarget;
  beforeAll(() => {
    t = get();
  });

  describe('group steps', () => {
    it('lists what an assignment round needs and takes the group’s assignment lock', async () => {
      const p = uniquePrefix('assign');
      await create(p);
      await add(p, 1, member('m1', { currentAssignment: [0], rebalanceDeadlineAt: T0 + 60_000 }), [0, 1]);
      await add(p, 1, member('m2', { memberLeaseExpiresAt: T0 - 1 }));
      const r = await t.store.readAssignment(p, 'g', T0, 'tok', 2000);
      expect(r).not.toBe('busy');
      if (r === 'busy' || r === null) throw new Error('no read');
      expect(r.live).toEqual(['m1']);
      expect([...r.targets]).toEqual([['m1', [0, 1]]]);
      expect([...r.owners]).toEqual([[0, { memberId: 'm1', kind: 'c' }]]);
      expect([...r.deadlines]).toEqual([['m1', T0 + 60_000]]);
      expect(await t.store.readAssignment(p, 'g', T0, 'other', 2000)).toBe('busy');
      expect(await t.store.tryLock(p, 'other', 1000, 'g')).toBe(false);
      expect(
        (
          await commit(p, 1, [
            { k: 'token-is', token: 'tok' },
            { k: 'release-lock', token: 'tok', ms: 0 },
          ])
        ).ok,
      ).toBe(true);
      expect(await t.store.tryLock(p, 'other', 1000, 'g')).toBe(true);
    });

    it('lists due members and flags due work per group', async () => {
      const p = uniquePrefix('due');
      await create(p, ['g', 'idle']);
      await add(p, 1, member('m1', { memberLeaseExpiresAt: T0 - 5 }));
      await add(p, 1, member('m2', { rebalanceDeadlineAt: T0 - 1, currentAssignment: [3] }));
      expect(await t.store.readDue(p, 'g', T0, 10)).toEqual({
        expired: ['m1'],
        deadlines: ['m2'],
        timers: [],
        assignmentDue: false,
      });
      await commit(p, 1, [{ k: 'bump', group: 1, metadata: 1, at: T0 }]);
      const probe = await t.store.probeStream(p, T0);
      expect(probe?.groups).toEqual([
        {
          name: 'g',
          exists: true,
          assignmentDue: true,
          leaseDue: true,
          deadlineDue: true,
          timerDue: false,
          roundOpen: false,
          nextAt: T0,
        },
        {
          name: 'idle',
          exists: true,
          assignmentDue: false,
          leaseDue: false,
          deadlineDue: false,
          timerDue: false,
          roundOpen: false,
          nextAt: null,
        },
      ]);
    });

    it('says when each group is next due: a lease just after it ends, a deadline or timer at its time', async () => {
      const p = uniquePrefix('next');
      await create(p, ['lease', 'deadline']);
      await add(p, 1, member('m1', { memberLeaseExpiresAt: T0 + 100 }), [], 'lease');
      await add(
        p,
        1,
        member('m2', {
          memberLeaseExpiresAt: T0 + 900,
          rebalanceDeadlineAt: T0 + 50,
          currentAssignment: [3],
        }),
        [],
        'deadline',
      );
      const probe = await t.store.probeStream(p, T0);
      expect(probe?.groups.map((g) => [g.name, g.nextAt, g.leaseDue, g.deadlineDue])).toEqual([
        ['deadline', T0 + 50, false, false],
        ['lease', T0 + 101, false, false],
      ]);
      const later = await t.store.probeStream(p, T0 + 101);
      expect(later?.groups.map((g) => [g.name, g.leaseDue, g.deadlineDue])).toEqual([
        ['deadline', false, true],
        ['lease', true, false],
      ]);
    });

    it('records when the oldest unassigned change was made, until a round assigns every change', async () => {
      const p = uniquePrefix('pending');
      await create(p);
      const pendingSince = async () => (await view(p, 'nobody')).header.pendingSince;
      expect(await pendingSince()).toBeUndefined();
      await commit(p, 1, [{ k: 'bump', group: 1, metadata: 1, at: T0 + 10 }]);
      // A later change keeps the oldest one's time.
      await commit(p, 1, [{ k: 'bump', group: 1, metadata: 1, at: T0 + 20 }]);
      expect(await pendingSince()).toBe(T0 + 10);
      // A round that assigned only the first change: the rest counts from the round.
      await commit(p, 1, [{ k: 'assignment-epoch', value: 2, at: T0 + 30 }]);
      expect(await pendingSince()).toBe(T0 + 30);
      await commit(p, 1, [{ k: 'assignment-epoch', value: 3, at: T0 + 40 }]);
      expect(await pendingSince()).toBeUndefined();
      // A metadata-only bump is no membership change.
      await commit(p, 1, [{ k: 'bump', group: 0, metadata: 1, at: T0 + 50 }]);
      expect(await pendingSince()).toBeUndefined();
    });

    it('reads named members: record with its revision and merged lease, target, and nothing for an unknown id', async () => {
      const p = uniquePrefix('members');
      await create(p);
      const m = member('m1', { currentAssignment: [0], memberLeaseExpiresAt: T0 + 15_000 });
      await add(p, 1, m, [0, 1]);
      await commit(p, 1, [{ k: 'lease', member: 'm1', at: T0 + 20_000 }]);
      const r = await t.store.readMembers(p, 'g', ['m1', 'nobody']);
      expect(r?.streamRev).toBe(1);
      expect(r?.header).toMatchObject({ groupEpoch: 1, assignmentEpoch: 1, metadataVersion: 1 });
      expect(r?.members.get('m1')).toEqual({
        stored: { rev: 1, record: { ...m, memberLeaseExpiresAt: T0 + 20_000 } },
        target: [0, 1],
      });
      expect(r?.members.get('nobody')).toEqual({ stored: null, target: [] });
    });

    it('answers null from every group read of a stream or group that does not exist', async () => {
      const p = uniquePrefix('gone');
      const none = uniquePrefix('none');
      await create(p);
      for (const [prefix, group] of [
        [none, 'g'],
        [p, 'other'],
      ] as const) {
        expect(await t.store.readAssignment(prefix, group, T0, 'tok', 1000)).toBeNull();
        expect(await t.store.readMembers(prefix, group, ['m1'])).toBeNull();
        expect(await t.store.readDue(prefix, group, T0, 10)).toBeNull();
      }
      expect(await t.store.probeStream(none, T0)).toBeNull();
      expect((await t.store.readMember({ ...readReq(p, 'm1'), group: 'other' })).kind).toBe('no-group');
    });

    it('takes a mutex, renews it for the same token (a resent acquire after a lost reply), refuses others, releases only its own', async () => {
      const p = uniquePrefix('lock');
      expect(await t.store.tryLock(p, 'a', 5000)).toBe(true);
      expect(await t.store.tryLock(p, 'a', 5000)).toBe(true);
      expect(await t.store.tryLock(p, 'b', 5000)).toBe(false);
      await t.store.unlock(p, 'b');
      expect(await t.store.tryLock(p, 'b', 5000)).toBe(false);
      // The group's assignment lock is a different key.
      expect(await t.store.tryLock(p, 'b', 5000, 'g')).toBe(true);
      await t.store.unlock(p, 'a');
      expect(await t.store.tryLock(p, 'b', 5000)).toBe(true);
      expect(await t.raw.pttl(streamKeys(t.ns, p).lock)).toBeGreaterThan(0);
    });
  });
}
