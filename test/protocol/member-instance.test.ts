import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCoordinatorError } from '../../src/core/errors.js';
import { heartbeatKey } from '../../src/core/fast-path.js';
import { decideHeartbeat } from '../../src/core/member-heartbeat.js';
import { holdsMemberId, isSharedMemberId } from '../../src/core/member-instance.js';
import { streamViewOf } from '../../src/core/member-view.js';
import type { MemberRecord } from '../../src/core/model.js';
import { viewFromGroup } from '../support/group-view.js';
import { CONFIG, Driver, hb } from '../support/protocol-driver.js';

const X = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const Y = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';

/** A joined by instance X and settled on both shards of a 2-shard stream (epoch 2). */
async function heldByX(): Promise<Driver> {
  const d = await Driver.open(2);
  const joined = await d.beat('A', { epoch: 0, mv: 0, instance: X });
  await d.beat('A', {
    epoch: joined.memberEpoch,
    mv: joined.metadataVersion,
    owned: joined.assignedShards,
    instance: X,
  });
  return d;
}

/** Runs `fn`, expecting the 409 MEMBER_ID_IN_USE refusal. */
async function expectRefused(fn: () => Promise<unknown>): Promise<void> {
  let thrown: unknown = null;
  try {
    await fn();
  } catch (e) {
    thrown = e;
  }
  expect(isCoordinatorError(thrown)).toBe(true);
  expect(thrown).toMatchObject({
    code: 'MEMBER_ID_IN_USE',
    status: 409,
    retryable: false,
    message: 'member id A is in use by another process; give each process a unique member id (memberBase)',
  });
}

