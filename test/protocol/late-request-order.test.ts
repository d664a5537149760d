/**
 * A request can outlive the SDK's timeout and reach the coordinator after requests the member sent
 * later. Its epoch does not always give it away: a late copy of the member's own epoch-0 rejoin,
 * or of a request at the member's previous epoch (lost-response tolerance), is accepted by epoch
 * alone. What it reports is then older than what the member does now, and recording it frees
 * shards the member is reading. Our SDK numbers its requests per instance (`requestSeq`): a request
 * older than one already recorded for the same instance is fenced, the member is not, and nothing
 * is written (docs/protocol.md#request-order).
 */
import { describe, expect, it } from 'vitest';
import { Driver } from '../support/protocol-driver.js';

const X = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const Y = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
const Z = 'cccccccccccccccccccccccccccccccc';

describe('heartbeat > request order of one member instance', () => {
  it('fences a late copy of the member’s own epoch-0 rejoin: its shards stay held', async () => {
    const d = await Driver.open(2);
    // A's first join (seq 1) timed out in the SDK and is still on its way; the retry (seq 2) is answered.
    const joined = await d.beat('A', { epoch: 0, mv: 0, instance: X, seq: 2 });
    const a = await d.beat('A', { epoch: joined.memberEpoch, mv: 2, instance: X, seq: 3 });
    expect(a.assignedShards).toEqual([0, 1]);
    await d.beat('A', { epoch: a.memberEpoch, mv: a.metadataVersion, owned: [0, 1], instance: X, seq: 4 });
    // B joins: A reads both shards, so B waits for the one the round gives it.
    const b = await d.beat('B', { epoch: 0, mv: 0, instance: Y, seq: 1 });
    const b1 = await d.beat('B', { epoch: b.memberEpoch, mv: b.metadataVersion, instance: Y, seq: 2 });
    expect(b1).toMatchObject({ assignedShards: [], pendingShards: [1] });

    const before = structuredClone(d.group);
    const late = await d.beat('A', { epoch: 0, mv: 0, instance: X, seq: 1 });
    expect(late.status).toBe('FENCED_MEMBER_EPOCH');
    expect(d.group).toEqual(before);
    expect(d.member('A')).toMatchObject({ state: 'ACTIVE', currentAssignment: [0, 1] });

    // A still reads shard 1: B goes on waiting until A reports it let go.
    const b2 = await d.beat('B', { epoch: b1.memberEpoch, mv: b1.metadataVersion, instance: Y, seq: 3 });
    expect(b2).toMatchObject({ assignedShards: [], pendingShards: [1] });
  });

  it('fences a late copy at the previous epoch that reports less than the member holds now', async () => {
    const d = await Driver.open(2);
    const ja = await d.beat('A', { epoch: 0, mv: 0, instance: X, seq: 1 });
    const a1 = await d.beat('A', { epoch: ja.memberEpoch, mv: 2, instance: X, seq: 2 });
    await d.beat('A', { epoch: a1.memberEpoch, mv: a1.metadataVersion, owned: [0, 1], instance: X, seq: 3 });
    // B joins and takes shard 1 once A has let it go.
    const jb = await d.beat('B', { epoch: 0, mv: 0, instance: Y, seq: 1 });
    const a2 = await d.beat('A', {
      epoch: a1.memberEpoch,
      mv: a1.metadataVersion,
      owned: [0, 1],
      instance: X,
      seq: 4,
    });
    expect(a2.assignedShards).toEqual([0]);
    const a3 = await d.beat('A', {
      epoch: a2.memberEpoch,
      mv: a2.metadataVersion,
      owned: [0],
      revoking: [{ shard: 1, state: 'REVOKED' }],
      instance: X,
      seq: 5,
    });
    const b1 = await d.beat('B', { epoch: jb.memberEpoch, mv: a3.metadataVersion, instance: Y, seq: 2 });
    expect(b1.assignedShards).toEqual([1]);
    await d.beat('B', { epoch: b1.memberEpoch, mv: b1.metadataVersion, owned: [1], instance: Y, seq: 3 });
    await d.beat('A', { epoch: a3.memberEpoch, mv: a3.metadataVersion, owned: [0], instance: X, seq: 6 });

    // B leaves; A's request of seq 7 times out in the SDK, and its retry (seq 8) is answered with
    // a new epoch and shard 1, which A starts reading.
    const left = await d.beat('B', {
      epoch: -1,
      mv: b1.metadataVersion,
      revoking: [{ shard: 1, state: 'REVOKED' }],
      instance: Y,
      seq: 4,
    });
    expect(left.status).toBe('OK');
    const stale = { epoch: a3.memberEpoch, mv: a3.metadataVersion, owned: [0], instance: X };
    const retry = await d.beat('A', { ...stale, seq: 8 });
    expect(retry.assignedShards).toEqual([0, 1]);
    expect(retry.memberEpoch).toBeGreaterThan(a3.memberEpoch);
    expect(d.member('A')).toMatchObject({ previousEpoch: a3.memberEpoch, grantedAssignment: [0, 1] });

    // C joins: the round gives it shard 1, which A holds (granted): it must wait.
    const jc = await d.beat('C', { epoch: 0, mv: 0, instance: Z, seq: 1 });
    const c1 = await d.beat('C', { epoch: jc.memberEpoch, mv: jc.metadataVersion, instance: Z, seq: 2 });
    expect(c1.assignedShards).toEqual([]);

    // The late request of seq 7 arrives now, at A's previous epoch, reporting only shard 0.
    const before = structuredClone(d.group);
    const late = await d.beat('A', { ...stale, seq: 7 });
    expect(late.status).toBe('FENCED_MEMBER_EPOCH');
    expect(d.group).toEqual(before);
    const c2 = await d.beat('C', { epoch: c1.memberEpoch, mv: c1.metadataVersion, instance: Z, seq: 3 });
    expect(c2.assignedShards).toEqual([]);
  });

  it('accepts a repeated copy of the latest request and every request of a client that sends no sequence', async () => {
    const d = await Driver.open(2);
    const joined = await d.beat('A', { epoch: 0, mv: 0, instance: X, seq: 1 });
    const a = await d.beat('A', { epoch: joined.memberEpoch, mv: 2, instance: X, seq: 2 });
    const again = await d.beat('A', { epoch: joined.memberEpoch, mv: 2, instance: X, seq: 2 });
    expect(again).toMatchObject({ status: 'OK', assignedShards: a.assignedShards });
    // Without `requestSeq` (a reference client, or an older SDK) nothing is compared.
    const owned = { epoch: a.memberEpoch, mv: a.metadataVersion, owned: a.assignedShards, instance: X };
    expect((await d.beat('A', owned)).status).toBe('OK');
    expect((await d.beat('A', { ...owned, seq: 3 })).status).toBe('OK');
  });

  it('never lets a late request shorten the lease, from a client that sends no sequence either', async () => {
    const d = await Driver.open(1);
    const joined = await d.beat('A', { epoch: 0, mv: 0 });
    const a = await d.beat('A', { epoch: joined.memberEpoch, mv: 2 });
    // The member's latest request arrives at T0+5 s and renews the lease to T0+5 s + TTL.
    d.advance(5000);
    await d.beat('A', { epoch: a.memberEpoch, mv: a.metadataVersion, owned: a.assignedShards });
    const renewedTo = d.member('A').memberLeaseExpiresAt;
    expect(renewedTo).toBe(d.now + d.config.memberLeaseTtlMs);
    // A copy it gave up on had arrived at T0+2 s and is decided only now, with that arrival time.
    d.now = d.now - 3000;
    const late = {
      epoch: a.memberEpoch,
      mv: a.metadataVersion,
      owned: a.assignedShards,
      capacity: { max: 2, available: 2 },
    };
    expect((await d.beat('A', late)).status).toBe('OK');
    expect(d.member('A').memberLeaseExpiresAt).toBe(renewedTo);
  });
});
