import { describe, expect, it } from 'vitest';
import { CONFIG, Driver } from '../support/protocol-driver.js';

/** A settled on [0,1] and B settled on [2,3] of a 4-shard stream (epochs 3, version 3). */
async function twoSettled(): Promise<Driver> {
  const d = await Driver.open(4);
  await d.joinAndSettle('A');
  const b = await d.beat('B', { epoch: 0, mv: 0 });
  const a = await d.beat('A', { epoch: 2, mv: 2, owned: [0, 1, 2, 3] });
  await d.beat('A', { epoch: a.memberEpoch, mv: a.metadataVersion, owned: a.assignedShards });
  const b2 = await d.beat('B', { epoch: b.memberEpoch, mv: b.metadataVersion });
  await d.beat('B', { epoch: b2.memberEpoch, mv: b2.metadataVersion, owned: b2.assignedShards });
  expect(d.group.targetAssignments).toEqual({ A: [0, 1], B: [2, 3] });
  expect(d.group.state).toBe('STABLE');
  return d;
}

describe('heartbeat > ownership validation', () => {
  it('fences a member that reports a shard another member holds; its own holdings keep blocking', async () => {
    const d = await twoSettled();
    const r = await d.beat('A', { epoch: 3, mv: 3, owned: [0, 1, 2] });
    expect(r).toMatchObject({
      status: 'FENCED_MEMBER_EPOCH',
      memberEpoch: 4,
      groupEpoch: 4,
      metadataVersion: 4,
      assignedShards: [],
    });
    expect(d.member('A')).toMatchObject({ state: 'FENCED', fence: 'BLOCKING', currentAssignment: [0, 1] });
    // B is now the only target member, but A's holdings are not handed over.
    expect(await d.beat('B', { epoch: 3, mv: 3, owned: [2, 3] })).toMatchObject({
      assignedShards: [2, 3],
      pendingShards: [0, 1],
    });
  });

  it('fences on a non-terminal revoking report outside the authority', async () => {
    const d = await twoSettled();
    expect(
      (await d.beat('A', { epoch: 3, mv: 3, owned: [0, 1], revoking: [{ shard: 3, state: 'DRAINING' }] }))
        .status,
    ).toBe('FENCED_MEMBER_EPOCH');
  });

  it('fences on progress for a shard outside the authority', async () => {
    const d = await twoSettled();
    expect((await d.beat('A', { epoch: 3, mv: 3, owned: [0, 1], progress: [3] })).status).toBe(
      'FENCED_MEMBER_EPOCH',
    );
  });

  it('silently drops terminal revoke reports for shards it never held (duplicate REVOKED acks are harmless)', async () => {
    const d = await twoSettled();
    const r = await d.beat('A', {
      epoch: 3,
      mv: 3,
      owned: [0, 1],
      revoking: [{ shard: 3, state: 'REVOKED', inFlight: 0 }],
    });
    expect(r).toMatchObject({ status: 'OK', assignedShards: [0, 1] });
    expect(d.member('A').revoking).toEqual([]);
  });

  it('accepts a claim on an own target shard that nobody holds, even before it was granted', async () => {
    const d = await Driver.open(2);
    const a = await d.beat('A', { epoch: 0, mv: 0 });
    await d.arrange((g) => {
      g.members.A = { ...d.member('A'), grantedAssignment: [] };
    });
    expect((await d.beat('A', { epoch: a.memberEpoch, mv: 2, owned: [0, 1] })).status).toBe('OK');
  });

  it('treats ownedShards of a LEAVING member as empty', async () => {
    const d = await twoSettled();
    const r = await d.beat('A', { epoch: -1, mv: 3, owned: [0, 1, 2, 3] });
    expect(r).toMatchObject({ status: 'OK', memberEpoch: -1 });
    expect(d.member('A')).toMatchObject({ state: 'LEAVING', currentAssignment: [] });
  });
});

