/**
 * The member protocol over HTTP against real Redis (standalone and 6-node Cluster):
 * docs/protocol.md#worked-example worked example, expiry, fencing and rejoin, metadata correction.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { groupKeys } from '../../src/store/keys.js';
import { backends, uniquePrefix } from '../support/redis.js';
import { heartbeat, idx, makeStack, type Stack } from '../support/stack.js';

describe.each(backends)('heartbeat protocol over HTTP ($name)', (backend) => {
  let stack: Stack;
  afterEach(async () => {
    await stack?.close();
  });

  async function createStream(shards: number): Promise<string> {
    const prefix = uniquePrefix('orders');
    const res = await stack.call('POST', `/coord/v1/streams/${prefix}`, {
      initialShardCount: shards,
      requestedBy: 'test',
    });
    expect(res.status).toBe(201);
    return prefix;
  }

  it('reproduces the worked example of the protocol with exact epochs', async () => {
    stack = makeStack(backend);
    const p = await createStream(2);
    const g = await stack.call('GET', `/coord/v1/streams/${p}/groups/${p}`);
    expect(g.body).toMatchObject({ groupEpoch: 1, assignmentEpoch: 1, metadataVersion: 1, state: 'EMPTY' });

    const a1 = await heartbeat(stack, p, p, 'A', { epoch: 0, mv: 0 });
    expect(a1.body).toMatchObject({
      status: 'OK',
      memberEpoch: 2,
      groupEpoch: 2,
      assignmentEpoch: 2,
      metadataVersion: 2,
    });
    expect(idx(a1.body.assignment.assignedShards)).toEqual([0, 1]);
    expect((await stack.call('GET', `/coord/v1/streams/${p}/groups/${p}`)).body.state).toBe('RECONCILING');

    const a2 = await heartbeat(stack, p, p, 'A', { epoch: 2, mv: 2, owned: [0, 1] });
    expect(a2.body).toMatchObject({ status: 'OK', memberEpoch: 2, groupEpoch: 2, metadataVersion: 2 });
    expect((await stack.call('GET', `/coord/v1/streams/${p}/groups/${p}`)).body.state).toBe('STABLE');

    const b1 = await heartbeat(stack, p, p, 'B', { epoch: 0, mv: 0 });
    expect(b1.body).toMatchObject({ status: 'OK', memberEpoch: 3, groupEpoch: 3 });
    expect(idx(b1.body.assignment.assignedShards)).toEqual([]);
    expect(idx(b1.body.assignment.pendingShards)).toEqual([1]);

    const a3 = await heartbeat(stack, p, p, 'A', { epoch: 2, mv: 2, owned: [0, 1] });
    expect(a3.body).toMatchObject({ status: 'OK', memberEpoch: 3 });
    expect(idx(a3.body.assignment.assignedShards)).toEqual([0]);

    const a4 = await heartbeat(stack, p, p, 'A', {
      epoch: 3,
      mv: 3,
      owned: [0],
      revoking: [{ shard: 1, state: 'REVOKED' }],
    });
    expect(a4.body.status).toBe('OK');

    const b2 = await heartbeat(stack, p, p, 'B', { epoch: 3, mv: 3 });
    expect(b2.body.status).toBe('OK');
    expect(idx(b2.body.assignment.assignedShards)).toEqual([1]);
    expect(b2.body.memberLeaseTtlMs).toBe(3000);
  });

  it('expires a silent member after its lease and hands its shards over', async () => {
    stack = makeStack(backend);
    const p = await createStream(4);
    const a = await heartbeat(stack, p, p, 'A', { epoch: 0, mv: 0 });
    await heartbeat(stack, p, p, 'A', {
      epoch: a.body.memberEpoch,
      mv: a.body.metadataVersion,
      owned: [0, 1, 2, 3],
    });
    const b = await heartbeat(stack, p, p, 'B', { epoch: 0, mv: 0 });
    let aEpoch = b.body.groupEpoch;
    // A acknowledges the rebalance and keeps heartbeating; B goes silent.
    let ar = await heartbeat(stack, p, p, 'A', {
      epoch: a.body.memberEpoch,
      mv: a.body.metadataVersion,
      owned: [0, 1, 2, 3],
    });
    aEpoch = ar.body.memberEpoch;
    const keep = idx(ar.body.assignment.assignedShards);
    ar = await heartbeat(stack, p, p, 'A', { epoch: aEpoch, mv: ar.body.metadataVersion, owned: keep });
    for (let i = 0; i < 8; i++) {
      stack.clock.advance(500);
      ar = await heartbeat(stack, p, p, 'A', {
        epoch: ar.body.memberEpoch,
        mv: ar.body.metadataVersion,
        owned: idx(ar.body.assignment.assignedShards),
      });
      expect(ar.body.status).toBe('OK');
    }
    expect(idx(ar.body.assignment.assignedShards)).toEqual([0, 1, 2, 3]);
    const members = await stack.call('GET', `/coord/v1/monitoring/streams/${p}/groups/${p}/members`);
    const bState = members.body.members.find((m: { memberId: string }) => m.memberId === 'B');
    expect(bState.state).toBe('EXPIRED');
    const late = await heartbeat(stack, p, p, 'B', { epoch: b.body.memberEpoch, mv: b.body.metadataVersion });
    expect(late.body.status).toBe('FENCED_MEMBER_EPOCH');
    const rejoin = await heartbeat(stack, p, p, 'B', { epoch: 0, mv: 0 });
    expect(rejoin.body.status).toBe('OK');
  });

  it('fences a stale request only: nothing is written and the member keeps its shards', async () => {
    stack = makeStack(backend);
    const p = await createStream(2);
    const a1 = await heartbeat(stack, p, p, 'A', { epoch: 0, mv: 0 });
    const a2 = await heartbeat(stack, p, p, 'A', { epoch: a1.body.memberEpoch, mv: 2, owned: [0, 1] });
    await heartbeat(stack, p, p, 'B', { epoch: 0, mv: 0 });
    // A moves to epoch 3 (B's join), then a stale request with epoch 1 arrives.
    const a3 = await heartbeat(stack, p, p, 'A', { epoch: a2.body.memberEpoch, mv: 2, owned: [0, 1] });
    expect(a3.body.memberEpoch).toBe(3);
    const stale = await heartbeat(stack, p, p, 'A', { epoch: 1, mv: 2, owned: [0, 1] });
    expect(stale.body).toMatchObject({ status: 'FENCED_MEMBER_EPOCH', memberEpoch: 3, groupEpoch: 3 });
    expect(idx(stale.body.assignment.assignedShards)).toEqual([]);
    // A's next heartbeat at its current epoch is answered as usual.
    const a4 = await heartbeat(stack, p, p, 'A', { epoch: 3, mv: 3, owned: [0, 1] });
    expect(a4.body).toMatchObject({ status: 'OK', memberEpoch: 3 });
    expect(idx(a4.body.assignment.assignedShards)).toEqual([0]);
  });

  it('fences a report outside the member’s authority, keeps its shards blocked, and accepts the epoch-0 rejoin at once', async () => {
    stack = makeStack(backend);
    const p = await createStream(2);
    const a1 = await heartbeat(stack, p, p, 'A', { epoch: 0, mv: 0 });
    const a2 = await heartbeat(stack, p, p, 'A', { epoch: a1.body.memberEpoch, mv: 2, owned: [0, 1] });
    const b1 = await heartbeat(stack, p, p, 'B', { epoch: 0, mv: 0 });
    const a3 = await heartbeat(stack, p, p, 'A', { epoch: a2.body.memberEpoch, mv: 2, owned: [0, 1] });
    expect(a3.body.memberEpoch).toBe(3);
    // Shard 5 does not exist: the report contradicts what the coordinator knows at epoch 3.
    const bad = await heartbeat(stack, p, p, 'A', { epoch: 3, mv: 3, owned: [0, 1, 5] });
    expect(bad.body.status).toBe('FENCED_MEMBER_EPOCH');
    expect(idx(bad.body.assignment.assignedShards)).toEqual([]);
    // B must not be granted A's shards while A's fenced holdings still block.
    const b2 = await heartbeat(stack, p, p, 'B', { epoch: b1.body.groupEpoch, mv: b1.body.metadataVersion });
    const bEpoch = b2.body.memberEpoch;
    expect(b2.body.status).toBe('OK');
    expect(idx(b2.body.assignment.assignedShards)).toEqual([]);
    // A drops everything and rejoins with epoch 0: accepted at once.
    const rejoin = await heartbeat(stack, p, p, 'A', { epoch: 0, mv: 0 });
    expect(rejoin.body.status).toBe('OK');
    const b3 = await heartbeat(stack, p, p, 'B', { epoch: bEpoch, mv: b2.body.metadataVersion });
    expect(b3.body.status).toBe('OK');
    expect(idx(b3.body.assignment.assignedShards).length).toBe(1);
  });

  it('answers SYNC_METADATA when the stored metadata version went backwards', async () => {
    stack = makeStack(backend);
    const p = await createStream(2);
    const a1 = await heartbeat(stack, p, p, 'A', { epoch: 0, mv: 0 });
    const a2 = await heartbeat(stack, p, p, 'A', {
      epoch: a1.body.memberEpoch,
      mv: a1.body.metadataVersion,
      owned: [0, 1],
    });
    expect(a2.body.status).toBe('OK');
    // Restore an older metadata version (as a restore from backup would).
    await stack.redis.hset(groupKeys(stack.config.keyPrefix, p, p).header, 'mv', '1');
    const sync = await heartbeat(stack, p, p, 'A', { epoch: a2.body.memberEpoch, mv: 2, owned: [0, 1] });
    expect(sync.body.status).toBe('SYNC_METADATA');
    expect(sync.body.metadataVersion).toBe(1);
    const ack = await heartbeat(stack, p, p, 'A', { epoch: a2.body.memberEpoch, mv: 1, owned: [0, 1] });
    expect(['OK', 'REVOKE_PENDING']).toContain(ack.body.status);
    const scaleBlocked = await stack.call('GET', `/coord/v1/streams/${p}/groups/${p}`);
    expect(scaleBlocked.status).toBe(200);
  });

  it('answers UNKNOWN_MEMBER_ID for an unknown group and never creates it', async () => {
    stack = makeStack(backend);
    const p = uniquePrefix('nogroup');
    const r = await heartbeat(stack, p, p, 'A', { epoch: 0, mv: 0 });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      status: 'UNKNOWN_MEMBER_ID',
      groupEpoch: 0,
      assignmentEpoch: 0,
      metadataVersion: 0,
    });
    expect((await stack.call('GET', `/coord/v1/streams/${p}/groups/${p}`)).status).toBe(404);
  });
});
