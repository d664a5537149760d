import { describe, expect, it } from 'vitest';
import { assignmentSummaries, invariantViolations } from './group-view.js';
import { Driver, streamDoc } from './testing/fixtures.js';

/** A settled on [0,1]; B joined with shard 1 pending. */
function handover(): Driver {
  const d = new Driver(streamDoc(2));
  d.joinAndSettle('A');
  d.beat('B', { epoch: 0, mv: 0 });
  return d;
}

describe('group view > invariant violations (PROTOCOL §2.9)', () => {
  it('reports nothing for a consistent group, also mid-handover', () => {
    const d = handover();
    expect(invariantViolations(d.stream, d.group)).toEqual([]);
  });

  it('reports targets of unknown members, shards without or with duplicate target owners, and an epoch mismatch', () => {
    const d = handover();
    const g = { ...d.group, targetAssignments: { A: [0], B: [0], Z: [] }, assignmentEpoch: 2 };
    expect(invariantViolations(d.stream, g)).toEqual([
      'target assignment references unknown member Z',
      'readable shard ShardId(shardIndex=1) has no target owner',
      'readable shard ShardId(shardIndex=0) has duplicate target owners [A, B]',
      'assignmentEpoch 2 does not match groupEpoch 3',
    ]);
  });

  it('reports a shard held by two members', () => {
    const d = handover();
    d.group.members.B = { ...d.member('B'), grantedAssignment: [1] };
    expect(invariantViolations(d.stream, d.group)).toEqual([
      'shard ShardId(shardIndex=1) is held by more than one member [A, B]',
    ]);
  });

  it('checks "no target owner" only when some member is ACTIVE, over the consumable set', () => {
    const d = new Driver({
      ...streamDoc(2),
      removedShards: [{ shard: 2, state: 'DRAINING', reason: null, updatedAt: 0 }],
    });
    expect(invariantViolations(d.stream, d.group)).toEqual([]);
    d.joinAndSettle('A');
    expect(d.group.targetAssignments).toEqual({ A: [0, 1, 2] });
    d.group.targetAssignments = { A: [0, 1] };
    expect(invariantViolations(d.stream, d.group)).toEqual([
      'readable shard ShardId(shardIndex=2) has no target owner',
    ]);
  });
});

describe('group view > assignment summaries (PROTOCOL §2.2)', () => {
  it('counts targets of every live member and current shards of live and leaving holders', () => {
    const d = handover();
    expect(assignmentSummaries(d.group)).toEqual({ target: { A: 1, B: 1 }, current: { A: 2 } });
    d.beat('A', { epoch: -1, mv: 3, revoking: [{ shard: 0, state: 'DRAINING' }] });
    expect(assignmentSummaries(d.group)).toEqual({ target: { B: 2 }, current: {} });
  });
});
