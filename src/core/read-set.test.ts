import { describe, expect, it } from 'vitest';
import { member } from '../../test/support/store-fixtures.js';
import { memberOps, type PlanOp } from './commit-plan.js';
import type { GroupHeader } from './member-view.js';
import {
  type MemberReadParts,
  mergeReads,
  newReadSet,
  recordingDueMember,
  recordingOwners,
  recordingView,
  withChecks,
} from './read-set.js';

const T = 1_000_000;
const header: GroupHeader = {
  groupEpoch: 3,
  assignmentEpoch: 3,
  metadataVersion: 3,
  correction: null,
  createdAt: 0,
  updatedAt: 0,
};

/** m holds shard 0, B holds shard 1 (live), shard 2 is free; m's target is [0, 1, 2]. */
function read(over: Partial<MemberReadParts> = {}): MemberReadParts {
  return {
    head: { shardCount: 4, extraConsumable: [], extraAssignable: [], resharding: false },
    header,
    member: {
      rev: 7,
      record: member('m', {
        currentAssignment: [0],
        rebalanceDeadlineAt: T + 60_000,
        memberLeaseExpiresAt: T + 5,
      }),
    },
    target: [0, 1, 2],
    targetStored: true,
    owners: new Map([
      [0, { memberId: 'm', kind: 'c' as const }],
      [1, { memberId: 'B', kind: 'c' as const }],
      [2, null],
    ]),
    holders: new Map([['B', 'A' as const]]),
    acknowledged: false,
    liveMembers: 2,
    ...over,
  };
}

describe('read set > a member view records what a decision consults', () => {
  it('records nothing until the decision looks', () => {
    const reads = newReadSet();
    const view = recordingView(read(), 'm', reads, T);
    expect(view.header).toBe(header);
    expect(withChecks(reads, [])).toEqual([]);
  });

  it('records the record with its deadline, the lease once it ran out, the target, entries and other holders', () => {
    const reads = newReadSet();
    const view = recordingView(read(), 'm', reads, T);
    void view.member;
    void view.target;
    expect([0, 1, 2].map((s) => view.blockedByOther(s))).toEqual([false, true, false]);
    expect(withChecks(reads, [])).toEqual([
      { k: 'record-rev', member: 'm', rev: 7 },
      { k: 'target-is', member: 'm', target: [0, 1, 2] },
      { k: 'deadline-is', member: 'm', at: T + 60_000 },
      { k: 'owner-is', shard: 0, owner: { memberId: 'm', kind: 'c' } },
      { k: 'owner-is', shard: 1, owner: { memberId: 'B', kind: 'c' } },
      { k: 'owner-is', shard: 2, owner: null },
      { k: 'status-is', member: 'B', status: 'A' },
    ]);
    const later = newReadSet();
    void recordingView(read(), 'm', later, T + 6).member;
    expect(withChecks(later, [])).toContainEqual({ k: 'lease-at-most', member: 'm', lease: T + 5 });
  });

  it('records an absent record and an absent target as absent', () => {
    const reads = newReadSet();
    const view = recordingView(read({ member: null, target: [], targetStored: false }), 'm', reads, T);
    expect(view.member).toBeNull();
    expect(view.target).toEqual([]);
    expect(withChecks(reads, [])).toEqual([
      { k: 'record-rev', member: 'm', rev: null },
      { k: 'target-is', member: 'm', target: null },
    ]);
  });

  it('records a due member’s target loosely (the read cannot tell absent from empty)', () => {
    const reads = newReadSet();
    const due = recordingDueMember('m', { rev: 2, record: member('m') }, () => [], reads, T);
    void due.target;
    expect(withChecks(reads, [])).toEqual([{ k: 'target-is', member: 'm', target: [], emptyIfAbsent: true }]);
  });
});

describe('read set > plans', () => {
  it('puts the read set’s checks first, keeps a plan’s own checks once and every write', () => {
    const reads = newReadSet();
    const view = recordingView(read(), 'm', reads, T);
    const before = { rev: 7, record: view.member! };
    const after = { ...before.record, grantedAssignment: [2] };
    const ops = memberOps('m', before, after, {
      owners: recordingOwners(read().owners, reads),
      staleMemberRetentionMs: 600_000,
    });
    const bump: PlanOp = { k: 'bump', group: 1, metadata: 1, at: T };
    const plan = withChecks(reads, [...ops, bump, bump]);
    expect(plan.filter((op) => op.k === 'record-rev')).toEqual([{ k: 'record-rev', member: 'm', rev: 7 }]);
    const owners = plan.filter((op) => op.k === 'owner-is').sort((x, y) => x.shard - y.shard);
    expect(owners).toEqual([
      { k: 'owner-is', shard: 0, owner: { memberId: 'm', kind: 'c' } },
      { k: 'owner-is', shard: 2, owner: null },
    ]);
    expect(plan.filter((op) => op.k === 'bump')).toEqual([bump, bump]);
    const firstWrite = plan.findIndex((op) => op.k === 'record');
    expect(plan.slice(firstWrite).every((op) => !op.k.endsWith('-is') && op.k !== 'record-rev')).toBe(true);
  });

  it('merges the facts of several members', () => {
    const a = newReadSet();
    const b = newReadSet();
    void recordingView(read(), 'm', a, T).member;
    void recordingView(read({ member: { rev: 1, record: member('n') } }), 'n', b, T).member;
    mergeReads(a, b);
    expect(withChecks(a, []).filter((op) => op.k === 'record-rev')).toEqual([
      { k: 'record-rev', member: 'm', rev: 7 },
      { k: 'record-rev', member: 'n', rev: 1 },
    ]);
  });
});
