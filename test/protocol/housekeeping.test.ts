import { describe, expect, it } from 'vitest';
import { durablyEqual } from '../../src/core/group-equality.js';
import { housekeepGroup } from '../../src/core/housekeeping.js';
import { CONFIG, Driver, deepFreeze, newlyExpired } from '../support/protocol-driver.js';

describe('housekeeping > sweep pass', () => {
  it('returns the very same object when nothing is due', async () => {
    const d = await Driver.twoSettled();
    const group = deepFreeze(structuredClone(d.group));
    d.advance(5000);
    expect(housekeepGroup({ stream: d.stream, group, config: CONFIG, now: d.now })).toBe(group);
  });

  it('is idempotent at one instant', async () => {
    const d = await Driver.twoSettled();
    d.advance(CONFIG.memberLeaseTtlMs + 1);
    const once = housekeepGroup({ stream: d.stream, group: d.group, config: CONFIG, now: d.now });
    expect(once).not.toBe(d.group);
    expect(housekeepGroup({ stream: d.stream, group: once, config: CONFIG, now: d.now })).toBe(once);
  });

  it('expires silent members, reports them for the commit re-check, and leaves the input untouched', async () => {
    const d = await Driver.twoSettled();
    const before = deepFreeze(structuredClone(d.group));
    d.advance(CONFIG.memberLeaseTtlMs + 1);
    const after = housekeepGroup({ stream: d.stream, group: before, config: CONFIG, now: d.now });
    expect(newlyExpired(before, after)).toEqual([
      { memberId: 'A', observedLeaseExpiresAt: before.members.A!.memberLeaseExpiresAt },
      { memberId: 'B', observedLeaseExpiresAt: before.members.B!.memberLeaseExpiresAt },
    ]);
    expect(after.updatedAt).toBe(d.now);
    expect(newlyExpired(after, after)).toEqual([]);
  });

  it('does not touch an open metadata-correction round', async () => {
    const d = await Driver.twoSettled();
    await d.arrange((g) => ({ ...g, metadataVersion: 2 }));
    await d.beat('A', { epoch: 3, mv: 3, owned: [0, 1] });
    const round = d.group.metadataCorrection;
    d.advance(1000);
    expect((await d.housekeep()).metadataCorrection).toEqual(round);
  });
});

describe('housekeeping > durable equality', () => {
  it('ignores leases, heartbeat times, progress and the group updatedAt', async () => {
    const d = await Driver.twoSettled();
    const a = d.group;
    d.advance(2000);
    await d.beat('A', { epoch: 3, mv: 3, owned: [0, 1], progress: [0] });
    expect(d.group.members.A?.lastHeartbeatAt).not.toBe(a.members.A?.lastHeartbeatAt);
    expect(durablyEqual(a, d.group)).toBe(true);
    expect(durablyEqual(a, { ...d.group, updatedAt: 1 })).toBe(true);
  });

  it('sees every other change', async () => {
    const d = await Driver.twoSettled();
    const a = d.group;
    const granted = structuredClone(a);
    granted.members.A!.grantedAssignment = [0];
    expect(durablyEqual(a, granted)).toBe(false);
    expect(durablyEqual(a, { ...a, state: 'RECONCILING' })).toBe(false);
  });
});
