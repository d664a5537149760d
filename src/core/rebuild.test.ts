import { describe, expect, it } from 'vitest';
import { CONFIG, T0 } from '../../test/support/heartbeat-fixtures.js';
import type { PlanOp, RecordAt } from './commit-plan.js';
import type { GroupHeader } from './member-view.js';
import type { MemberRecord } from './model.js';
import { rebuildPlan, resetPlan } from './rebuild.js';

const HEADER: GroupHeader = {
  groupEpoch: 7,
  assignmentEpoch: 7,
  metadataVersion: 5,
  correction: null,
  createdAt: T0 - 1000,
  updatedAt: T0,
};

function rec(id: string, over: Partial<MemberRecord> = {}): RecordAt {
  return {
    rev: 3,
    record: {
      memberId: id,
      memberName: id,
      state: 'ACTIVE',
      memberEpoch: 7,
      previousEpoch: null,
      metadataVersion: 5,
      runtimeMaxConcurrency: 1,
      activeConsumerWorkers: 0,
      currentAssignment: [],
      grantedAssignment: [],
      revoking: [],
      lastHeartbeatAt: T0,
      memberLeaseExpiresAt: T0 + CONFIG.memberLeaseTtlMs,
      rebalanceTimeoutMs: CONFIG.rebalanceTimeoutMs,
      rebalanceDeadlineAt: null,
      shardProgress: [],
      fence: null,
      ...over,
    },
  };
}

function input(members: RecordAt[], lost: string[] = ['o']) {
  return {
    header: HEADER,
    members: new Map(members.map((m) => [m.record.memberId, m])),
    unreadable: [],
    recordedMembers: members.length,
    leases: new Map<string, number>(),
    heartbeats: new Map<string, number>(),
    lost,
  };
}

const of = <K extends PlanOp['k']>(ops: PlanOp[], k: K) =>
  ops.filter((o): o is Extract<PlanOp, { k: K }> => o.k === k);

describe('rebuilding a group > from its member records', () => {
  it('restores statuses, ownership, leases and timers exactly as the records imply, checked against the records read', () => {
    const a = rec('A', { currentAssignment: [0, 1], revoking: [2] });
    const b = rec('B', { grantedAssignment: [3] });
    const f = rec('F', {
      state: 'FENCED',
      fence: 'BLOCKING',
      currentAssignment: [4],
      memberLeaseExpiresAt: T0 + 50,
    });
    const plan = rebuildPlan(input([a, b, f]), T0, CONFIG);
    if (!plan.ok) throw new Error(plan.reason);
    expect(of(plan.ops, 'members-are')).toEqual([{ k: 'members-are', count: 3 }]);
    expect(of(plan.ops, 'record-rev').map((o) => o.member)).toEqual(['A', 'B', 'F']);
    expect(of(plan.ops, 'wipe-index').map((o) => o.index)).toEqual([
      'status',
      'owners',
      'leases',
      'timers',
      'fast',
    ]);
    expect(of(plan.ops, 'status').map((o) => [o.member, o.status])).toEqual([
      ['A', 'A'],
      ['B', 'A'],
      ['F', 'B'],
    ]);
    expect(of(plan.ops, 'owner').map((o) => [o.shard, o.owner.memberId, o.owner.kind])).toEqual([
      [0, 'A', 'c'],
      [1, 'A', 'c'],
      [2, 'A', 'r'],
      [3, 'B', 'g'],
      [4, 'F', 'c'],
    ]);
    expect(of(plan.ops, 'lease').map((o) => o.member)).toEqual(['A', 'B']);
    expect(of(plan.ops, 'timer')).toEqual([{ k: 'timer', member: 'F', at: T0 + 51 }]);
    // Targets are kept when they were not lost: no round is forced.
    expect(of(plan.ops, 'bump')).toEqual([]);
  });

  it('never shortens a lease the index or the heartbeat log shows renewed', () => {
    const a = rec('A');
    const i = input([a]);
    i.leases.set('A', T0 + 9000);
    i.heartbeats.set('A', T0 + 8000);
    const plan = rebuildPlan(i, T0, CONFIG);
    if (!plan.ok) throw new Error(plan.reason);
    expect(of(plan.ops, 'lease')[0]?.at).toBe(Math.max(T0 + 9000, T0 + 8000 + CONFIG.memberLeaseTtlMs));
  });

  it('clears lost targets and makes a round due', () => {
    const plan = rebuildPlan(input([rec('A', { currentAssignment: [0] })], ['t']), T0, CONFIG);
    if (!plan.ok) throw new Error(plan.reason);
    expect(of(plan.ops, 'wipe-index').map((o) => o.index)).toContain('targets');
    expect(of(plan.ops, 'bump')).toEqual([{ k: 'bump', group: 1, metadata: 0, at: T0 }]);
  });

  it('refuses records that contradict each other, a lost header, or an unreadable record', () => {
    const twice = rebuildPlan(
      input([rec('A', { currentAssignment: [1] }), rec('B', { grantedAssignment: [1] })]),
      T0,
      CONFIG,
    );
    expect(twice).toEqual({ ok: false, reason: 'members "A" and "B" both hold shard 1 in their records' });
    expect(rebuildPlan({ ...input([rec('A')]), header: null }, T0, CONFIG).ok).toBe(false);
    expect(rebuildPlan({ ...input([rec('A')]), unreadable: ['B'] }, T0, CONFIG).ok).toBe(false);
    expect(rebuildPlan({ ...input([rec('A')]), recordedMembers: 2 }, T0, CONFIG)).toEqual({
      ok: false,
      reason: 'its header recorded 2 member records and 1 are left',
    });
  });
});

describe('resetting a group > epochs never go backwards', () => {
  it('starts above every epoch and version the header or any record shows, behind a hold of one lease', () => {
    const a = rec('A', { memberEpoch: 12, previousEpoch: 11, metadataVersion: 9 });
    const ops = resetPlan(
      { header: HEADER, members: new Map([['A', a]]), memberCount: 2, highestEpoch: 8 },
      T0,
      CONFIG,
    );
    expect(ops).toEqual([
      { k: 'members-are', count: 2 },
      {
        k: 'reset-group',
        groupEpoch: 13,
        metadataVersion: 10,
        createdAt: HEADER.createdAt,
        at: T0,
        holdUntil: T0 + CONFIG.memberLeaseTtlMs,
      },
    ]);
  });

  it('without a header or records, starts above the highest epoch the stream recorded', () => {
    const ops = resetPlan({ header: null, members: new Map(), memberCount: 0, highestEpoch: 21 }, T0, CONFIG);
    expect(ops[1]).toMatchObject({ groupEpoch: 22, metadataVersion: 1, createdAt: T0 });
  });
});
