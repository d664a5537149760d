import { describe, expect, it } from 'vitest';
import { parseExposition, sampleSum, sampleValue } from '../../test/support/exposition.js';
import { snapshotFixture } from '../../test/support/http-fakes.js';
import type { StreamInspector } from '../store/inspector.js';
import { CoordinatorMetrics } from './coordinator-metrics.js';
import { LagCache } from './lag-cache.js';

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

/** An inspector that counts shard reads and answers lag 2, pending 1 for every group on every shard. */
function countingInspector(groups: readonly string[]) {
  const reads: string[][] = [];
  const inspector: StreamInspector = {
    clustered: false,
    readShards: async (keys) => {
      reads.push([...keys]);
      return keys.map((streamKey) => ({
        streamKey,
        stream: {
          length: 3,
          firstRecordId: null,
          lastRecordId: null,
          lastGeneratedId: null,
          entriesAdded: 3,
        },
        groups: groups.map((name) => ({
          name,
          consumers: 1,
          pending: 1,
          lastDeliveredId: null,
          entriesRead: 1,
          lag: 2,
        })),
        memoryUsageBytes: 10,
      }));
    },
    streams: async () => [],
    range: async () => [],
    slotOwners: async () => new Map(),
    pendingSummaries: async (pairs) => pairs.map(() => null),
  };
  return { inspector, reads };
}

describe('metrics > per-shard lag on /metrics', () => {
  const snaps = [snapshotFixture('orders'), snapshotFixture('payments')];

  it('reads the shards once per refresh when both endpoints are scraped', async () => {
    const { inspector, reads } = countingInspector(['orders', 'payments']);
    const lag = new LagCache({ inspector, refreshMs: 10_000, maxShards: 100, now: () => 1_000 });
    const m = new CoordinatorMetrics({ reference: { coordinatorId: 'c', maxGroups: 10 } });
    m.watchGroups(
      async () => snaps,
      lag,
      () => 1_000,
    );
    m.watchReference(
      async () => snaps,
      lag,
      () => 1_000,
    );
    const [own, ref] = await Promise.all([m.render(), m.renderReference!()]);
    await m.render();
    expect(reads.length).toBe(2); // one read per stream, once
    const x = parseExposition(own);
    const shard = { stream: 'orders', group: 'orders', shard: '0' };
    expect(sampleValue(x, 'rsc_shard_lag', shard)).toBe(2);
    expect(sampleValue(x, 'rsc_shard_pending', shard)).toBe(1);
    expect(sampleValue(parseExposition(ref), 'redis_stream_coord_shard_lag', shard)).toBe(2);
  });

  it('labels only the groups holding a slot and sums the rest under _other', async () => {
    const { inspector } = countingInspector(['orders', 'payments']);
    const lag = new LagCache({ inspector, refreshMs: 10_000, maxShards: 100 });
    const m = new CoordinatorMetrics({ maxGroups: 1 });
    m.watchGroups(async () => snaps, lag);
    const x = parseExposition(await m.render());
    const shards = sampleSum(x, 'rsc_shard_lag', { stream: 'orders', group: 'orders' }) / 2;
    expect(shards).toBeGreaterThan(0);
    expect(sampleValue(x, 'rsc_shard_lag', { stream: '_other', group: '_other', shard: '_other' })).toBe(
      2 * shards,
    );
    expect(x.samples.some((s) => s.labels.stream === 'payments')).toBe(false);
  });

  it('leaves the per-shard series out, and Redis unread, without stream labels (a public /metrics)', async () => {
    const { inspector, reads } = countingInspector(['orders']);
    const lag = new LagCache({ inspector, refreshMs: 10_000, maxShards: 100 });
    const m = new CoordinatorMetrics({ streamLabels: false });
    m.watchGroups(async () => snaps, lag);
    const x = parseExposition(await m.render());
    expect(x.samples.some((s) => s.name.startsWith('rsc_shard_'))).toBe(false);
    expect(sampleValue(x, 'rsc_streams')).toBe(2);
    expect(reads.length).toBe(0);
  });
});
