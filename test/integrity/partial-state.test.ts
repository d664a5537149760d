/**
 * A group whose Redis keys went missing (eviction, an operator's DEL, a lost write): the
 * coordinator notices on the read that needs the key, rebuilds what is derived from the member
 * records, and never lets two live members read one shard meanwhile. Driven on the production
 * path (Coordinator.heartbeat over real Redis), with honest members whose answers are checked.
 */
import { describe, expect, it } from 'vitest';
import { HonestFleet } from '../support/honest-fleet.js';
import { CONFIG, Driver } from '../support/protocol-driver.js';

const STEP = CONFIG.heartbeatIntervalMs;

/** A on [0,1] and B on [2,3], settled, as honest members. */
async function settledPair(): Promise<{ d: Driver; fleet: HonestFleet }> {
  const d = await Driver.open(4);
  const fleet = new HonestFleet(d);
  await fleet.rounds(['A', 'B'], 6, STEP);
  expect(fleet.covered()).toEqual([0, 1, 2, 3]);
  expect(fleet.violations).toEqual([]);
  return { d, fleet };
}

describe('partial state > a lost holder-status or owners index', () => {
  for (const key of ['status', 'owners'] as const) {
    it(`never grants a joiner a shard a live member still holds when the ${key} index is gone`, async () => {
      const { d, fleet } = await settledPair();
      await d.dropKey(key);
      // C joins and keeps asking while A and B, still within their leases, have not come back yet.
      for (let i = 0; i < 4; i++) {
        await fleet.beat('C');
        d.advance(50);
      }
      expect(fleet.violations).toEqual([]);
      // Then everyone heartbeats: the group converges with every shard read by exactly one member.
      await fleet.rounds(['A', 'B', 'C'], 8, STEP);
      expect(fleet.violations).toEqual([]);
      expect(fleet.covered()).toEqual([0, 1, 2, 3]);
    });
  }
});

describe('partial state > a lost targets or lease index', () => {
  for (const key of ['targets', 'leases'] as const) {
    it(`converges again when the ${key} index is gone, and monitoring is not STABLE before`, async () => {
      const { d, fleet } = await settledPair();
      await d.dropKey(key);
      await fleet.rounds(['A', 'B'], 8, STEP);
      expect(fleet.violations).toEqual([]);
      expect(fleet.covered()).toEqual([0, 1, 2, 3]);
      expect(await d.observedState()).toBe('STABLE');
    });

    it(`shares the shards with a joiner when the ${key} index is gone`, async () => {
      const { d, fleet } = await settledPair();
      await d.dropKey(key);
      await fleet.rounds(['A', 'B', 'C'], 10, STEP);
      expect(fleet.violations).toEqual([]);
      expect(fleet.covered()).toEqual([0, 1, 2, 3]);
      for (const id of ['A', 'B', 'C']) expect(fleet.owned(id).length, id).toBeGreaterThan(0);
      expect(await d.observedState()).toBe('STABLE');
    });
  }

  it('still expires a member that stops heartbeating after the lease index is gone', async () => {
    const { d, fleet } = await settledPair();
    await d.dropKey('leases');
    // A crashes; B keeps heartbeating and the sweep runs, well past A's lease.
    for (let i = 0; i < 12; i++) {
      await fleet.beat('B');
      await d.housekeep();
      d.advance(CONFIG.memberLeaseTtlMs / 2);
    }
    expect(d.member('A').state).not.toBe('ACTIVE');
    expect(fleet.owned('B')).toEqual([0, 1, 2, 3]);
  });

  it('does not report STABLE while a consumable shard is read by nobody', async () => {
    const { d } = await settledPair();
    await d.dropKey('targets');
    await d.dropKey('owners');
    await d.dropKey('status');
    // Before anyone heartbeats again, the stored state says nothing about who holds what.
    expect(await d.observedState()).not.toBe('STABLE');
  });
});

describe('partial state > an entry that does not decode', () => {
  it('rebuilds a garbled target, and the assignment read that found it gives its lock back', async () => {
    const { d, fleet } = await settledPair();
    await d.garble('targets', 'B');
    // C's join needs an assignment round, whose read meets the garbled entry.
    await fleet.beat('C');
    expect(await d.assignmentLock()).toBeNull();
    // The rebuild made a round due; it runs at once, not after the lock's TTL.
    await fleet.rounds(['A', 'B', 'C'], 10, STEP);
    expect(fleet.violations).toEqual([]);
    expect(fleet.covered()).toEqual([0, 1, 2, 3]);
    for (const id of ['A', 'B', 'C']) expect(fleet.owned(id).length, id).toBeGreaterThan(0);
  });
});
