import { describe, expect, it } from 'vitest';
import { memberFixture, snapshotFixture } from '../../test/support/http-fakes.js';
import { assignmentsView, healthView, isoDuration, isoInstant, membersView, routingView } from './views.js';

describe('http > views', () => {
  it.each([
    [0, 'PT0S'],
    [500, 'PT0.5S'],
    [1250, 'PT1.25S'],
    [3000, 'PT3S'],
    [15000, 'PT15S'],
    [60000, 'PT1M'],
    [90000, 'PT1M30S'],
    [3_600_000, 'PT1H'],
    [3_723_004, 'PT1H2M3.004S'],
  ])('renders %i ms as %s (java.time.Duration style)', (ms, iso) => {
    expect(isoDuration(ms)).toBe(iso);
  });

  it('renders instants as ISO-8601 UTC', () => {
    expect(isoInstant(Date.UTC(2026, 4, 24, 0, 0, 3, 123))).toBe('2026-05-24T00:00:03.123Z');
  });

  it('reports DEGRADED only when Redis is DOWN', () => {
    expect(healthView('c1', 'DOWN').status).toBe('DEGRADED');
    expect(healthView('c1', 'UNKNOWN').status).toBe('UP');
    expect(healthView('c1', 'UP')).toEqual({ status: 'UP', coordinatorId: 'c1', redis: 'UP', loop: 'UP' });
  });

  it('keeps member ids such as __proto__ as plain keys', () => {
    const snap = snapshotFixture();
    snap.group.members = { ['__proto__']: memberFixture('__proto__', { currentAssignment: [1] }) };
    snap.group.targetAssignments = JSON.parse('{"__proto__":[1]}');
    const view = assignmentsView(snap);
    const json = JSON.parse(JSON.stringify(view));
    expect(Object.keys(json.currentAssignments)).toEqual(['__proto__']);
    expect(Object.keys(json.targetAssignment)).toEqual(['__proto__']);
    expect(membersView(snap.group).members.map((m) => m.memberId)).toEqual(['__proto__']);
  });

  it('routes only [0, shardCount) even while removed shards are still consumable', () => {
    const view = routingView(snapshotFixture());
    expect(view.shards.map((s) => s.shardIndex)).toEqual([0, 1, 2, 3]);
  });
});
