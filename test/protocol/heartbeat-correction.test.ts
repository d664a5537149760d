import { describe, expect, it } from 'vitest';
import { Driver } from '../support/protocol-driver.js';

/**
 * A on [0,1] and B on [2,3] of a 4-shard stream at epoch 3, version 3; then the stored
 * version goes back to 2 (as after a restore from backup), so both members know a newer one.
 */
async function restored(): Promise<Driver> {
  const d = await Driver.twoSettled();
  expect(d.group.state).toBe('STABLE');
  await d.arrange((g) => ({ ...g, metadataVersion: 2 }));
  return d;
}

describe('heartbeat > metadata correction', () => {
  it('opens a round on a newer reported version and answers SYNC_METADATA without checking the epoch', async () => {
    const d = await restored();
    const r = await d.beat('A', { epoch: 99, mv: 3, owned: [0, 1] });
    expect(r).toMatchObject({
      status: 'SYNC_METADATA',
      memberEpoch: 3,
      groupEpoch: 3,
      metadataVersion: 2,
      assignedShards: [0, 1],
    });
    expect(d.group.metadataCorrection).toMatchObject({
      targetMetadataVersion: 2,
      observedMetadataVersion: 3,
      requestedAt: d.now,
      acknowledgedMembers: [],
    });
    expect(d.member('A').metadataVersion).toBe(3);
    // SYNC_METADATA is repeatable.
    expect(await d.beat('A', { epoch: 99, mv: 3, owned: [0, 1] })).toEqual(r);
  });

  it('answers SYNC_METADATA to any member whose version differs while the round is open', async () => {
    const d = await restored();
    await d.beat('A', { epoch: 3, mv: 3, owned: [0, 1] });
    expect((await d.beat('B', { epoch: 3, mv: 1, owned: [2, 3] })).status).toBe('SYNC_METADATA');
  });

  it('processes members on the stored version normally, answers REVOKE_PENDING, and closes when all caught up', async () => {
    const d = await restored();
    await d.beat('A', { epoch: 3, mv: 3, owned: [0, 1] });
    const a = await d.beat('A', { epoch: 3, mv: 2, owned: [0, 1] });
    expect(a).toMatchObject({
      status: 'REVOKE_PENDING',
      memberEpoch: 3,
      metadataVersion: 2,
      assignedShards: [0, 1],
    });
    expect(d.group.metadataCorrection?.acknowledgedMembers).toEqual(['A']);
    // B is the last participant: it closes the round and gets OK.
    const b = await d.beat('B', { epoch: 3, mv: 2, owned: [2, 3] });
    expect(b).toMatchObject({ status: 'OK', assignedShards: [2, 3] });
    expect(d.group.metadataCorrection).toBeNull();
  });

  it('keeps the round open while a live member is still revoking', async () => {
    const d = await restored();
    await d.beat('A', { epoch: 3, mv: 3, owned: [0, 1] });
    await d.beat('A', { epoch: 3, mv: 2, owned: [0], revoking: [{ shard: 1, state: 'DRAINING' }] });
    expect((await d.beat('B', { epoch: 3, mv: 2, owned: [2, 3] })).status).toBe('REVOKE_PENDING');
    await d.beat('A', { epoch: 3, mv: 2, owned: [0, 1] });
    expect(d.group.metadataCorrection).toBeNull();
  });

  it('is discarded when a brand-new member joins during the round; the joiner gets OK', async () => {
    const d = await restored();
    await d.beat('A', { epoch: 3, mv: 3, owned: [0, 1] });
    const c = await d.beat('C', { epoch: 0, mv: 0 });
    expect(c).toMatchObject({ status: 'OK', groupEpoch: 4, metadataVersion: 3 });
    expect(d.group.metadataCorrection).toBeNull();
  });

  it('never sends FENCED or EXPIRED members down the SYNC path', async () => {
    const d = await restored();
    await d.arrange((g) => {
      g.members.A = { ...d.member('A'), state: 'EXPIRED', memberEpoch: 4 };
    });
    expect((await d.beat('A', { epoch: 3, mv: 3, owned: [0, 1] })).status).toBe('FENCED_MEMBER_EPOCH');
    expect(d.group.metadataCorrection).toBeNull();
  });

  it('re-opens a fresh round on a newer report after the old one was passed by', async () => {
    const d = await restored();
    await d.beat('A', { epoch: 3, mv: 3, owned: [0, 1] });
    await d.arrange((g) => ({ ...g, metadataVersion: 3 })); // e.g. a prune moved the version on
    await d.beat('B', { epoch: 3, mv: 5, owned: [2, 3] });
    expect(d.group.metadataCorrection).toMatchObject({
      targetMetadataVersion: 3,
      observedMetadataVersion: 5,
    });
  });
});
