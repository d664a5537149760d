import { describe, expect, it } from 'vitest';
import { CONFIG, Driver, deepFreeze, hb } from '../support/protocol-driver.js';

const REJECTED_ZEROES = {
  groupEpoch: 0,
  assignmentEpoch: 0,
  metadataVersion: 0,
  assignedShards: [],
  pendingShards: [],
  assignmentMetadataVersion: 0,
};

/** A, settled on both shards of a 2-shard stream at epoch 2 (group epoch 2, version 2). */
async function settledA(): Promise<Driver> {
  const d = await Driver.open(2);
  await d.joinAndSettle('A');
  return d;
}

describe('heartbeat > request gates', () => {
  it('answers UNSUPPORTED_PROTOCOL for a protocol version outside 1..1, with the rejected shape', async () => {
    const d = await settledA();
    const before = d.group;
    const r = await d.beat('A', { epoch: 2, mv: 2, owned: [0, 1], protocolVersion: 2 });
    expect(r).toEqual({ status: 'UNSUPPORTED_PROTOCOL', memberId: 'A', memberEpoch: 2, ...REJECTED_ZEROES });
    expect(d.group).toEqual(before);
  });

  it('answers INVALID_REQUEST when the body memberId differs from the path', async () => {
    const d = await settledA();
    const r = await d.beat('A', { epoch: 2, mv: 2, pathMemberId: 'B' });
    expect(r).toEqual({ status: 'INVALID_REQUEST', memberId: 'A', memberEpoch: 2, ...REJECTED_ZEROES });
  });

  it('answers UNKNOWN_MEMBER_ID for an unknown group and never creates one', async () => {
    const d = await Driver.open(2);
    const response = await d.sendTo('other', hb('A', { epoch: 0, mv: 0 }));
    expect(await d.groupExists('other')).toBe(false);
    expect(response).toEqual({
      status: 'UNKNOWN_MEMBER_ID',
      memberId: 'A',
      memberEpoch: 0,
      ...REJECTED_ZEROES,
    });
  });

  it('never mutates its inputs', async () => {
    const d = await settledA();
    d.advance(1000);
    await d.send(deepFreeze(hb('B', { epoch: 0, mv: 0 }, d.prefix)));
    expect(d.group.members.B?.state).toBe('ACTIVE');
  });
});

