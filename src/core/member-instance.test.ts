import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCoordinatorError } from './errors.js';
import { heartbeatKey } from './fast-path.js';
import { decideHeartbeat } from './member-heartbeat.js';
import { holdsMemberId, isSharedMemberId } from './member-instance.js';
import { streamViewOf, viewFromGroup } from './member-view.js';
import type { MemberRecord } from './model.js';
import { CONFIG, Driver, hb, streamDoc } from './testing/fixtures.js';

const X = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const Y = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';

/** A joined by instance X and settled on both shards of a 2-shard stream (epoch 2). */
function heldByX(): Driver {
  const d = new Driver(streamDoc(2));
  const joined = d.beat('A', { epoch: 0, mv: 0, instance: X });
  d.beat('A', {
    epoch: joined.memberEpoch,
    mv: joined.metadataVersion,
    owned: joined.assignedShards,
    instance: X,
  });
  return d;
}

/** Runs `fn`, expecting the 409 MEMBER_ID_IN_USE refusal. */
function expectRefused(fn: () => unknown): void {
  let thrown: unknown = null;
  try {
    fn();
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

describe('heartbeat > one process per member id (issue 11 point 7)', () => {
  it('stores the instance id of the joining process with the member record', () => {
    expect(heldByX().member('A').memberInstanceId).toBe(X);
  });

  it('refuses another instance of a live member, on a join and on a steady heartbeat, writing nothing', () => {
    const d = heldByX();
    const before = structuredClone(d.group);
    expectRefused(() => d.beat('A', { epoch: 0, mv: 0, instance: Y }));
    expectRefused(() => d.beat('A', { epoch: 2, mv: 2, owned: [0, 1], instance: Y }));
    expect(d.group).toEqual(before);
    // The live holder is unaffected.
    expect(d.beat('A', { epoch: 2, mv: 2, owned: [0, 1], instance: X })).toMatchObject({
      status: 'OK',
      assignedShards: [0, 1],
    });
  });

  it('accepts the same instance, and a heartbeat without the field (reference clients) as before', () => {
    const d = heldByX();
    expect(d.beat('A', { epoch: 2, mv: 2, owned: [0, 1], instance: X }).status).toBe('OK');
    expect(d.beat('A', { epoch: 2, mv: 2, owned: [0, 1] }).status).toBe('OK');
    // The reference's own guard still answers an epoch-0 request from a holder.
    expect(d.beat('A', { epoch: 0, mv: 0 }).status).toBe('INVALID_REQUEST');
    expect(d.member('A').memberInstanceId).toBe(X);
  });

  it('adopts the first instance id seen for a record without one, then refuses others', () => {
    const d = new Driver(streamDoc(2));
    const joined = d.beat('A', { epoch: 0, mv: 0 });
    expect(d.member('A').memberInstanceId).toBeUndefined();
    d.beat('A', { epoch: joined.memberEpoch, mv: joined.metadataVersion, instance: X });
    expect(d.member('A').memberInstanceId).toBe(X);
    expectRefused(() => d.beat('A', { epoch: 0, mv: 0, instance: Y }));
  });

  it('lets a new instance join after the holder left, and refuses the old one coming back', () => {
    const d = heldByX();
    d.beat('A', {
      epoch: -1,
      mv: 2,
      revoking: [0, 1].map((shard) => ({ shard, state: 'REVOKED' as const })),
    });
    const joined = d.beat('A', { epoch: 0, mv: 0, instance: Y });
    expect(joined.status).toBe('OK');
    expect(d.member('A').memberInstanceId).toBe(Y);
    expectRefused(() => d.beat('A', { epoch: 2, mv: 2, owned: [0, 1], instance: X }));
  });

  it('lets a new instance join once the holder’s lease ran out (crash-restart with a fixed id)', () => {
    const d = heldByX();
    d.advance(CONFIG.memberLeaseTtlMs - 1);
    expectRefused(() => d.beat('A', { epoch: 0, mv: 0, instance: Y }));
    d.advance(2);
    expect(d.beat('A', { epoch: 0, mv: 0, instance: Y }).status).toBe('OK');
    expect(d.member('A')).toMatchObject({ state: 'ACTIVE', memberInstanceId: Y });
    expectRefused(() => d.beat('A', { epoch: 2, mv: 2, owned: [0, 1], instance: X }));
  });

  it('refuses another instance while a blocking fence holds the shards, accepts it once the fence lapsed', () => {
    const d = heldByX();
    expect(d.beat('A', { epoch: 1, mv: 2, owned: [0, 1], instance: X }).status).toBe('FENCED_MEMBER_EPOCH');
    expect(d.member('A')).toMatchObject({ state: 'FENCED', fence: 'BLOCKING' });
    expectRefused(() => d.beat('A', { epoch: 0, mv: 0, instance: Y }));
    d.advance(CONFIG.memberLeaseTtlMs + 1);
    expect(d.beat('A', { epoch: 0, mv: 0, instance: Y }).status).toBe('OK');
  });

  it('never lets two instances match one fast-path key', () => {
    const req = { epoch: 2, mv: 2, owned: [0, 1] };
    expect(heartbeatKey(hb('A', { ...req, instance: X }))).not.toBe(
      heartbeatKey(hb('A', { ...req, instance: Y })),
    );
    expect(heartbeatKey(hb('A', { ...req, instance: X }))).not.toBe(heartbeatKey(hb('A', req)));
  });

  it('refuses exactly another instance of a record that still holds the id (property)', () => {
    const states = ['ACTIVE', 'LEAVING', 'EXPIRED', 'FENCED'] as const;
    fc.assert(
      fc.property(
        fc.constantFrom(...states),
        fc.constantFrom('BLOCKING' as const, 'RELEASED' as const),
        fc.integer({ min: -2, max: 2 }),
        fc.constantFrom(X, Y, undefined),
        fc.constantFrom(X, Y, undefined),
        fc.constantFrom(0, 2, -1),
        (state, fence, leaseOffset, storedId, requestId, epoch) => {
          const d = heldByX();
          const now = d.now;
          const stored: MemberRecord = {
            ...d.member('A'),
            state,
            fence: state === 'FENCED' ? fence : null,
            memberLeaseExpiresAt: now + leaseOffset,
          };
          delete stored.memberInstanceId;
          if (storedId) stored.memberInstanceId = storedId;
          d.group.members.A = stored;
          const request = hb('A', { epoch, mv: 2, ...(requestId ? { instance: requestId } : {}) });
          const holds =
            now <= stored.memberLeaseExpiresAt &&
            (state === 'ACTIVE' || (fence === 'BLOCKING' && state === 'FENCED'));
          const conflict = !!storedId && !!requestId && storedId !== requestId && holds;
          expect(holdsMemberId(stored, now)).toBe(holds);
          expect(isSharedMemberId(stored, request, now)).toBe(conflict);
          const view = viewFromGroup(streamViewOf(d.stream), d.group, 'A');
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
