import { describe, expect, it } from 'vitest';
import { assignmentSummaries, invariantViolations, observedAt } from '../../src/core/group-view.js';
import { Driver } from '../support/protocol-driver.js';

/** A settled on [0,1]; B joined with shard 1 pending. */
async function handover(): Promise<Driver> {
  const d = await Driver.open(2);
  await d.joinAndSettle('A');
  await d.beat('B', { epoch: 0, mv: 0 });
  return d;
}

describe('group view > invariant violations', () => {
  it('reports nothing for a consistent group, also mid-handover', async () => {
    const d = await handover();
    expect(invariantViolations(d.stream, d.group)).toEqual([]);
  });

  it('reports targets of unknown members, shards without or with duplicate target owners, and an epoch mismatch', async () => {
    const d = await handover();
    const g = { ...d.group, targetAssignments: { A: [0], B: [0], Z: [] }, assignmentEpoch: 2 };
    expect(invariantViolations(d.stream, g)).toEqual([
      'target assignment references unknown member Z',
      'readable shard ShardId(shardIndex=1) has no target owner',
      'readable shard ShardId(shardIndex=0) has duplicate target owners [A, B]',
      'assignmentEpoch 2 does not match groupEpoch 3',
    ]);
  });

  it('reports a shard held by two members', async () => {
    const d = await handover();
    d.group.members.B = { ...d.member('B'), grantedAssignment: [1] };
    expect(invariantViolations(d.stream, d.group)).toEqual([
      'shard ShardId(shardIndex=1) is held by more than one member [A, B]',
    ]);
  });

  it('checks "no target owner" only when some member is ACTIVE, over the consumable set', async () => {
    const d = await Driver.open(3);
    await d.produce(2); // an entry nobody read keeps the removed shard draining
    await d.scale(2);
    expect(d.stream.removedShards).toMatchObject([{ shard: 2, state: 'DRAINING' }]);
    expect(invariantViolations(d.stream, d.group)).toEqual([]);
    await d.joinAndSettle('A');
    expect(d.group.targetAssignments).toEqual({ A: [0, 1, 2] });
    d.group.targetAssignments = { A: [0, 1] };
    expect(invariantViolations(d.stream, d.group)).toEqual([
      'readable shard ShardId(shardIndex=2) has no target owner',
    ]);
  });
});

describe('group view > assignment summaries', () => {
  it('counts targets of every live member and current shards of live and leaving holders', async () => {
    const d = await handover();
    expect(assignmentSummaries(d.group)).toEqual({ target: { A: 1, B: 1 }, current: { A: 2 } });
    await d.beat('A', { epoch: -1, mv: 3, revoking: [{ shard: 0, state: 'DRAINING' }] });
    expect(assignmentSummaries(d.group)).toEqual({ target: { B: 2 }, current: {} });
  });
});

describe('group view > as observed now', () => {
  it('shows a live member whose lease lapsed as EXPIRED, out of the current owners, its record kept', async () => {
    const d = await Driver.open(4);
    const last = { A: await d.joinAndSettle('A'), B: await d.joinAndSettle('B') };
    // A hands two shards over to B: both then hold two.
    for (let round = 0; round < 3; round++) {
      for (const id of ['A', 'B'] as const) {
        const a = last[id];
        last[id] = await d.beat(id, { epoch: a.memberEpoch, mv: a.metadataVersion, owned: a.assignedShards });
      }
    }
    expect(d.member('B').currentAssignment).toHaveLength(2);
    const lease = d.member('A').memberLeaseExpiresAt;
    expect(observedAt(d.group, lease)).toBe(d.group);
    const group = {
      ...d.group,
      members: { ...d.group.members, B: { ...d.member('B'), memberLeaseExpiresAt: lease + 60_000 } },
    };
    const seen = observedAt(group, lease + 1);
    expect(seen.members.A).toMatchObject({ state: 'EXPIRED', memberEpoch: d.member('A').memberEpoch });
    expect(seen.members.A!.currentAssignment).toEqual(d.member('A').currentAssignment);
    expect(seen.members.B!.state).toBe('ACTIVE');
    expect(Object.keys(assignmentSummaries(seen).current)).toEqual(['B']);
    expect(Object.keys(assignmentSummaries(group).current).sort()).toEqual(['A', 'B']);
    // Nothing is written: the stored document is unchanged.
    expect(d.member('A').state).toBe('ACTIVE');
  });

  it('derives the group state from what is left live (every lease lapsed → EMPTY)', async () => {
    const d = await Driver.open(2);
    await d.joinAndSettle('A');
    expect(d.group.state).toBe('STABLE');
    const seen = observedAt(d.group, d.member('A').memberLeaseExpiresAt + 1);
    expect(seen.state).toBe('EMPTY');
  });
});
