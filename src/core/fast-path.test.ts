import { describe, expect, it } from 'vitest';
import { heartbeatKey, steadyFingerprint } from './fast-path.js';
import { processHeartbeat } from './heartbeat.js';
import type { HeartbeatInput, HeartbeatOutput } from './heartbeat-types.js';
import { durablyEqual } from './housekeeping.js';
import { CONFIG, Driver, hb, streamDoc } from './testing/fixtures.js';

/** Runs a request through the driver and fingerprints the outcome as the coordinator would. */
function sendAndFingerprint(d: Driver, req: HeartbeatInput) {
  const response = d.send(req);
  return {
    response,
    fp: steadyFingerprint({
      stream: d.stream,
      group: d.group,
      request: req,
      response,
      config: CONFIG,
      now: d.now,
    }),
  };
}

/** Replays `req` through the full path and checks it is a liveness-only no-op answering `expected`. */
function expectNoOp(d: Driver, req: HeartbeatInput, expected: HeartbeatOutput, now: number) {
  const out = processHeartbeat({ stream: d.stream, group: d.group, request: req, config: CONFIG, now });
  expect(out.group && durablyEqual(out.group, d.group)).toBe(true);
  expect(out.response).toEqual(expected);
}

describe('fast path > request key', () => {
  const base = hb('A', { epoch: 3, mv: 3, owned: [1, 0], progress: [0, 1] });

  it('ignores the request id, progress positions and the order of owned shards', () => {
    const other: HeartbeatInput = {
      ...base,
      requestId: 'another',
      ownedShards: [0, 1],
      shardProgress: base.shardProgress
        .map((p) => ({ ...p, lastDeliveredId: '9-9', pendingCount: 5 }))
        .reverse(),
    };
    expect(heartbeatKey(other)).toBe(heartbeatKey(base));
  });

  it.each<[string, Partial<HeartbeatInput>]>([
    ['epoch', { memberEpoch: 4 }],
    ['metadata version', { metadataVersion: 4 }],
    ['protocol version', { protocolVersion: 2 }],
    ['member name', { memberName: 'x' }],
    ['capacity', { availableConcurrency: 0 }],
    ['owned shards', { ownedShards: [0] }],
    ['revoking reports', { revokingShards: [{ shard: 2, state: 'REVOKED', inFlight: 0, ackedAt: null }] }],
    ['progress shard set', { shardProgress: [] }],
    ['path member id', { pathMemberId: 'B' }],
  ])('changes with the %s', (_, change) => {
    expect(heartbeatKey({ ...base, ...change })).not.toBe(heartbeatKey(base));
  });
});

describe('fast path > steady fingerprint', () => {
  it('is null while the next steady request would still change the group', () => {
    const d = new Driver(streamDoc(2));
    // Right after the join the member has not reported its shards yet (RECONCILING → STABLE).
    expect(sendAndFingerprint(d, hb('A', { epoch: 0, mv: 0 })).fp).toBeNull();
  });

  it('is null right after an answer that moved the epoch (the previous epoch is still remembered)', () => {
    const d = new Driver(streamDoc(2));
    d.joinAndSettle('A');
    d.beat('B', { epoch: 0, mv: 0 });
    expect(sendAndFingerprint(d, hb('A', { epoch: 2, mv: 2, owned: [0, 1] })).fp).toBeNull();
  });

  it('is null for answers other than OK', () => {
    const d = new Driver(streamDoc(2));
    d.joinAndSettle('A');
    expect(sendAndFingerprint(d, hb('A', { epoch: 1, mv: 2, owned: [0, 1] })).fp).toBeNull();
  });

  it('fingerprints the steady request in steady state, and replaying it is a no-op', () => {
    const d = new Driver(streamDoc(2));
    d.joinAndSettle('A');
    const req = hb('A', { epoch: 2, mv: 2, owned: [0, 1], progress: [0, 1] });
    const { response, fp } = sendAndFingerprint(d, req);
    expect(fp).not.toBeNull();
    expect(fp!.key).toBe(heartbeatKey(req));
    expect(fp!.response).toEqual(response);
    expectNoOp(d, req, fp!.response, d.now + 2000);
  });

  it('fingerprints the next steady request after a revoke is acknowledged', () => {
    const d = new Driver(streamDoc(2));
    d.joinAndSettle('A');
    d.beat('B', { epoch: 0, mv: 0 });
    d.beat('A', { epoch: 2, mv: 2, owned: [0, 1] });
    const ack = hb('A', {
      epoch: 3,
      mv: 3,
      owned: [0],
      revoking: [{ shard: 1, state: 'REVOKED', inFlight: 0 }],
    });
    const { fp } = sendAndFingerprint(d, ack);
    const steady = hb('A', { epoch: 3, mv: 3, owned: [0] });
    expect(fp?.key).toBe(heartbeatKey(steady));
    expectNoOp(d, steady, fp!.response, d.now);
  });

  it('is null while a metadata-correction round keeps answering REVOKE_PENDING', () => {
    const d = new Driver(streamDoc(2));
    d.joinAndSettle('A');
    d.beat('B', { epoch: 0, mv: 0 });
    d.beat('A', { epoch: 2, mv: 2, owned: [0, 1] });
    d.beat('A', { epoch: 3, mv: 3, owned: [0] });
    d.beat('B', { epoch: 3, mv: 3, owned: d.beat('B', { epoch: 3, mv: 3 }).assignedShards });
    d.group = { ...d.group, metadataVersion: 2 };
    d.beat('A', { epoch: 3, mv: 3, owned: [0] }); // opens the round
    const { response, fp } = sendAndFingerprint(d, hb('A', { epoch: 3, mv: 2, owned: [0] }));
    expect(response.status).toBe('REVOKE_PENDING');
    expect(fp).toBeNull();
  });
});

