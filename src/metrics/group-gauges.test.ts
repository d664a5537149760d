import { describe, expect, it } from 'vitest';
import { memberFixture, snapshotFixture } from '../../test/support/http-fakes.js';
import { groupGauges } from './group-gauges.js';

describe('metrics > state gauges from metadata', () => {
  it('counts groups, members and migrations by state, every state present', () => {
    const g = groupGauges([snapshotFixture('orders')]);
    expect(g.groupsByState).toEqual({ EMPTY: 0, ASSIGNING: 0, RECONCILING: 1, STABLE: 0 });
    expect(g.membersByState).toEqual({ STARTING: 0, ACTIVE: 2, LEAVING: 0, EXPIRED: 1, FENCED: 0 });
    expect(g.migrationsByState).toEqual({
      PREPARING: 0,
      ACTIVE: 0,
      DRAINING: 1,
      ROLLING_BACK: 0,
      ROLLED_BACK: 0,
      DEPRECATED: 1,
    });
    expect(g).toMatchObject({ streams: 1, shards: 4, activeMigrations: 1 });
  });

  it('counts a stream shared by two groups once, and each group’s members separately', () => {
    const first = snapshotFixture('orders', 'billing');
    const second = snapshotFixture('orders', 'audit');
    second.group = {
      ...second.group,
      state: 'STABLE',
      members: { z: memberFixture('z', { state: 'FENCED' }) },
    };
    const g = groupGauges([first, second, snapshotFixture('payments')]);
    expect(g.streams).toBe(2);
    expect(g.shards).toBe(8);
    expect(g.migrationsByState.DRAINING).toBe(2);
    expect(g.groupsByState).toMatchObject({ RECONCILING: 2, STABLE: 1 });
    expect(g.membersByState).toMatchObject({ ACTIVE: 4, EXPIRED: 2, FENCED: 1 });
  });

  it('reports zeros when there is nothing yet', () => {
    const g = groupGauges([]);
    expect(g.streams + g.shards + g.activeMigrations).toBe(0);
    expect(Object.values(g.membersByState).every((n) => n === 0)).toBe(true);
  });
});
