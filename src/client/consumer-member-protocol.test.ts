import { describe, expect, it } from 'vitest';
import { InvalidHeartbeatResponseError } from './consumer-errors.js';
import {
  type HeartbeatAnswer,
  type LocalReport,
  MemberProtocol,
  parseHeartbeatAnswer,
} from './member-protocol.js';

const options = {
  heartbeatIntervalMs: 3000,
  fallbackLeaseTtlMs: 15_000,
  leaseMarginMs: null,
  maxInFlightPerMember: 4,
  requestTimeoutMs: 5000,
};

function answer(over: Partial<HeartbeatAnswer> = {}): HeartbeatAnswer {
  return {
    status: 'OK',
    memberEpoch: 5,
    metadataVersion: 9,
    heartbeatIntervalMs: 500,
    memberLeaseTtlMs: 3000,
    rebalanceTimeoutMs: 10_000,
    assignedShards: [],
    pendingShards: [],
    ...over,
  };
}

const report: LocalReport = {
  reading: [2, 0],
  revoking: [{ shard: 3, state: 'DRAINING', inFlight: 2, ackedAt: null }],
  progress: [{ shard: 0, streamKey: 'o:0', lastDeliveredId: '1-0', lastAckedId: '1-0', pendingCount: 0 }],
  inFlight: 3,
};

const none = new Set<number>();

describe('member protocol > requests', () => {
  it('joins with epoch 0 and an empty report, whatever it is doing', () => {
    const m = new MemberProtocol('m0', options);
    const body = m.request(report, '2026-01-01T00:00:00.000Z');
    expect(body).toMatchObject({
      protocolVersion: 1,
      memberId: 'm0',
      memberName: 'm0',
      memberEpoch: 0,
      metadataVersion: 0,
      runtimeConsumerCapacity: { runtimeMaxConcurrency: 4, availableConcurrency: 1 },
      ownedShards: [],
      revokingShards: [],
      shardProgress: [],
    });
    expect(m.request(report, 'x').requestId).not.toBe(body.requestId);
  });

  it('sends its instance id on every heartbeat and leave, and none when it has none', () => {
    const m = new MemberProtocol('m0', options, 'c0ffee00c0ffee00');
    expect(m.request(report, 'x').memberInstanceId).toBe('c0ffee00c0ffee00');
    m.apply(answer(), 1000, none, none);
    expect(m.request(report, 'x').memberInstanceId).toBe('c0ffee00c0ffee00');
    expect(m.leaveRequest([], 'x').memberInstanceId).toBe('c0ffee00c0ffee00');
    expect(new MemberProtocol('m0', options).request(report, 'x')).not.toHaveProperty('memberInstanceId');
  });

  it('numbers its requests beside the instance id, so the coordinator can tell a late one', () => {
    const m = new MemberProtocol('m0', options, 'c0ffee00c0ffee00');
    const seqs = [m.request(report, 'x'), m.request(report, 'x'), m.leaveRequest([], 'x')].map(
      (b) => b.requestSeq,
    );
    expect(seqs).toEqual([1, 2, 3]);
    // Without an instance id a sequence means nothing to the coordinator: none is sent.
    expect(new MemberProtocol('m0', options).request(report, 'x')).not.toHaveProperty('requestSeq');
  });

  it('forgets its epoch and assignment when its member id is refused, so it reads nothing', () => {
    const m = new MemberProtocol('m0', options, 'c0ffee00c0ffee00');
    m.apply(answer({ assignedShards: [0] }), Date.now(), none, none);
    expect(m.mayRead(0, Date.now())).toBe(true);
    m.refused('MEMBER_ID_IN_USE');
    expect(m.mayRead(0, Date.now())).toBe(false);
    expect(m).toMatchObject({ epoch: 0, metadataVersion: 0, lastStatus: 'MEMBER_ID_IN_USE' });
  });

  it('reports owned shards sorted, revokes and progress once it has an epoch', () => {
    const m = new MemberProtocol('m0', options);
    m.apply(answer({ assignedShards: [0, 2] }), 1000, none, none);
    expect(m.request(report, '2026-01-01T00:00:00.000Z')).toMatchObject({
      memberEpoch: 5,
      metadataVersion: 9,
      ownedShards: [{ shardIndex: 0 }, { shardIndex: 2 }],
      revokingShards: [{ shard: { shardIndex: 3 }, state: 'DRAINING', inFlight: 2, ackedAt: null }],
      shardProgress: [
        {
          shard: { shardIndex: 0 },
          streamKey: 'o:0',
          lastDeliveredId: '1-0',
          lastAckedId: '1-0',
          pendingCount: 0,
          updatedAt: '2026-01-01T00:00:00.000Z',
        },
      ],
    });
  });

  it('leaves with epoch -1, nothing owned and capacity 0', () => {
    const m = new MemberProtocol('m0', options);
    m.apply(answer(), 0, none, none);
    const body = m.leaveRequest([{ shard: 1, state: 'REVOKED', inFlight: 0, ackedAt: 't' }], 't');
    expect(body).toMatchObject({
      memberEpoch: -1,
      ownedShards: [],
      runtimeConsumerCapacity: { runtimeMaxConcurrency: 4, availableConcurrency: 0 },
      revokingShards: [{ shard: { shardIndex: 1 }, state: 'REVOKED', inFlight: 0, ackedAt: 't' }],
    });
  });
});