describe('fast path > what the store must check before replaying', () => {
  /** A settled member A and its steady request. */
  function settled() {
    const d = new Driver(streamDoc(2));
    d.joinAndSettle('A');
    return { d, req: hb('A', { epoch: 2, mv: 2, owned: [0, 1] }) };
  }

  const fingerprint = (d: Driver, req: HeartbeatInput, response: HeartbeatOutput, now = d.now) =>
    steadyFingerprint({ stream: d.stream, group: d.group, request: req, response, config: CONFIG, now });

  it('is given for a settled group indefinitely', () => {
    const { d, req } = settled();
    const response = d.send(req);
    expect(fingerprint(d, req, response, d.now + 10 * CONFIG.heartbeatIntervalMs)).toBeNull();
    expect(fingerprint(d, req, response)).not.toBeNull();
  });

  it('is refused while a resharding is in progress', () => {
    const { d, req } = settled();
    const response = d.send(req);
    d.stream = { ...d.stream, activeReshardingId: 'r1' };
    expect(fingerprint(d, req, response)).toBeNull();
  });

  it('is refused while a metadata-correction round is open', () => {
    const { d } = settled();
    d.group = { ...d.group, metadataVersion: 1 };
    const sync = hb('A', { epoch: 2, mv: 2, owned: [0, 1] });
    const response = d.send(sync);
    expect(response.status).toBe('SYNC_METADATA');
    expect(fingerprint(d, sync, { ...response, status: 'OK' })).toBeNull();
  });

  it('is refused while a rebalance deadline is due', () => {
    const { d, req } = settled();
    const response = d.send(req);
    d.group = structuredClone(d.group);
    d.group.members.A = { ...d.member('A'), rebalanceDeadlineAt: d.now - 1, currentAssignment: [0, 1] };
    expect(fingerprint(d, req, response)).toBeNull();
  });

  it('is refused once a member lease has passed, and while a blocking fence or a prune is due', () => {
    const { d, req } = settled();
    const response = d.send(req);
    expect(fingerprint(d, req, response, d.member('A').memberLeaseExpiresAt + 1)).toBeNull();
    d.group = structuredClone(d.group);
    d.group.members.Z = {
      ...d.member('A'),
      memberId: 'Z',
      state: 'FENCED',
      fence: 'BLOCKING',
      currentAssignment: [],
      grantedAssignment: [],
      memberLeaseExpiresAt: d.now - 2,
    };
    expect(fingerprint(d, req, response)).toBeNull();
    d.group.members.Z = {
      ...d.group.members.Z,
      state: 'EXPIRED',
      fence: null,
      lastHeartbeatAt: d.now - CONFIG.staleMemberRetentionMs,
    };
    expect(fingerprint(d, req, response)).toBeNull();
  });
});
