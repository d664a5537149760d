import { describe, expect, it } from 'vitest';
import { CONFIG, Driver, newlyExpired } from '../support/protocol-driver.js';

describe('heartbeat > leave', () => {
  it('lets a LEAVING member report revoke progress with -1 and releases on REVOKED', async () => {
    const d = await Driver.twoSettled();
    await d.beat('A', {
      epoch: -1,
      mv: 3,
      revoking: [
        { shard: 0, state: 'DRAINING' },
        { shard: 1, state: 'REVOKED' },
      ],
    });
    expect(d.member('A').revoking).toEqual([0]);
    expect(await d.beat('B', { epoch: 3, mv: 4, owned: [2, 3] })).toMatchObject({
      assignedShards: [1, 2, 3],
      pendingShards: [0],
    });
    await d.beat('A', { epoch: -1, mv: 4, revoking: [{ shard: 0, state: 'REVOKED' }] });
    expect(d.member('A').revoking).toEqual([]);
    expect((await d.beat('B', { epoch: 4, mv: 4, owned: [1, 2, 3] })).assignedShards).toEqual([0, 1, 2, 3]);
    expect(d.group.groupEpoch).toBe(4);
  });

  it('accepts an epoch-0 rejoin from a LEAVING member', async () => {
    const d = await Driver.twoSettled();
    await d.beat('A', { epoch: -1, mv: 3 });
    expect(await d.beat('A', { epoch: 0, mv: 0 })).toMatchObject({
      status: 'OK',
      memberEpoch: 5,
      groupEpoch: 5,
    });
  });
});

describe('heartbeat > expiry', () => {
  it('expires a live member only once now passes its lease: EXPIRED, epoch + 1, one bump, reconcile', async () => {
    const d = await Driver.twoSettled();
    d.advance(1000);
    await d.beat('B', { epoch: 3, mv: 3, owned: [2, 3] });
    d.advance(CONFIG.memberLeaseTtlMs - 1000); // exactly A's lease
    await d.beat('B', { epoch: 3, mv: 3, owned: [2, 3] });
    expect(d.member('A').state).toBe('ACTIVE');
    d.advance(1);
    const before = d.group;
    const r = await d.beat('B', { epoch: 3, mv: 3, owned: [2, 3] });
    expect(d.member('A')).toMatchObject({ state: 'EXPIRED', memberEpoch: 4, currentAssignment: [0, 1] });
    expect(r).toMatchObject({
      status: 'OK',
      memberEpoch: 4,
      groupEpoch: 4,
      metadataVersion: 4,
      assignedShards: [0, 1, 2, 3],
    });
    expect(newlyExpired(before, d.group)).toEqual([
      { memberId: 'A', observedLeaseExpiresAt: before.members.A!.memberLeaseExpiresAt },
    ]);
  });

  it('bumps once when several members expire in the same pass', async () => {
    const d = await Driver.twoSettled();
    d.advance(CONFIG.memberLeaseTtlMs + 1);
    const g = await d.housekeep();
    expect(g).toMatchObject({ groupEpoch: 4, metadataVersion: 4, state: 'EMPTY', targetAssignments: {} });
    expect(g.members.A?.state).toBe('EXPIRED');
    expect(g.members.B?.state).toBe('EXPIRED');
  });

  it('answers FENCED_MEMBER_EPOCH to an expired member, then accepts its epoch-0 rejoin', async () => {
    const d = await Driver.twoSettled();
    d.advance(CONFIG.memberLeaseTtlMs + 1);
    expect(await d.beat('A', { epoch: 3, mv: 3, owned: [0, 1] })).toMatchObject({
      status: 'FENCED_MEMBER_EPOCH',
      memberEpoch: 4,
    });
    expect(await d.beat('A', { epoch: 0, mv: 0 })).toMatchObject({ status: 'OK', memberEpoch: 5 });
  });
});

describe('heartbeat > pruning', () => {
  it('deletes terminal members once their retention has passed (version + 1 only)', async () => {
    const d = await Driver.twoSettled();
    await d.beat('A', { epoch: -1, mv: 3 }); // LEAVING with nothing held, G=4, M=4
    const leftAt = d.now;
    let b = await d.beat('B', { epoch: 3, mv: 4, owned: [2, 3] });
    while (d.now + 3000 < leftAt + CONFIG.staleMemberRetentionMs) {
      d.advance(3000);
      b = await d.beat('B', { epoch: b.memberEpoch, mv: b.metadataVersion, owned: b.assignedShards });
    }
    expect(d.group.members.A).toBeDefined();
    expect(b).toMatchObject({ status: 'OK', groupEpoch: 4, metadataVersion: 4 });
    d.now = leftAt + CONFIG.staleMemberRetentionMs;
    const r = await d.beat('B', { epoch: 4, mv: 4, owned: [0, 1, 2, 3] });
    expect(d.group.members.A).toBeUndefined();
    expect(r).toMatchObject({ status: 'OK', groupEpoch: 4, metadataVersion: 5 });
    expect((await d.beat('A', { epoch: 3, mv: 4 })).status).toBe('UNKNOWN_MEMBER_ID');
  });

  it('keeps LEAVING members that still hold or revoke shards', async () => {
    const d = await Driver.open(2, { ...CONFIG, rebalanceTimeoutMs: 2 * CONFIG.staleMemberRetentionMs });
    await d.joinAndSettle('A');
    await d.beat('A', { epoch: -1, mv: 2, revoking: [{ shard: 0, state: 'DRAINING' }] });
    d.advance(CONFIG.staleMemberRetentionMs);
    expect((await d.housekeep()).members.A).toMatchObject({ state: 'LEAVING', revoking: [0] });
  });
});