describe('member protocol > answers', () => {
  it('OK: adopts epochs, starts new shards, stops shards that left the assignment', () => {
    const m = new MemberProtocol('m0', options);
    const d = m.apply(answer({ assignedShards: [1, 2, 4], pendingShards: [5] }), 1000, new Set([0, 1]), none);
    expect(d).toEqual({ kind: 'assignment', keep: [1], stop: [0], start: [2, 4] });
    expect(m.epoch).toBe(5);
    expect(m.metadataVersion).toBe(9);
    expect(m.pending).toEqual([5]);
  });

  it('OK: does not restart a shard still finishing its revoke', () => {
    const m = new MemberProtocol('m0', options);
    const d = m.apply(answer({ assignedShards: [1, 2] }), 0, none, new Set([2]));
    expect(d).toMatchObject({ start: [1] });
  });

  it.each(['SYNC_METADATA', 'REVOKE_PENDING'] as const)(
    '%s: keeps only owned ∩ assigned and starts nothing',
    (status) => {
      const m = new MemberProtocol('m0', options);
      const d = m.apply(answer({ status, assignedShards: [1, 2, 3] }), 0, new Set([0, 1]), none);
      expect(d).toEqual({ kind: 'assignment', keep: [1], stop: [0], start: [] });
      expect(m.epoch).toBe(5);
      expect([...m.assigned]).toEqual([1]);
      expect(m.mayRead(2, 1)).toBe(false);
    },
  );

  it.each(['FENCED_MEMBER_EPOCH', 'UNKNOWN_MEMBER_ID', 'INVALID_REQUEST', 'UNSUPPORTED_PROTOCOL'] as const)(
    '%s: drops everything, ends the lease and rejoins with epoch 0, version 0',
    (status) => {
      const m = new MemberProtocol('m0', options);
      m.apply(answer({ assignedShards: [0] }), 0, none, none);
      const d = m.apply(answer({ status, memberEpoch: 12, metadataVersion: 20 }), 100, new Set([0]), none);
      expect(d).toEqual({ kind: 'drop-all', status });
      expect(m.epoch).toBe(0);
      expect(m.metadataVersion).toBe(0);
      expect(m.leaseValid(100)).toBe(false);
      expect(m.mayRead(0, 100)).toBe(false);
    },
  );

  it('RETRY changes nothing', () => {
    const m = new MemberProtocol('m0', options);
    m.apply(answer({ assignedShards: [0] }), 0, none, none);
    expect(m.apply(answer({ status: 'RETRY', memberEpoch: 99 }), 100, new Set([0]), none)).toEqual({
      kind: 'retry',
    });
    expect(m.epoch).toBe(5);
    expect(m.leaseUntil).toBe(3000 - 600);
  });
});