describe('heartbeat > epoch rules', () => {
  it('E < -1 → INVALID_REQUEST', async () => {
    const d = await settledA();
    expect(await d.beat('A', { epoch: -2, mv: 2 })).toMatchObject({
      status: 'INVALID_REQUEST',
      memberEpoch: -2,
      groupEpoch: 0,
    });
    expect(d.member('A').state).toBe('ACTIVE');
  });

  it('no record, E = 0 → registers the member (G+1, M+1, ACTIVE, name defaults to the id)', async () => {
    const d = await settledA();
    const r = await d.beat('B', { epoch: 0, mv: 0, name: null });
    expect(r).toMatchObject({ status: 'OK', memberEpoch: 3, groupEpoch: 3, metadataVersion: 3 });
    expect(d.member('B')).toMatchObject({
      state: 'ACTIVE',
      memberEpoch: 3,
      memberName: 'B',
      metadataVersion: 3,
    });
  });

  it('no record, E ≠ 0 → UNKNOWN_MEMBER_ID (positive epoch and leave alike)', async () => {
    const d = await settledA();
    expect(await d.beat('B', { epoch: 5, mv: 2 })).toMatchObject({
      status: 'UNKNOWN_MEMBER_ID',
      memberEpoch: 5,
      groupEpoch: 0,
    });
    expect(await d.beat('B', { epoch: -1, mv: 2 })).toMatchObject({
      status: 'UNKNOWN_MEMBER_ID',
      memberEpoch: -1,
    });
    expect(d.group.members.B).toBeUndefined();
  });

  it.each(['EXPIRED', 'FENCED', 'LEAVING'] as const)(
    'E = 0 with a %s record → rejoin with a reset record',
    async (state) => {
      const d = await settledA();
      await d.beat('B', { epoch: 0, mv: 0 });
      await d.arrange((g) => {
        g.members.A = { ...d.member('A'), state, fence: state === 'FENCED' ? 'RELEASED' : null };
      });
      const g = d.group.groupEpoch;
      const r = await d.beat('A', { epoch: 0, mv: 0, owned: [0, 1] });
      expect(r).toMatchObject({ status: 'OK', memberEpoch: g + 1, groupEpoch: g + 1 });
      // The report of an epoch-0 request is ignored entirely.
      expect(d.member('A')).toMatchObject({
        state: 'ACTIVE',
        currentAssignment: [],
        revoking: [],
        fence: null,
      });
    },
  );

  it('E = 0 from a live member holding nothing, reporting nothing → initial-join replay (no bump)', async () => {
    const d = await Driver.open(2);
    const first = await d.beat('A', { epoch: 0, mv: 0 });
    d.advance(1000);
    const again = await d.beat('A', { epoch: 0, mv: 0 });
    expect(again).toEqual(first);
    expect(d.group.groupEpoch).toBe(2);
    expect(d.member('A').memberLeaseExpiresAt).toBe(d.now + CONFIG.memberLeaseTtlMs);
  });

  it('E = 0 from a live member that holds shards → INVALID_REQUEST, record untouched', async () => {
    const d = await settledA();
    const before = structuredClone(d.member('A'));
    expect(await d.beat('A', { epoch: 0, mv: 0 })).toMatchObject({
      status: 'INVALID_REQUEST',
      memberEpoch: 0,
      groupEpoch: 0,
    });
    expect(d.member('A')).toEqual(before);
  });

  it('E = 0 from a live member holding nothing but reporting shards → INVALID_REQUEST', async () => {
    const d = await Driver.open(2);
    await d.beat('A', { epoch: 0, mv: 0 });
    expect((await d.beat('A', { epoch: 0, mv: 0, owned: [0] })).status).toBe('INVALID_REQUEST');
  });

  it.each(['FENCED', 'EXPIRED'] as const)(
    'a %s record with E ≠ 0 → FENCED_MEMBER_EPOCH with the stored epoch',
    async (state) => {
      const d = await settledA();
      await d.arrange((g) => {
        g.members.A = {
          ...d.member('A'),
          state,
          memberEpoch: 7,
          fence: state === 'FENCED' ? 'RELEASED' : null,
        };
      });
      const r = await d.beat('A', { epoch: 2, mv: 2, owned: [0, 1] });
      expect(r).toMatchObject({
        status: 'FENCED_MEMBER_EPOCH',
        memberEpoch: 7,
        groupEpoch: 2,
        metadataVersion: 2,
        assignedShards: [],
        pendingShards: [],
        assignmentMetadataVersion: 2,
      });
      expect((await d.beat('A', { epoch: -1, mv: 2 })).status).toBe('FENCED_MEMBER_EPOCH');
    },
  );

  it('E = -1 → graceful leave: LEAVING, epoch -1, G+1/M+1 once; repeats are no-ops', async () => {
    const d = await settledA();
    const r = await d.beat('A', {
      epoch: -1,
      mv: 2,
      revoking: [
        { shard: 0, state: 'REVOKED' },
        { shard: 1, state: 'REVOKED' },
      ],
    });
    expect(r).toMatchObject({
      status: 'OK',
      memberEpoch: -1,
      groupEpoch: 3,
      metadataVersion: 3,
      assignedShards: [],
      pendingShards: [],
    });
    expect(d.member('A')).toMatchObject({
      state: 'LEAVING',
      memberEpoch: -1,
      currentAssignment: [],
      grantedAssignment: [],
    });
    const again = await d.beat('A', { epoch: -1, mv: 3 });
    expect(again).toMatchObject({ status: 'OK', memberEpoch: -1, groupEpoch: 3, metadataVersion: 3 });
  });

  it('a positive epoch from a LEAVING member → INVALID_REQUEST', async () => {
    const d = await settledA();
    await d.beat('A', { epoch: -1, mv: 2 });
    expect((await d.beat('A', { epoch: 2, mv: 3 })).status).toBe('INVALID_REQUEST');
  });

  it('E > stored epoch → INVALID_REQUEST', async () => {
    const d = await settledA();
    expect(await d.beat('A', { epoch: 9, mv: 2, owned: [0, 1] })).toMatchObject({
      status: 'INVALID_REQUEST',
      memberEpoch: 9,
    });
    expect(d.member('A')).toMatchObject({ state: 'ACTIVE', memberEpoch: 2 });
  });

  it('E < stored epoch (and not the previous one) → FENCED_MEMBER_EPOCH for the request only, nothing written', async () => {
    const d = await settledA();
    await d.beat('B', { epoch: 0, mv: 0 }); // G=3
    await d.beat('A', { epoch: 2, mv: 2, owned: [0, 1] }); // A → 3, previous 2
    const before = structuredClone(d.group);
    const r = await d.beat('A', { epoch: 1, mv: 3, owned: [0, 1] });
    expect(r).toMatchObject({
      status: 'FENCED_MEMBER_EPOCH',
      memberEpoch: 3,
      groupEpoch: 3,
      metadataVersion: 3,
      assignedShards: [],
      pendingShards: [],
    });
    expect(d.group).toEqual(before);
    expect(d.member('A')).toMatchObject({ state: 'ACTIVE', fence: null, memberEpoch: 3 });
    // A's next heartbeat at its current epoch is answered as usual: give up shard 1 for B.
    expect(await d.beat('A', { epoch: 3, mv: 3, owned: [0, 1] })).toMatchObject({
      status: 'OK',
      memberEpoch: 3,
      assignedShards: [0],
    });
  });

  it('E = previous epoch with a report within authority → answered as the current epoch', async () => {
    const d = await settledA();
    await d.beat('B', { epoch: 0, mv: 0 });
    const lost = await d.beat('A', { epoch: 2, mv: 2, owned: [0, 1] }); // moves A to 3; the answer is lost
    const retry = await d.beat('A', { epoch: 2, mv: 2, owned: [0, 1] });
    expect(retry).toEqual(lost);
    expect(d.member('A')).toMatchObject({ state: 'ACTIVE', memberEpoch: 3, previousEpoch: 2 });
  });

  it('E = stored epoch → normal processing', async () => {
    const d = await settledA();
    expect(await d.beat('A', { epoch: 2, mv: 2, owned: [0, 1] })).toMatchObject({
      status: 'OK',
      memberEpoch: 2,
      assignedShards: [0, 1],
    });
  });
});
