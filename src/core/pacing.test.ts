import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GroupHeader } from './member-view.js';
import type { ProtocolConfig } from './model.js';
import {
  assignmentMaxDelayMs,
  assignmentQuietMs,
  assignsAtOnce,
  COALESCE_FROM_MEMBERS,
  headerAfterChange,
  pacedIntervalMs,
  roundDueAt,
  roundWaitMs,
} from './pacing.js';

const CONFIG: ProtocolConfig = {
  heartbeatIntervalMs: 3000,
  memberLeaseTtlMs: 15_000,
  rebalanceTimeoutMs: 30_000,
  staleMemberRetentionMs: 60_000,
};
const T0 = 1_000_000;
const LARGE = COALESCE_FROM_MEMBERS;
const SMALL = COALESCE_FROM_MEMBERS - 1;

function header(over: Partial<GroupHeader> = {}): GroupHeader {
  return {
    groupEpoch: 10,
    assignmentEpoch: 10,
    metadataVersion: 10,
    correction: null,
    createdAt: 0,
    updatedAt: T0,
    ...over,
  };
}

describe('pacing > when the assignment round runs', () => {
  it('derives its windows from the heartbeat interval', () => {
    expect(assignmentQuietMs(CONFIG)).toBe(250);
    expect(assignmentMaxDelayMs(CONFIG)).toBe(1000);
  });

  it('has no round due when every change is assigned', () => {
    expect(roundDueAt(header(), CONFIG, LARGE)).toBeNull();
  });

  it('runs a small group’s round at once', () => {
    const h = header({ groupEpoch: 12, pendingSince: T0 - 5 });
    expect(roundDueAt(h, CONFIG, SMALL)).toBe(T0 - 5);
    expect(assignsAtOnce(h, CONFIG, SMALL, T0)).toBe(true);
  });

  it('in a large group, waits for quiet after the last change, bounded from the oldest', () => {
    // The last change just now, the oldest 100 ms ago: quiet wins (T0 + 250).
    expect(roundDueAt(header({ groupEpoch: 12, pendingSince: T0 - 100 }), CONFIG, LARGE)).toBe(T0 + 250);
    // Changes have kept coming for 900 ms: the bound wins (oldest + 1000).
    expect(roundDueAt(header({ groupEpoch: 40, pendingSince: T0 - 900 }), CONFIG, LARGE)).toBe(T0 + 100);
    // Without a recorded oldest change, the last one stands in for it.
    expect(roundDueAt(header({ groupEpoch: 12 }), CONFIG, LARGE)).toBe(T0 + 250);
  });

  it('assigns a change into a settled group at once, coalesces one made while another waits', () => {
    expect(assignsAtOnce(header(), CONFIG, LARGE, T0)).toBe(true);
    const waiting = header({ groupEpoch: 11, pendingSince: T0 - 50, updatedAt: T0 - 50 });
    expect(assignsAtOnce(waiting, CONFIG, LARGE, T0)).toBe(false);
    expect(assignsAtOnce(waiting, CONFIG, LARGE, T0 + 200)).toBe(true);
  });

  it('records the oldest unassigned change: this one, unless one was pending', () => {
    const after = { groupEpoch: 11, assignmentEpoch: 10, metadataVersion: 11 };
    expect(headerAfterChange(header(), after, T0 + 7)).toMatchObject({
      ...after,
      updatedAt: T0 + 7,
      pendingSince: T0 + 7,
    });
    const pending = header({ groupEpoch: 11, pendingSince: T0 - 30 });
    const next = { groupEpoch: 12, assignmentEpoch: 10, metadataVersion: 12 };
    expect(headerAfterChange(pending, next, T0 + 7)).toMatchObject({
      updatedAt: T0 + 7,
      pendingSince: T0 - 30,
    });
  });
});

describe('pacing > when a member with work in progress comes back', () => {
  it('after a sixth of the interval, at least 100 ms and at most 500 ms', () => {
    const at = (heartbeatIntervalMs: number) => pacedIntervalMs({ heartbeatIntervalMs });
    expect([at(50), at(300), at(1200), at(3000)]).toEqual([50, 100, 200, 500]);
    // A longer steady interval saves requests without slowing a move.
    expect([at(6000), at(12_000), at(60_000)]).toEqual([500, 500, 500]);
  });
});

describe('pacing > when a member without a target comes back', () => {
  it('comes back when the round is due, at its place among the changes it takes in', () => {
    const h = header({ groupEpoch: 20, assignmentEpoch: 10, pendingSince: T0, updatedAt: T0 });
    // Due at T0 + 250; the joiner with epoch 11 is first in line, epoch 20 tenth (2 ms apart).
    expect(roundWaitMs(h, 11, CONFIG, LARGE, T0)).toBe(250);
    expect(roundWaitMs(h, 20, CONFIG, LARGE, T0)).toBe(268);
  });

  it('never waits less than a twentieth of the interval nor more than the interval', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 5000 }),
        fc.integer({ min: -5000, max: 5000 }),
        fc.integer({ min: 1, max: 10_000 }),
        (assigned, pendingChanges, sinceAgo, epochOffset, live) => {
          const h = header({
            assignmentEpoch: assigned,
            groupEpoch: assigned + pendingChanges,
            pendingSince: T0 - sinceAgo,
            updatedAt: T0 - Math.floor(sinceAgo / 2),
          });
          const wait = roundWaitMs(h, assigned + epochOffset, CONFIG, live, T0);
          expect(wait).toBeGreaterThanOrEqual(150);
          expect(wait).toBeLessThanOrEqual(CONFIG.heartbeatIntervalMs);
        },
      ),
    );
  });

  it('spreads the members one round assigns instead of sending them back together', () => {
    const h = header({ groupEpoch: 1010, assignmentEpoch: 10, pendingSince: T0, updatedAt: T0 });
    const waits = Array.from({ length: 1000 }, (_, i) => roundWaitMs(h, 11 + i, CONFIG, LARGE, T0));
    expect(new Set(waits).size).toBe(1000);
    expect(Math.max(...waits) - Math.min(...waits)).toBe(1998);
  });
});
