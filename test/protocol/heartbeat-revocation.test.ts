import { describe, expect, it } from 'vitest';
import { CONFIG, Driver } from '../support/protocol-driver.js';

/** A settled on shards 0,1; B joined (target {1}, pending). Group epoch 3. */
async function handover(): Promise<Driver> {
  const d = await Driver.open(2);
  await d.joinAndSettle('A');
  expect(await d.beat('B', { epoch: 0, mv: 0 })).toMatchObject({ memberEpoch: 3, pendingShards: [1] });
  return d;
}

describe('heartbeat > revoke-before-assign', () => {
  it('keeps a moved shard pending while the old owner still reports it owned', async () => {
    const d = await handover();
    expect((await d.beat('A', { epoch: 2, mv: 2, owned: [0, 1] })).assignedShards).toEqual([0]);
    expect(await d.beat('B', { epoch: 3, mv: 3 })).toMatchObject({ assignedShards: [], pendingShards: [1] });
    expect(d.group.state).toBe('RECONCILING');
  });

  it.each(['REVOKING', 'DRAINING'] as const)('treats a %s report as still blocking', async (state) => {
    const d = await handover();
    await d.beat('A', { epoch: 2, mv: 2, owned: [0, 1] });
    await d.beat('A', { epoch: 3, mv: 3, owned: [0], revoking: [{ shard: 1, state, inFlight: 2 }] });
    expect(d.member('A').revoking).toEqual([1]);
    expect((await d.beat('B', { epoch: 3, mv: 3 })).pendingShards).toEqual([1]);
  });

  it('treats REVOKED with work still in flight as blocking', async () => {
    const d = await handover();
    await d.beat('A', { epoch: 2, mv: 2, owned: [0, 1] });
    await d.beat('A', {
      epoch: 3,
      mv: 3,
      owned: [0],
      revoking: [{ shard: 1, state: 'REVOKED', inFlight: 1 }],
    });
    expect((await d.beat('B', { epoch: 3, mv: 3 })).pendingShards).toEqual([1]);
  });

  it('assigns the shard once the old owner reports REVOKED with nothing in flight', async () => {
    const d = await handover();
    await d.beat('A', { epoch: 2, mv: 2, owned: [0, 1] });
    await d.beat('A', { epoch: 3, mv: 3, owned: [0], revoking: [{ shard: 1, state: 'DRAINING' }] });
    await d.beat('A', {
      epoch: 3,
      mv: 3,
      owned: [0],
      revoking: [{ shard: 1, state: 'REVOKED', inFlight: 0 }],
    });
    expect(await d.beat('B', { epoch: 3, mv: 3 })).toMatchObject({ assignedShards: [1], pendingShards: [] });
  });

  it('keeps a shard granted in an answer blocked until its member heartbeats again (the answer may be acted on)', async () => {
    const d = await Driver.open(2);
    await d.beat('A', { epoch: 0, mv: 0 }); // granted [0,1], not yet reported
    await d.beat('B', { epoch: 0, mv: 0 });
    expect((await d.beat('B', { epoch: 3, mv: 3 })).pendingShards).toEqual([1]);
    await d.beat('A', { epoch: 2, mv: 2 }); // A learns it owns only [0]; it never started 1
    expect(d.member('A').grantedAssignment).toEqual([0]);
    expect((await d.beat('B', { epoch: 3, mv: 3 })).assignedShards).toEqual([1]);
  });

  it('never lets EXPIRED or rebalance-timeout-FENCED holders block', async () => {
    const d = await handover();
    await d.beat('A', { epoch: 2, mv: 2, owned: [0, 1] });
    d.advance(CONFIG.memberLeaseTtlMs / 2);
    await d.beat('B', { epoch: 3, mv: 3 }); // only A goes silent
    d.advance(CONFIG.memberLeaseTtlMs / 2 + 1);
    const b = await d.beat('B', { epoch: 3, mv: 3 });
    expect(d.member('A').state).toBe('EXPIRED');
    expect(d.member('A').currentAssignment).toEqual([0, 1]); // kept for diagnostics only
    expect(b).toMatchObject({ status: 'OK', assignedShards: [0, 1], groupEpoch: 4 });
  });
});