describe('heartbeat > one process per member id', () => {
  it('stores the instance id of the joining process with the member record', async () => {
    expect((await heldByX()).member('A').memberInstanceId).toBe(X);
  });

  it('refuses another instance of a live member, on a join and on a steady heartbeat, writing nothing', async () => {
    const d = await heldByX();
    const before = structuredClone(d.group);
    await expectRefused(() => d.beat('A', { epoch: 0, mv: 0, instance: Y }));
    await expectRefused(() => d.beat('A', { epoch: 2, mv: 2, owned: [0, 1], instance: Y }));
    expect(d.group).toEqual(before);
    // The live holder is unaffected.
    expect(await d.beat('A', { epoch: 2, mv: 2, owned: [0, 1], instance: X })).toMatchObject({
      status: 'OK',
      assignedShards: [0, 1],
    });
  });

  it('accepts the same instance, and a heartbeat without the field (reference clients) as before', async () => {
    const d = await heldByX();
    expect((await d.beat('A', { epoch: 2, mv: 2, owned: [0, 1], instance: X })).status).toBe('OK');
    expect((await d.beat('A', { epoch: 2, mv: 2, owned: [0, 1] })).status).toBe('OK');
    // The reference's own guard still answers an epoch-0 request from a holder.
    expect((await d.beat('A', { epoch: 0, mv: 0 })).status).toBe('INVALID_REQUEST');
    expect(d.member('A').memberInstanceId).toBe(X);
  });

  it('adopts the first instance id seen for a record without one, then refuses others', async () => {
    const d = await Driver.open(2);
    const joined = await d.beat('A', { epoch: 0, mv: 0 });
    expect(d.member('A').memberInstanceId).toBeUndefined();
    await d.beat('A', { epoch: joined.memberEpoch, mv: joined.metadataVersion, instance: X });
    expect(d.member('A').memberInstanceId).toBe(X);
    await expectRefused(() => d.beat('A', { epoch: 0, mv: 0, instance: Y }));
  });

  it('lets a new instance join after the holder left, and refuses the old one coming back', async () => {
    const d = await heldByX();
    await d.beat('A', {
      epoch: -1,
      mv: 2,
      revoking: [0, 1].map((shard) => ({ shard, state: 'REVOKED' as const })),
    });
    const joined = await d.beat('A', { epoch: 0, mv: 0, instance: Y });
    expect(joined.status).toBe('OK');
    expect(d.member('A').memberInstanceId).toBe(Y);
    await expectRefused(() => d.beat('A', { epoch: 2, mv: 2, owned: [0, 1], instance: X }));
  });

  it('lets a new instance join once the holder’s lease ran out (crash-restart with a fixed id)', async () => {
    const d = await heldByX();
    d.advance(CONFIG.memberLeaseTtlMs - 1);
    await expectRefused(() => d.beat('A', { epoch: 0, mv: 0, instance: Y }));
    d.advance(2);
    expect((await d.beat('A', { epoch: 0, mv: 0, instance: Y })).status).toBe('OK');
    expect(d.member('A')).toMatchObject({ state: 'ACTIVE', memberInstanceId: Y });
    await expectRefused(() => d.beat('A', { epoch: 2, mv: 2, owned: [0, 1], instance: X }));
  });

  it('refuses another instance while a blocking fence holds the shards, accepts it once the fence lapsed', async () => {
    const d = await heldByX();
    // A report outside its authority fences the member with blocking holdings (a stale epoch
    // from its own instance would fence only the request, docs/protocol.md#stale-epoch-fencing).
    expect((await d.beat('A', { epoch: 2, mv: 2, owned: [0, 1, 5], instance: X })).status).toBe(
      'FENCED_MEMBER_EPOCH',
    );
    expect(d.member('A')).toMatchObject({ state: 'FENCED', fence: 'BLOCKING' });
    await expectRefused(() => d.beat('A', { epoch: 0, mv: 0, instance: Y }));
    d.advance(CONFIG.memberLeaseTtlMs + 1);
    expect((await d.beat('A', { epoch: 0, mv: 0, instance: Y })).status).toBe('OK');
  });

  it('never lets two instances match one fast-path key', async () => {
    const req = { epoch: 2, mv: 2, owned: [0, 1] };
    expect(heartbeatKey(hb('A', { ...req, instance: X }))).not.toBe(
      heartbeatKey(hb('A', { ...req, instance: Y })),
    );
    expect(heartbeatKey(hb('A', { ...req, instance: X }))).not.toBe(heartbeatKey(hb('A', req)));
  });

  it('refuses exactly another instance of a record that still holds the id (property)', async () => {
    const states = ['ACTIVE', 'LEAVING', 'EXPIRED', 'FENCED'] as const;
    // The decision is pure: the held state comes from the production path once, each run edits a copy.
    const d = await heldByX();
    fc.assert(
      fc.property(
        fc.constantFrom(...states),
        fc.constantFrom('BLOCKING' as const, 'RELEASED' as const),
        fc.integer({ min: -2, max: 2 }),
        fc.constantFrom(X, Y, undefined),
        fc.constantFrom(X, Y, undefined),
        fc.constantFrom(0, 2, -1),
        (state, fence, leaseOffset, storedId, requestId, epoch) => {
          const now = d.now;
          const stored: MemberRecord = {
            ...d.member('A'),
            state,
            fence: state === 'FENCED' ? fence : null,
            memberLeaseExpiresAt: now + leaseOffset,
          };
          delete stored.memberInstanceId;
          if (storedId) stored.memberInstanceId = storedId;
          const group = structuredClone(d.group);
          group.members.A = stored;
          const request = hb('A', { epoch, mv: 2, ...(requestId ? { instance: requestId } : {}) });
          const holds =
            now <= stored.memberLeaseExpiresAt &&
            (state === 'ACTIVE' || (fence === 'BLOCKING' && state === 'FENCED'));
          const conflict = !!storedId && !!requestId && storedId !== requestId && holds;
          expect(holdsMemberId(stored, now)).toBe(holds);
          expect(isSharedMemberId(stored, request, now)).toBe(conflict);
          const view = viewFromGroup(streamViewOf(d.stream), group, 'A');
          let decision: ReturnType<typeof decideHeartbeat> | null = null;
          try {
            decision = decideHeartbeat(view, request, CONFIG, now);
          } catch (e) {
            expect(conflict).toBe(true);
            expect(e).toMatchObject({ code: 'MEMBER_ID_IN_USE' });
            return;
          }
          expect(conflict).toBe(false);
          // Whatever the decision writes carries the request's instance (or keeps the stored one).
          if (decision.member)
            expect(decision.member.memberInstanceId).toBe(
              requestId ?? (epoch === 0 && decision.joined ? undefined : storedId),
            );
        },
      ),
      { numRuns: 300 },
    );
  });
});
