import { describe, expect, it } from 'vitest';
import { Driver } from '../support/protocol-driver.js';

describe('heartbeat > worked example of the protocol (2 shards)', () => {
  it('reproduces every step with exact epochs, versions and assignments', async () => {
    const d = await Driver.open(2);
    // create
    expect(d.group).toMatchObject({ groupEpoch: 1, assignmentEpoch: 1, metadataVersion: 1, state: 'EMPTY' });

    // A joins (E=0, mv=0)
    const a1 = await d.beat('A', { epoch: 0, mv: 0 });
    expect(a1).toMatchObject({
      status: 'OK',
      memberEpoch: 2,
      groupEpoch: 2,
      assignmentEpoch: 2,
      metadataVersion: 2,
      assignedShards: [0, 1],
      pendingShards: [],
      assignmentMetadataVersion: 2,
    });
    expect(d.group.state).toBe('RECONCILING');

    // A sends E=2, owned [0,1]: OK, nothing bumps, STABLE
    const a2 = await d.beat('A', { epoch: 2, mv: 2, owned: [0, 1] });
    expect(a2).toMatchObject({
      status: 'OK',
      memberEpoch: 2,
      groupEpoch: 2,
      assignmentEpoch: 2,
      metadataVersion: 2,
    });
    expect(a2.assignedShards).toEqual([0, 1]);
    expect(d.group.state).toBe('STABLE');

    // B joins: group epoch 3; B's target {1} is still held by A
    const b1 = await d.beat('B', { epoch: 0, mv: 0 });
    expect(b1).toMatchObject({
      status: 'OK',
      memberEpoch: 3,
      groupEpoch: 3,
      assignmentEpoch: 3,
      metadataVersion: 3,
      assignedShards: [],
      pendingShards: [1],
    });
    expect(d.group.targetAssignments).toEqual({ A: [0], B: [1] });
    expect(d.group.state).toBe('RECONCILING');

    // A sends E=2, owned [0,1]: OK, memberEpoch 3, assigned [0] (shard 1 revoked by omission)
    const a3 = await d.beat('A', { epoch: 2, mv: 2, owned: [0, 1] });
    expect(a3).toMatchObject({
      status: 'OK',
      memberEpoch: 3,
      groupEpoch: 3,
      assignedShards: [0],
      pendingShards: [],
    });

    // A sends E=3, owned [0], revoking [{1, REVOKED, 0}]: shard 1 released
    const a4 = await d.beat('A', {
      epoch: 3,
      mv: 3,
      owned: [0],
      revoking: [{ shard: 1, state: 'REVOKED', inFlight: 0 }],
    });
    expect(a4).toMatchObject({ status: 'OK', memberEpoch: 3, assignedShards: [0] });
    expect(d.member('A')).toMatchObject({ currentAssignment: [0], revoking: [], grantedAssignment: [0] });

    // B's next heartbeat (E=3): assigned [1]
    const b2 = await d.beat('B', { epoch: 3, mv: 3 });
    expect(b2).toMatchObject({
      status: 'OK',
      memberEpoch: 3,
      groupEpoch: 3,
      assignedShards: [1],
      pendingShards: [],
    });

    // B reports it: the group is STABLE again, still at epoch 3
    await d.beat('B', { epoch: 3, mv: 3, owned: [1] });
    expect(d.group).toMatchObject({ state: 'STABLE', groupEpoch: 3, assignmentEpoch: 3, metadataVersion: 3 });
  });

  it('also releases shard 1 when A simply omits it (no revoking report)', async () => {
    const d = await Driver.open(2);
    await d.joinAndSettle('A');
    await d.beat('B', { epoch: 0, mv: 0 });
    await d.beat('A', { epoch: 2, mv: 2, owned: [0, 1] });
    await d.beat('A', { epoch: 3, mv: 3, owned: [0] });
    expect((await d.beat('B', { epoch: 3, mv: 3 })).assignedShards).toEqual([1]);
  });
});