describe('heartbeat > rebalance timeout', () => {
  it('sets the deadline once, keeps it across heartbeats, and clears it when nothing remains to release', async () => {
    const d = await handover();
    await d.beat('A', { epoch: 2, mv: 2, owned: [0, 1] });
    const deadline = d.now + CONFIG.rebalanceTimeoutMs;
    expect(d.member('A').rebalanceDeadlineAt).toBe(deadline);
    d.advance(5000);
    await d.beat('A', { epoch: 3, mv: 3, owned: [0], revoking: [{ shard: 1, state: 'DRAINING' }] });
    expect(d.member('A').rebalanceDeadlineAt).toBe(deadline);
    await d.beat('A', { epoch: 3, mv: 3, owned: [0] });
    expect(d.member('A').rebalanceDeadlineAt).toBeNull();
  });

  it('fences a member still holding shards at its deadline, releases them at once, and bumps once', async () => {
    const d = await handover();
    await d.beat('A', { epoch: 2, mv: 2, owned: [0, 1] });
    for (let t = 0; t < CONFIG.rebalanceTimeoutMs; t += 3000) {
      d.advance(3000);
      await d.beat('B', { epoch: 3, mv: 3 });
      if (d.now < d.member('A').rebalanceDeadlineAt!) {
        expect(
          (await d.beat('A', { epoch: 3, mv: 3, owned: [0], revoking: [{ shard: 1, state: 'DRAINING' }] }))
            .status,
        ).toBe('OK');
      }
    }
    const r = await d.beat('A', { epoch: 3, mv: 3, owned: [0], revoking: [{ shard: 1, state: 'DRAINING' }] });
    expect(r).toMatchObject({
      status: 'FENCED_MEMBER_EPOCH',
      memberEpoch: 4,
      groupEpoch: 4,
      metadataVersion: 4,
    });
    expect(d.member('A')).toMatchObject({
      state: 'FENCED',
      fence: 'RELEASED',
      currentAssignment: [],
      revoking: [],
    });
    expect(await d.beat('B', { epoch: 3, mv: 3 })).toMatchObject({
      status: 'OK',
      memberEpoch: 4,
      assignedShards: [0, 1],
    });
  });

  it('fences every timed-out member of one pass with a single bump', async () => {
    const d = await Driver.open(4);
    await d.joinAndSettle('A');
    const b = await d.beat('B', { epoch: 0, mv: 0 });
    const a = await d.beat('A', { epoch: 2, mv: 2, owned: [0, 1, 2, 3] });
    await d.beat('A', { epoch: a.memberEpoch, mv: 3, owned: a.assignedShards });
    const b2 = await d.beat('B', { epoch: b.memberEpoch, mv: 3 });
    await d.beat('B', { epoch: b2.memberEpoch, mv: 3, owned: b2.assignedShards });
    await d.beat('C', { epoch: 0, mv: 0 }); // G=4: C takes one shard from B
    await d.beat('A', { epoch: 3, mv: 3, owned: [0, 1] });
    await d.beat('B', { epoch: 3, mv: 3, owned: [2, 3] });
    // Put A in a position to release too, then let both deadlines pass silently (leases kept fresh by hand).
    await d.arrange((g) => {
      g.members.A = {
        ...d.member('A'),
        revoking: [9],
        rebalanceDeadlineAt: d.now + CONFIG.rebalanceTimeoutMs,
      };
    });
    d.advance(CONFIG.rebalanceTimeoutMs);
    await d.arrange((g) => {
      for (const id of ['A', 'B', 'C']) g.members[id] = { ...d.member(id), memberLeaseExpiresAt: d.now + 1 };
    });
    const g = await d.housekeep();
    expect(g.members.A?.state).toBe('FENCED');
    expect(g.members.B?.state).toBe('FENCED');
    expect(g).toMatchObject({ groupEpoch: 5, metadataVersion: 5, assignmentEpoch: 5 });
    expect(g.targetAssignments).toEqual({ C: [0, 1, 2, 3] });
  });

  it('applies to LEAVING members that keep revoking shards', async () => {
    const d = await handover();
    await d.beat('A', {
      epoch: -1,
      mv: 2,
      revoking: [
        { shard: 0, state: 'DRAINING' },
        { shard: 1, state: 'DRAINING' },
      ],
    });
    expect(d.member('A')).toMatchObject({ state: 'LEAVING', revoking: [0, 1] });
    expect(d.member('A').rebalanceDeadlineAt).toBe(d.now + CONFIG.rebalanceTimeoutMs);
    const b = await d.beat('B', { epoch: 3, mv: 4 });
    expect(b).toMatchObject({ memberEpoch: 4, assignedShards: [], pendingShards: [0, 1] });
    // B keeps heartbeating; A stays silent past its deadline.
    for (let t = 0; t < CONFIG.rebalanceTimeoutMs; t += 3000) {
      d.advance(3000);
      await d.beat('B', { epoch: 4, mv: 4 });
    }
    expect(d.member('A')).toMatchObject({ state: 'FENCED', fence: 'RELEASED', revoking: [] });
    expect(await d.beat('B', { epoch: 5, mv: 5 })).toMatchObject({
      assignedShards: [0, 1],
      pendingShards: [],
    });
  });
});