describe('heartbeat > member record update and lease', () => {
  it('records name, version, capacity, current, revoking, progress and renews the lease', async () => {
    const d = await twoSettled();
    d.advance(2000);
    await d.beat('A', {
      epoch: 3,
      mv: 3,
      owned: [1, 0],
      revoking: [],
      progress: [1, 0],
      name: 'orders-consumer',
      capacity: { max: 8, available: 3 },
    });
    expect(d.member('A')).toMatchObject({
      memberName: 'orders-consumer',
      metadataVersion: 3,
      runtimeMaxConcurrency: 8,
      activeConsumerWorkers: 5,
      rebalanceTimeoutMs: CONFIG.rebalanceTimeoutMs,
      currentAssignment: [0, 1],
      lastHeartbeatAt: d.now,
      memberLeaseExpiresAt: d.now + CONFIG.memberLeaseTtlMs,
    });
    expect(d.member('A').shardProgress.map((p) => p.shard)).toEqual([0, 1]);
    // A null name keeps the stored one.
    await d.beat('A', { epoch: 3, mv: 3, owned: [0, 1], name: null });
    expect(d.member('A').memberName).toBe('orders-consumer');
  });

  it('does not renew the lease on fenced or rejected answers', async () => {
    const d = await twoSettled();
    const lease = d.member('A').memberLeaseExpiresAt;
    d.advance(1000);
    await d.beat('A', { epoch: 9, mv: 3, owned: [0, 1] }); // INVALID_REQUEST
    expect(d.member('A').memberLeaseExpiresAt).toBe(lease);
    await d.beat('A', { epoch: 1, mv: 3, owned: [0, 1] }); // stale → FENCED_MEMBER_EPOCH, request only
    expect(d.member('A').memberLeaseExpiresAt).toBe(lease);
    await d.beat('A', { epoch: 3, mv: 3, owned: [0, 1, 2] }); // shard 2 is B's → FENCED record
    expect(d.member('A').memberLeaseExpiresAt).toBe(lease);
    await d.beat('A', { epoch: 4, mv: 4, owned: [0, 1] }); // FENCED record
    expect(d.member('A').memberLeaseExpiresAt).toBe(lease);
  });
});

describe('heartbeat > assignment view per status', () => {
  it('OK: assigned = T − B, pending = T ∩ B, and the grant is recorded', async () => {
    const d = await twoSettled();
    await d.beat('C', { epoch: 0, mv: 0 }); // 4 shards over A, B, C: A keeps the extra slot (smallest id), B gives up its highest shard
    const c = await d.beat('C', { epoch: 4, mv: 4 });
    expect(d.group.targetAssignments).toEqual({ A: [0, 1], B: [2], C: [3] });
    expect(c).toMatchObject({ status: 'OK', assignedShards: [], pendingShards: [3] });
    expect(d.member('C').grantedAssignment).toEqual([]);
  });

  it('SYNC_METADATA: assigned = owned ∩ (T − B), pending = T − assigned', async () => {
    const d = await twoSettled();
    await d.arrange((g) => ({ ...g, metadataVersion: 2 })); // the stored version went backwards
    const r = await d.beat('A', { epoch: 3, mv: 3, owned: [1] });
    expect(r).toMatchObject({
      status: 'SYNC_METADATA',
      memberEpoch: 3,
      metadataVersion: 2,
      assignedShards: [1],
      pendingShards: [0],
    });
    expect(d.member('A').grantedAssignment).toEqual([1]);
  });

  it('REVOKE_PENDING: assigned = current ∩ (T − B), pending = T − assigned', async () => {
    const d = await twoSettled();
    await d.arrange((g) => ({ ...g, metadataVersion: 2 }));
    await d.beat('A', { epoch: 3, mv: 3, owned: [0, 1] }); // opens the round
    const b = await d.beat('B', { epoch: 3, mv: 2, owned: [2] });
    expect(b).toMatchObject({ status: 'REVOKE_PENDING', assignedShards: [2], pendingShards: [3] });
  });

  it('fenced and rejected answers carry empty assignments', async () => {
    const d = await twoSettled();
    expect(await d.beat('A', { epoch: 1, mv: 3, owned: [0, 1] })).toMatchObject({
      assignedShards: [],
      pendingShards: [],
    });
    expect(await d.beat('B', { epoch: 99, mv: 3 })).toMatchObject({ assignedShards: [], pendingShards: [] });
  });
});
