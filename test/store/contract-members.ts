/**
 * The Store contract, member records and their indexes: assembly on load, lease and live entries,
 * the checks a commit makes, ownership release and concurrent joins. Declared inside
 * `defineStoreContract`, so every store runs it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { memberOps, type PlanOp } from '../../src/core/commit-plan.js';
import { uniquePrefix } from '../support/redis.js';
import { member, T0 } from '../support/store-fixtures.js';
import type { ContractTarget } from './contract.js';
import { contractKit, PROGRESS, RETENTION } from './contract-kit.js';

/** Declares the member records and their indexes cases on the target `get` returns. */
export function defineMemberContract(get: () => ContractTarget): void {
  const { create, commit, add, view, dump } = contractKit(get);
  let t: ContractTarget;
  beforeAll(() => {
    t = get();
  });

  describe('member records and their indexes', () => {
    it('assembles records on load: lease and heartbeat time by maximum, progress, deadline, target, round', async () => {
      const p = uniquePrefix('assemble');
      await create(p);
      const m = member('m1', {
        currentAssignment: [0, 1],
        grantedAssignment: [0, 1],
        rebalanceDeadlineAt: T0 + 60_000,
        shardProgress: PROGRESS,
      });
      await add(p, 1, m, [0, 1]);
      // A fresher lease and heartbeat time written beside the record (as the fast path does).
      await commit(p, 1, [
        { k: 'lease', member: 'm1', at: T0 + 30_000 },
        { k: 'live', member: 'm1', at: T0 + 9000, progress: null },
        {
          k: 'round',
          round: { targetMetadataVersion: 1, observedMetadataVersion: 4, requestedAt: T0, updatedAt: T0 },
          freshAcks: true,
        },
        { k: 'ack', member: 'm1' },
      ]);
      const g = (await t.store.load(p, ['g']))!.groups.g!;
      expect(g.members.m1).toEqual({
        ...m,
        memberLeaseExpiresAt: T0 + 30_000,
        lastHeartbeatAt: T0 + 9000,
        shardProgress: PROGRESS,
      });
      expect(g.targetAssignments).toEqual({ m1: [0, 1] });
      expect(g.metadataCorrection).toEqual({
        targetMetadataVersion: 1,
        observedMetadataVersion: 4,
        requestedAt: T0,
        updatedAt: T0,
        acknowledgedMembers: ['m1'],
      });
      expect(g.state).toBe('STABLE');
    });

    it('never lowers a lease, keeps the newest live entry, and a time-only write keeps the progress', async () => {
      const p = uniquePrefix('live');
      await create(p);
      await add(
        p,
        1,
        member('m1', {
          memberLeaseExpiresAt: T0 + 20_000,
          shardProgress: PROGRESS,
          lastHeartbeatAt: T0 + 5,
        }),
      );
      await commit(p, 1, [
        { k: 'lease', member: 'm1', at: T0 + 10_000 },
        { k: 'live', member: 'm1', at: T0 + 1, progress: [] },
        { k: 'live', member: 'm1', at: T0 + 50, progress: null },
      ]);
      const m = (await t.store.load(p, ['g']))!.groups.g!.members.m1!;
      expect(m.memberLeaseExpiresAt).toBe(T0 + 20_000);
      expect(m.lastHeartbeatAt).toBe(T0 + 50);
      expect(m.shardProgress).toEqual(PROGRESS);
    });

    it('refuses a write whose record, target, ownership entry or round changed, writing nothing', async () => {
      const p = uniquePrefix('checks');
      await create(p);
      await add(p, 1, member('m1', { currentAssignment: [0] }), [0]);
      const before = await dump(p);
      const write: PlanOp = { k: 'touch', at: T0 + 99 };
      const refused: PlanOp[][] = [
        [{ k: 'record-rev', member: 'm1', rev: 7 }, write],
        [{ k: 'record-rev', member: 'm2', rev: 1 }, write],
        [{ k: 'target-is', member: 'm1', target: [0, 1] }, write],
        [{ k: 'target-is', member: 'm2', target: [] }, write],
        [{ k: 'owner-is', shard: 0, owner: null }, write],
        [{ k: 'owner-is', shard: 0, owner: { memberId: 'm1', kind: 'g' } }, write],
        [{ k: 'owner-mine', shard: 0, member: 'm2' }, write],
        [
          {
            k: 'round-is',
            round: { targetMetadataVersion: 1, observedMetadataVersion: 2, requestedAt: 0, updatedAt: 0 },
          },
          write,
        ],
        [{ k: 'token-is', token: 'nobody' }, write],
      ];
      for (const ops of refused) expect((await commit(p, 1, ops)).ok, JSON.stringify(ops[0])).toBe(false);
      expect(await dump(p)).toEqual(before);
      const accepted: PlanOp[] = [
        { k: 'record-rev', member: 'm1', rev: 1 },
        { k: 'record-rev', member: 'm2', rev: null },
        { k: 'target-is', member: 'm1', target: [0] },
        { k: 'target-is', member: 'm2', target: null },
        { k: 'owner-is', shard: 0, owner: { memberId: 'm1', kind: 'c' } },
        { k: 'owner-is', shard: 1, owner: null },
        { k: 'owner-mine', shard: 0, member: 'm1' },
        { k: 'owner-mine', shard: 1, member: 'm2' },
        { k: 'round-is', round: null },
        write,
      ];
      expect((await commit(p, 1, accepted)).ok).toBe(true);
    });

    it('refuses an expiry when the member renewed its lease after the decision', async () => {
      const p = uniquePrefix('expiry');
      await create(p);
      await add(p, 1, member('m1', { memberLeaseExpiresAt: T0 + 15_000 }));
      await commit(p, 1, [{ k: 'lease', member: 'm1', at: T0 + 18_000 }]);
      expect(
        (
          await commit(p, 1, [
            { k: 'lease-at-most', member: 'm1', lease: T0 + 15_000 },
            { k: 'drop-lease', member: 'm1' },
          ])
        ).ok,
      ).toBe(false);
      expect(
        (
          await commit(p, 1, [
            { k: 'lease-at-most', member: 'm1', lease: T0 + 18_000 },
            { k: 'drop-lease', member: 'm1' },
          ])
        ).ok,
      ).toBe(true);
      expect((await commit(p, 1, [{ k: 'lease-at-most', member: 'm1', lease: 0 }])).ok).toBe(true);
    });

    it('releases an ownership entry only for the member holding it', async () => {
      const p = uniquePrefix('owners');
      await create(p);
      await add(p, 1, member('m1', { currentAssignment: [0, 1] }));
      await commit(p, 1, [
        { k: 'release-owner', shard: 0, member: 'm2' },
        { k: 'release-owner', shard: 1, member: 'm1' },
      ]);
      const v = await view(p, 'x', { shards: [0, 1] });
      expect(v.owners.get(0)).toEqual({ memberId: 'm1', kind: 'c' });
      expect(v.owners.get(1)).toBeNull();
    });

    it('gives concurrent joiners distinct epochs: the group epoch right after each one’s own bump', async () => {
      const p = uniquePrefix('joins');
      await create(p);
      const ids = Array.from({ length: 6 }, (_, i) => `j${i}`);
      await Promise.all(
        ids.map((id) =>
          t.store.commit({
            prefix: p,
            expect: { rev: 1 },
            groups: [
              {
                name: 'g',
                ops: [
                  { k: 'group-exists' },
                  ...memberOps(id, null, member(id), { owners: new Map(), ...RETENTION, joinedFloor: 0 }),
                  { k: 'bump', group: 1, metadata: 1, at: T0 },
                ],
              },
            ],
          }),
        ),
      );
      const g = (await t.store.load(p, ['g']))!.groups.g!;
      expect(g.groupEpoch).toBe(7);
      expect(ids.map((id) => g.members[id]!.memberEpoch).sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7]);
    });
  });
}