describe('member protocol > local lease', () => {
  it('runs from the SEND time for the server lease minus the margin', () => {
    const m = new MemberProtocol('m0', options);
    m.apply(answer({ assignedShards: [0], memberLeaseTtlMs: 3000 }), 10_000, none, none);
    // margin = min(3000, 3000 / 5) = 600
    expect(m.leaseUntil).toBe(12_400);
    expect(m.mayRead(0, 12_399)).toBe(true);
    expect(m.mayRead(0, 12_400)).toBe(false);
    expect(m.mayRead(1, 10_000)).toBe(false);
  });

  it('uses the fallback TTL when the answer has no memberLeaseTtlMs (reference coordinator)', () => {
    const m = new MemberProtocol('m0', options);
    m.apply(answer({ memberLeaseTtlMs: null }), 0, none, none);
    expect(m.leaseUntil).toBe(15_000 - 3000);
  });

  it('honours an explicit margin', () => {
    const m = new MemberProtocol('m0', { ...options, leaseMarginMs: 100 });
    m.apply(answer({ memberLeaseTtlMs: 3000 }), 0, none, none);
    expect(m.leaseUntil).toBe(2900);
  });

  it('heartbeats at the answered interval, sooner when the lease needs it, and caps the request timeout', () => {
    const m = new MemberProtocol('m0', options);
    m.apply(answer({ heartbeatIntervalMs: 500, memberLeaseTtlMs: 3000 }), 0, none, none);
    expect(m.nextDelayMs()).toBe(500);
    expect(m.requestTimeoutMs()).toBe(2400);
    m.apply(answer({ heartbeatIntervalMs: 2900, memberLeaseTtlMs: 3000 }), 0, none, none);
    expect(m.nextDelayMs()).toBe(800);
  });
});

describe('member protocol > rebalance deadline of a revoked shard', () => {
  it('runs from the SEND time for the rebalance timeout minus an interval and the time to stop and report', () => {
    const m = new MemberProtocol('m0', options);
    // margin = 500 + max(500, 10 000 / 10, 500)
    m.apply(answer({ heartbeatIntervalMs: 500, rebalanceTimeoutMs: 10_000 }), 20_000, none, none);
    expect(m.revokeDeadline(20_000)).toBe(20_000 + 10_000 - 1500);
    // margin = 3000 + max(3000, 6000, 500)
    m.apply(answer({ heartbeatIntervalMs: 3000, rebalanceTimeoutMs: 60_000 }), 20_000, none, none);
    expect(m.revokeDeadline(20_000)).toBe(20_000 + 60_000 - 9000);
    // margin = 100 + max(100, 300, 500)
    m.apply(answer({ heartbeatIntervalMs: 100, rebalanceTimeoutMs: 3000 }), 0, none, none);
    expect(m.revokeDeadline(0)).toBe(3000 - 600);
  });

  it('keeps at least half the timeout when the interval is long against it', () => {
    const m = new MemberProtocol('m0', options);
    m.apply(answer({ heartbeatIntervalMs: 3000, rebalanceTimeoutMs: 4000 }), 0, none, none);
    expect(m.revokeDeadline(0)).toBe(2000);
  });

  it('sets none before an answer carried a rebalance timeout, and keeps the last one given', () => {
    const m = new MemberProtocol('m0', options);
    expect(m.revokeDeadline(0)).toBeNull();
    m.apply(answer({ rebalanceTimeoutMs: null }), 0, none, none);
    expect(m.revokeDeadline(0)).toBeNull();
    m.apply(answer({ heartbeatIntervalMs: 300, rebalanceTimeoutMs: 3000 }), 0, none, none);
    m.apply(answer({ heartbeatIntervalMs: 300, rebalanceTimeoutMs: null }), 0, none, none);
    expect(m.revokeDeadline(100)).toBe(100 + 3000 - 800);
  });
});

