import { describe, expect, it } from 'vitest';
import { MIN_RATE_INTERVAL_MS, ShardRateObserver, type ShardSample, sumKnown } from './shard-rates.js';

const sample = (entriesAdded: number | null, lag: number | null, streamLength = 0): ShardSample => ({
  shard: 0,
  streamLength,
  entriesAdded,
  lag,
});

describe('grafana rates', () => {
  it('has no rate on the first observation of a group', () => {
    const o = new ShardRateObserver();
    expect(o.observe('p', 'g', 0, [sample(10, 0)]).get(0)).toEqual({
      producedPerSecond: null,
      consumedPerSecond: null,
    });
  });

  it('derives produced from entries-added and consumed from the lag change, per second, 2 decimals', () => {
    const o = new ShardRateObserver();
    o.observe('p', 'g', 0, [sample(10, 4)]);
    // 7 added in 3 s, lag grew by 2: 5 consumed.
    expect(o.observe('p', 'g', 3000, [sample(17, 6)]).get(0)).toEqual({
      producedPerSecond: 2.33,
      consumedPerSecond: 1.67,
    });
  });

  it('falls back to stream length without entries-added and clamps at 0; unknown lag → null consumed', () => {
    const o = new ShardRateObserver();
    o.observe('p', 'g', 0, [sample(null, null, 10)]);
    expect(o.observe('p', 'g', 2000, [sample(null, 3, 4)]).get(0)).toEqual({
      producedPerSecond: 0,
      consumedPerSecond: null,
    });
  });

  it('measures an observation that comes too soon against the one before', () => {
    const o = new ShardRateObserver();
    o.observe('p', 'g', 0, [sample(0, 0)]);
    o.observe('p', 'g', 2000, [sample(4, 0)]);
    const soon = o.observe('p', 'g', 2000 + MIN_RATE_INTERVAL_MS / 2, [sample(5, 0)]);
    expect(soon.get(0)?.producedPerSecond).toBe(2);
  });

  it('keeps groups apart and forgets groups no longer live', () => {
    const o = new ShardRateObserver();
    o.observe('p', 'g', 0, [sample(0, 0)]);
    expect(o.observe('p', 'h', 5000, [sample(5, 0)]).get(0)?.producedPerSecond).toBeNull();
    o.retain([['p', 'h']]);
    expect(o.observe('p', 'g', 9000, [sample(9, 0)]).get(0)?.producedPerSecond).toBeNull();
  });

  it('sums known values only', () => {
    expect(sumKnown([null, null])).toBeNull();
    expect(sumKnown([0.105, null, 1])).toBe(1.11);
  });
});
