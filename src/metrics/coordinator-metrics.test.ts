import { describe, expect, it } from 'vitest';
import { parseExposition, sampleValue } from '../../test/support/exposition.js';
import { CoordinatorMetrics } from './coordinator-metrics.js';

describe('metrics > coordinator events', () => {
  it('counts mutex attempts: at once, busy, and the wait of one taken after waiting', async () => {
    const m = new CoordinatorMetrics();
    m.observeEvent({ type: 'lock', result: 'acquired' });
    m.observeEvent({ type: 'lock', result: 'busy' });
    m.observeEvent({ type: 'lock', result: 'busy' });
    m.observeEvent({ type: 'lock', result: 'waited', waitedMs: 30 });
    const x = parseExposition(await m.render());
    expect(sampleValue(x, 'rsc_lock_acquisitions_total', { waited: 'false' })).toBe(1);
    expect(sampleValue(x, 'rsc_lock_acquisitions_total', { waited: 'true' })).toBe(1);
    expect(sampleValue(x, 'rsc_lock_busy_total')).toBe(2);
    expect(sampleValue(x, 'rsc_lock_wait_seconds_count')).toBe(1);
    expect(sampleValue(x, 'rsc_lock_wait_seconds_sum')).toBeCloseTo(0.03);
  });

  it('records sweeps by outcome, with their duration and counts (a failed one counts nothing)', async () => {
    const m = new CoordinatorMetrics();
    m.observeEvent({
      type: 'sweep',
      report: { streams: 3, groupsChanged: 1, skippedBusy: 2, backlog: 4 },
      ms: 20,
    });
    m.observeEvent({ type: 'sweep', report: null, ms: 5 });
    const x = parseExposition(await m.render());
    expect(sampleValue(x, 'rsc_sweeps_total', { result: 'ok' })).toBe(1);
    expect(sampleValue(x, 'rsc_sweeps_total', { result: 'error' })).toBe(1);
    expect(sampleValue(x, 'rsc_sweep_duration_seconds_count')).toBe(2);
    expect(sampleValue(x, 'rsc_sweep_duration_seconds_sum')).toBeCloseTo(0.025);
    expect(sampleValue(x, 'rsc_sweep_streams_total')).toBe(3);
    expect(sampleValue(x, 'rsc_sweep_groups_changed_total')).toBe(1);
    expect(sampleValue(x, 'rsc_sweep_backlog')).toBe(4);
    expect(sampleValue(x, 'rsc_sweep_streams_skipped_busy_total')).toBe(2);
  });

  it('labels heartbeats by status and path, and fast-path attempts by result', async () => {
    const m = new CoordinatorMetrics();
    m.observeEvent({ type: 'fast-path', hit: true });
    m.observeEvent({ type: 'heartbeat', status: 'OK', path: 'fast' });
    m.observeEvent({ type: 'commit', ok: false, scope: 'member' });
    const x = parseExposition(await m.render());
    expect(sampleValue(x, 'rsc_heartbeat_fast_path_total', { result: 'hit' })).toBe(1);
    expect(sampleValue(x, 'rsc_heartbeats_total', { status: 'OK', path: 'fast' })).toBe(1);
    expect(sampleValue(x, 'rsc_cas_conflicts_total', { reason: 'conflict' })).toBe(1);
  });
});
