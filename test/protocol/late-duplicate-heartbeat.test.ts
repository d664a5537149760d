/**
 * A heartbeat that outlived the SDK's request timeout can reach the coordinator after its retry
 * has moved the member on. The late copy is stale and is answered FENCED_MEMBER_EPOCH, but it
 * says nothing about the process that sent it, which already holds the newer epoch: it must not
 * fence the member, whichever client sent it (docs/protocol.md#stale-epoch-fencing).
 */
import { describe, expect, it } from 'vitest';
import { Driver } from '../support/protocol-driver.js';

const X = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const Y = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';

/**
 * A (instance X) on shard 0 at epoch 3 after B joined a 2-shard stream; the epoch-2 request it
 * sent before B's join is still in flight.
 */
async function movedOn(): Promise<{ d: Driver; late: { epoch: number; mv: number; owned: number[] } }> {
  const d = await Driver.open(2);
  const joined = await d.beat('A', { epoch: 0, mv: 0, instance: X });
  await d.beat('A', { epoch: joined.memberEpoch, mv: 2, owned: [0, 1], instance: X });
  await d.beat('B', { epoch: 0, mv: 0, instance: Y }); // G=3: A keeps [0], B gets [1]
  const late = { epoch: 2, mv: 2, owned: [0, 1] };
  // The retry of the delayed request is answered: epoch 3, shard 1 to give up.
  const retry = await d.beat('A', { ...late, instance: X });
  expect(retry).toMatchObject({ status: 'OK', memberEpoch: 3, assignedShards: [0] });
  // The member proves it holds epoch 3 and releases shard 1.
  await d.beat('A', {
    epoch: 3,
    mv: 3,
    owned: [0],
    revoking: [{ shard: 1, state: 'REVOKED' }],
    instance: X,
  });
  expect(d.member('A')).toMatchObject({ state: 'ACTIVE', memberEpoch: 3, previousEpoch: null });
  return { d, late };
}

describe('heartbeat > late duplicate of a member’s own request', () => {
  it('fences the late request only: nothing is written and the member keeps its shards', async () => {
    const { d, late } = await movedOn();
    const before = structuredClone(d.group);
    const r = await d.beat('A', { ...late, instance: X });
    expect(r).toMatchObject({
      status: 'FENCED_MEMBER_EPOCH',
      memberEpoch: 3,
      groupEpoch: 3,
      metadataVersion: 3,
      assignedShards: [],
      pendingShards: [],
    });
    expect(d.group).toEqual(before);
    // The member's next heartbeat at its current epoch is answered as usual.
    expect(await d.beat('A', { epoch: 3, mv: 3, owned: [0], instance: X })).toMatchObject({
      status: 'OK',
      memberEpoch: 3,
      assignedShards: [0],
      pendingShards: [],
    });
    expect(d.member('A')).toMatchObject({ state: 'ACTIVE', fence: null, currentAssignment: [0] });
    // B, which waited for shard 1, gets it: nothing of A's blocks it.
    expect(await d.beat('B', { epoch: 3, mv: 3, instance: Y })).toMatchObject({
      status: 'OK',
      assignedShards: [1],
    });
  });

  it('ignores what the late request reports, even shards the member has given up since', async () => {
    const { d, late } = await movedOn();
    await d.beat('B', { epoch: 3, mv: 3, instance: Y });
    await d.beat('B', { epoch: 3, mv: 3, owned: [1], instance: Y });
    const before = structuredClone(d.group);
    expect((await d.beat('A', { ...late, instance: X })).status).toBe('FENCED_MEMBER_EPOCH');
    expect(d.group).toEqual(before);
    expect(d.member('B')).toMatchObject({ state: 'ACTIVE', currentAssignment: [1] });
  });

  it('fences only the request when the sender gives no instance id (a reference client)', async () => {
    const { d, late } = await movedOn();
    const before = structuredClone(d.group);
    expect((await d.beat('A', late)).status).toBe('FENCED_MEMBER_EPOCH');
    expect(d.group).toEqual(before);
    expect(await d.beat('A', { epoch: 3, mv: 3, owned: [0] })).toMatchObject({
      status: 'OK',
      memberEpoch: 3,
      assignedShards: [0],
    });
  });

  it('refuses the epoch-0 rejoin of a second process using the id while the holder is live', async () => {
    const { d, late } = await movedOn();
    // Another process with A's id and an old epoch, sending no instance id: fenced, it drops
    // everything and rejoins.
    expect((await d.beat('A', late)).status).toBe('FENCED_MEMBER_EPOCH');
    expect((await d.beat('A', { epoch: 0, mv: 0 })).status).toBe('INVALID_REQUEST');
    // The holder is untouched and keeps reading its shard.
    expect(d.member('A')).toMatchObject({ state: 'ACTIVE', memberInstanceId: X, currentAssignment: [0] });
  });

  it('accepts the epoch-0 rejoin of the holder’s own process after a fenced answer, releasing its shards', async () => {
    const { d, late } = await movedOn();
    expect((await d.beat('A', { ...late, instance: X })).status).toBe('FENCED_MEMBER_EPOCH');
    // Our SDK drops everything on that answer and rejoins; its instance id proves it is the holder.
    expect((await d.beat('A', { epoch: 0, mv: 0, instance: X })).status).toBe('OK');
    expect(d.member('A')).toMatchObject({ state: 'ACTIVE', currentAssignment: [] });
  });
});