describe('heartbeat > lost-response tolerance', () => {
  it('answers a retry that carries the previous epoch as the current one, as often as the answer is lost', async () => {
    const d = await Driver.twoSettled();
    await d.beat('C', { epoch: 0, mv: 0 }); // G=4
    const first = await d.beat('A', { epoch: 3, mv: 3, owned: [0, 1] });
    expect(first.memberEpoch).toBe(4);
    expect(await d.beat('A', { epoch: 3, mv: 3, owned: [0, 1] })).toEqual(first);
    expect(await d.beat('A', { epoch: 3, mv: 3, owned: [0, 1] })).toEqual(first);
    expect(d.member('A')).toMatchObject({ state: 'ACTIVE', memberEpoch: 4, previousEpoch: 3 });
  });

  it('fences a previous-epoch request whose report is outside the authority, like a stale epoch', async () => {
    const d = await Driver.twoSettled();
    await d.beat('C', { epoch: 0, mv: 0 });
    await d.beat('A', { epoch: 3, mv: 3, owned: [0, 1] });
    const r = await d.beat('A', { epoch: 3, mv: 3, owned: [0, 1, 3] });
    expect(r).toMatchObject({ status: 'FENCED_MEMBER_EPOCH', memberEpoch: 5, groupEpoch: 5 });
    expect(d.member('A')).toMatchObject({ state: 'FENCED', fence: 'BLOCKING' });
  });

  it('forgets the previous epoch once an answer confirms the current one', async () => {
    const d = await Driver.twoSettled();
    await d.beat('C', { epoch: 0, mv: 0 });
    await d.beat('A', { epoch: 3, mv: 3, owned: [0, 1] });
    await d.beat('A', { epoch: 4, mv: 4, owned: [0, 1] });
    expect(d.member('A').previousEpoch).toBeNull();
    expect((await d.beat('A', { epoch: 3, mv: 3, owned: [0, 1] })).status).toBe('FENCED_MEMBER_EPOCH');
  });
});

describe('heartbeat > blocking fences (ownership violations)', () => {
  it('blocks the fenced holdings until the epoch-0 rejoin, which is accepted at once and releases them', async () => {
    const d = await Driver.twoSettled();
    await d.beat('A', { epoch: 3, mv: 3, owned: [0, 1, 2] }); // shard 2 is B's: fenced, G=4
    expect(d.member('A')).toMatchObject({ state: 'FENCED', fence: 'BLOCKING', currentAssignment: [0, 1] });
    expect(await d.beat('B', { epoch: 3, mv: 4, owned: [2, 3] })).toMatchObject({
      memberEpoch: 4,
      pendingShards: [0, 1],
    });
    expect(await d.beat('A', { epoch: 0, mv: 0 })).toMatchObject({
      status: 'OK',
      memberEpoch: 5,
      groupEpoch: 5,
    });
    expect(d.member('A')).toMatchObject({ state: 'ACTIVE', currentAssignment: [], fence: null });
  });

  it('releases the holdings when the fenced member lease ends, with a bump so waiting members get them', async () => {
    const d = await Driver.twoSettled();
    d.advance(1000);
    await d.beat('A', { epoch: 3, mv: 3, owned: [0, 1, 2] }); // fenced at t+1s; lease stays at t+15s
    const lease = d.member('A').memberLeaseExpiresAt;
    await d.beat('B', { epoch: 3, mv: 4, owned: [2, 3] });
    d.now = lease;
    expect((await d.beat('B', { epoch: 4, mv: 4, owned: [2, 3] })).pendingShards).toEqual([0, 1]);
    d.now = lease + 1;
    const r = await d.beat('B', { epoch: 4, mv: 4, owned: [2, 3] });
    expect(d.member('A')).toMatchObject({ state: 'FENCED', fence: 'RELEASED', currentAssignment: [] });
    expect(r).toMatchObject({
      status: 'OK',
      groupEpoch: 5,
      metadataVersion: 5,
      memberEpoch: 5,
      assignedShards: [0, 1, 2, 3],
    });
  });
});
