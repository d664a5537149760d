import { describe, expect, it } from 'vitest';
import { processHeartbeat } from './heartbeat.js';
import { CONFIG, Driver, deepFreeze, hb, streamDoc, T0 } from './testing/fixtures.js';

const REJECTED_ZEROES = {
  groupEpoch: 0,
  assignmentEpoch: 0,
  metadataVersion: 0,
  assignedShards: [],
  pendingShards: [],
  assignmentMetadataVersion: 0,
};

/** A, settled on both shards of a 2-shard stream at epoch 2 (group epoch 2, version 2). */
function settledA(): Driver {
  const d = new Driver(streamDoc(2));
  d.joinAndSettle('A');
  return d;
}

describe('heartbeat > request gates (PROTOCOL §3.3 steps 1–3)', () => {
  it('answers UNSUPPORTED_PROTOCOL for a protocol version outside 1..1, with the rejected shape', () => {
    const d = settledA();
    const before = d.group;
    const r = d.beat('A', { epoch: 2, mv: 2, owned: [0, 1], protocolVersion: 2 });
    expect(r).toEqual({ status: 'UNSUPPORTED_PROTOCOL', memberId: 'A', memberEpoch: 2, ...REJECTED_ZEROES });
    expect(d.group).toEqual(before);
  });

  it('answers INVALID_REQUEST when the body memberId differs from the path', () => {
    const d = settledA();
    const r = d.beat('A', { epoch: 2, mv: 2, pathMemberId: 'B' });
    expect(r).toEqual({ status: 'INVALID_REQUEST', memberId: 'A', memberEpoch: 2, ...REJECTED_ZEROES });
  });

  it('answers UNKNOWN_MEMBER_ID for an unknown group and never creates one', () => {
    const out = processHeartbeat({
      stream: streamDoc(2),
      group: null,
      request: hb('A', { epoch: 0, mv: 0 }),
      config: CONFIG,
      now: T0,
    });
    expect(out.group).toBeNull();
    expect(out.response).toEqual({
      status: 'UNKNOWN_MEMBER_ID',
      memberId: 'A',
      memberEpoch: 0,
      ...REJECTED_ZEROES,
    });
  });

  it('never mutates its inputs', () => {
    const d = settledA();
    const group = deepFreeze(structuredClone(d.group));
    const stream = deepFreeze(streamDoc(2));
    const request = deepFreeze(hb('B', { epoch: 0, mv: 0 }));
    const out = processHeartbeat({ stream, group, request, config: CONFIG, now: T0 + 1000 });
    expect(out.group).not.toBe(group);
    expect(out.group?.members.B?.state).toBe('ACTIVE');
  });
});