describe('member protocol > local lease while a revoke is unreported', () => {
  // interval 500, timeout 10 s: hard stop at send + 8500, lease end at send + 9000; lease TTL 30 s.
  const long = (over: Partial<HeartbeatAnswer> = {}) =>
    answer({ heartbeatIntervalMs: 500, rebalanceTimeoutMs: 10_000, memberLeaseTtlMs: 30_000, ...over });

  it('ends between the hard stop and the earliest coordinator deadline: half the stop margin after the hard stop', () => {
    const m = new MemberProtocol('m0', options);
    m.apply(long(), 0, none, none);
    // margin 1500 = interval 500 + stop 1000: half the stop after send + 8500
    expect(m.revokeLeaseEnd(20_000)).toBe(20_000 + 9000);
    m.apply(long({ heartbeatIntervalMs: 3000, rebalanceTimeoutMs: 4000 }), 0, none, none);
    // margin capped at half the timeout (2000) leaves no stop time past the interval: at the hard stop
    expect(m.revokeLeaseEnd(0)).toBe(2000);
    expect(new MemberProtocol('m1', options).revokeLeaseEnd(0)).toBeNull();
  });

  it('does not outlast the revoke until an answer comes with nothing left unreported', () => {
    const m = new MemberProtocol('m0', options);
    m.apply(long({ assignedShards: [0, 1] }), 0, none, none);
    expect(m.leaseUntil).toBe(27_000);
    expect(m.apply(long({ assignedShards: [0] }), 1000, new Set([0, 1]), none)).toMatchObject({ stop: [1] });
    expect(m.revokeHardStopAt()).toBe(9500);
    expect(m.leaseUntil).toBe(10_000);
    // Still draining, or REVOKED but not yet in a request that was answered.
    m.apply(long({ assignedShards: [0] }), 2000, new Set([0]), new Set([1]));
    expect(m.leaseUntil).toBe(10_000);
    expect(m.mayRead(0, 9999)).toBe(true);
    expect(m.mayRead(0, 10_000)).toBe(false);
    // The REVOKED report was answered: the coordinator has nothing left to fence for.
    m.apply(long({ assignedShards: [0] }), 3000, new Set([0]), none);
    expect(m.revokeHardStopAt()).toBeNull();
    expect(m.leaseUntil).toBe(30_000);
  });

  it('counts a later revoke from the oldest one still unreported, as the coordinator keeps its first deadline', () => {
    const m = new MemberProtocol('m0', options);
    m.apply(long({ assignedShards: [0, 1] }), 0, none, none);
    m.apply(long({ assignedShards: [0] }), 1000, new Set([0, 1]), none);
    expect(m.apply(long({ assignedShards: [] }), 4000, new Set([0]), new Set([1]))).toMatchObject({
      stop: [0],
    });
    expect(m.revokeHardStopAt()).toBe(9500);
    expect(m.leaseUntil).toBe(10_000);
  });

  it('is forgotten at a fence: the rejoin gets a whole lease', () => {
    const m = new MemberProtocol('m0', options);
    m.apply(long({ assignedShards: [0, 1] }), 0, none, none);
    m.apply(long({ assignedShards: [0] }), 1000, new Set([0, 1]), none);
    m.apply(long({ status: 'FENCED_MEMBER_EPOCH' }), 2000, new Set([0]), new Set([1]));
    expect(m.revokeHardStopAt()).toBeNull();
    m.apply(long({ assignedShards: [0, 1] }), 3000, none, none);
    expect(m.leaseUntil).toBe(30_000);
  });
});

describe('member protocol > parsing answers', () => {
  it('reads the reference shape (no memberLeaseTtlMs) and ours', () => {
    const wire = {
      responseTo: 'r',
      status: 'OK',
      memberId: 'm0',
      memberEpoch: 3,
      heartbeatIntervalMs: 3000,
      rebalanceTimeoutMs: 60000,
      groupEpoch: 3,
      assignmentEpoch: 3,
      metadataVersion: 4,
      assignment: {
        assignedShards: [{ shardIndex: 1 }],
        pendingShards: [{ shardIndex: 2 }],
        metadataVersion: 4,
      },
    };
    expect(parseHeartbeatAnswer(wire)).toEqual({
      status: 'OK',
      memberEpoch: 3,
      metadataVersion: 4,
      heartbeatIntervalMs: 3000,
      memberLeaseTtlMs: null,
      rebalanceTimeoutMs: 60000,
      assignedShards: [1],
      pendingShards: [2],
    });
    expect(parseHeartbeatAnswer({ ...wire, memberLeaseTtlMs: 15000 }).memberLeaseTtlMs).toBe(15000);
  });

  it.each([
    null,
    {},
    { status: 'MAYBE', memberEpoch: 1, metadataVersion: 1, heartbeatIntervalMs: 1 },
    { status: 'OK', memberEpoch: '1', metadataVersion: 1, heartbeatIntervalMs: 1 },
    {
      status: 'OK',
      memberEpoch: 1,
      metadataVersion: 1,
      heartbeatIntervalMs: 1,
      assignment: { assignedShards: [{}] },
    },
  ])('rejects %j', (wire) => {
    expect(() => parseHeartbeatAnswer(wire)).toThrow(InvalidHeartbeatResponseError);
  });
});