describe('heartbeat > epoch rules (PROTOCOL §3.3 step 6, first match wins)', () => {
  it('E < -1 → INVALID_REQUEST', () => {
    const d = settledA();
    expect(d.beat('A', { epoch: -2, mv: 2 })).toMatchObject({
      status: 'INVALID_REQUEST',
      memberEpoch: -2,
      groupEpoch: 0,
    });
    expect(d.member('A').state).toBe('ACTIVE');
  });

  it('no record, E = 0 → registers the member (G+1, M+1, ACTIVE, name defaults to the id)', () => {
    const d = settledA();
    const r = d.beat('B', { epoch: 0, mv: 0, name: null });
    expect(r).toMatchObject({ status: 'OK', memberEpoch: 3, groupEpoch: 3, metadataVersion: 3 });
    expect(d.member('B')).toMatchObject({
      state: 'ACTIVE',
      memberEpoch: 3,
      memberName: 'B',
      metadataVersion: 3,
    });
  });

  it('no record, E ≠ 0 → UNKNOWN_MEMBER_ID (positive epoch and leave alike)', () => {
    const d = settledA();
    expect(d.beat('B', { epoch: 5, mv: 2 })).toMatchObject({
      status: 'UNKNOWN_MEMBER_ID',
      memberEpoch: 5,
      groupEpoch: 0,
    });
    expect(d.beat('B', { epoch: -1, mv: 2 })).toMatchObject({ status: 'UNKNOWN_MEMBER_ID', memberEpoch: -1 });
    expect(d.group.members.B).toBeUndefined();
  });

  it.each(['EXPIRED', 'FENCED', 'LEAVING'] as const)(
    'E = 0 with a %s record → rejoin with a reset record',
    (state) => {
      const d = settledA();
      d.beat('B', { epoch: 0, mv: 0 });
      d.group.members.A = { ...d.member('A'), state, fence: state === 'FENCED' ? 'RELEASED' : null };
      const g = d.group.groupEpoch;
      const r = d.beat('A', { epoch: 0, mv: 0, owned: [0, 1] });
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

  it('E = 0 from a live member holding nothing, reporting nothing → initial-join replay (no bump)', () => {
    const d = new Driver(streamDoc(2));
    const first = d.beat('A', { epoch: 0, mv: 0 });
    d.advance(1000);
    const again = d.beat('A', { epoch: 0, mv: 0 });
    expect(again).toEqual(first);
    expect(d.group.groupEpoch).toBe(2);
    expect(d.member('A').memberLeaseExpiresAt).toBe(d.now + CONFIG.memberLeaseTtlMs);
  });

  it('E = 0 from a live member that holds shards → INVALID_REQUEST, record untouched', () => {
    const d = settledA();
    const before = structuredClone(d.member('A'));
    expect(d.beat('A', { epoch: 0, mv: 0 })).toMatchObject({
      status: 'INVALID_REQUEST',
      memberEpoch: 0,
      groupEpoch: 0,
    });
    expect(d.member('A')).toEqual(before);
  });

  it('E = 0 from a live member holding nothing but reporting shards → INVALID_REQUEST', () => {
    const d = new Driver(streamDoc(2));
    d.beat('A', { epoch: 0, mv: 0 });
    expect(d.beat('A', { epoch: 0, mv: 0, owned: [0] }).status).toBe('INVALID_REQUEST');
  });

  it.each(['FENCED', 'EXPIRED'] as const)(
    'a %s record with E ≠ 0 → FENCED_MEMBER_EPOCH with the stored epoch',
    (state) => {
      const d = settledA();
      d.group.members.A = {
        ...d.member('A'),
        state,
        memberEpoch: 7,
        fence: state === 'FENCED' ? 'RELEASED' : null,
      };
      const r = d.beat('A', { epoch: 2, mv: 2, owned: [0, 1] });
      expect(r).toMatchObject({
        status: 'FENCED_MEMBER_EPOCH',
        memberEpoch: 7,
        groupEpoch: 2,
        metadataVersion: 2,
        assignedShards: [],
        pendingShards: [],
        assignmentMetadataVersion: 2,
      });
      expect(d.beat('A', { epoch: -1, mv: 2 }).status).toBe('FENCED_MEMBER_EPOCH');
    },
  );

  it('E = -1 → graceful leave: LEAVING, epoch -1, G+1/M+1 once; repeats are no-ops', () => {
    const d = settledA();
    const r = d.beat('A', {
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
    const again = d.beat('A', { epoch: -1, mv: 3 });
    expect(again).toMatchObject({ status: 'OK', memberEpoch: -1, groupEpoch: 3, metadataVersion: 3 });
  });

  it('a positive epoch from a LEAVING member → INVALID_REQUEST', () => {
    const d = settledA();
    d.beat('A', { epoch: -1, mv: 2 });
    expect(d.beat('A', { epoch: 2, mv: 3 }).status).toBe('INVALID_REQUEST');
  });

  it('E > stored epoch → INVALID_REQUEST', () => {
    const d = settledA();
    expect(d.beat('A', { epoch: 9, mv: 2, owned: [0, 1] })).toMatchObject({
      status: 'INVALID_REQUEST',
      memberEpoch: 9,
    });
    expect(d.member('A')).toMatchObject({ state: 'ACTIVE', memberEpoch: 2 });
  });

  it('E < stored epoch (and not the previous one) → FENCED_MEMBER_EPOCH, stored FENCED and blocking (SPEC §8.3)', () => {
    const d = settledA();
    d.beat('B', { epoch: 0, mv: 0 }); // G=3
    d.beat('A', { epoch: 2, mv: 2, owned: [0, 1] }); // A → 3, previous 2
    const r = d.beat('A', { epoch: 1, mv: 3, owned: [0, 1] });
    expect(r).toMatchObject({
      status: 'FENCED_MEMBER_EPOCH',
      memberEpoch: 4,
      groupEpoch: 4,
      metadataVersion: 4,
      assignedShards: [],
    });
    expect(d.member('A')).toMatchObject({
      state: 'FENCED',
      fence: 'BLOCKING',
      memberEpoch: 4,
      currentAssignment: [0, 1],
    });
    // No target for a fenced member; B owns both targets but may not read A's shards yet.
    expect(d.group.targetAssignments).toEqual({ B: [0, 1] });
    expect(d.beat('B', { epoch: 3, mv: 3 })).toMatchObject({
      status: 'OK',
      assignedShards: [],
      pendingShards: [0, 1],
    });
  });

  it('E = previous epoch with a report within authority → answered as the current epoch (SPEC §8.2)', () => {
    const d = settledA();
    d.beat('B', { epoch: 0, mv: 0 });
    const lost = d.beat('A', { epoch: 2, mv: 2, owned: [0, 1] }); // moves A to 3; the answer is lost
    const retry = d.beat('A', { epoch: 2, mv: 2, owned: [0, 1] });
    expect(retry).toEqual(lost);
    expect(d.member('A')).toMatchObject({ state: 'ACTIVE', memberEpoch: 3, previousEpoch: 2 });
  });

  it('E = stored epoch → normal processing', () => {
    const d = settledA();
    expect(d.beat('A', { epoch: 2, mv: 2, owned: [0, 1] })).toMatchObject({
      status: 'OK',
      memberEpoch: 2,
      assignedShards: [0, 1],
    });
  });
});
