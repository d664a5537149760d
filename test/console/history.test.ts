/**
 * The group page's in-page history: bounded to 15 minutes, and records/s from the group's Redis
 * counters (entries-read, lag), so trimming never looks like consumption.
 */
import { describe, expect, it } from 'vitest';
import {
  appendSample,
  chartColumns,
  HISTORY_WINDOW_MS,
  type LagSample,
  ratesBetween,
  sampleOf,
  shardLagColumns,
} from '../../src/console/app/history.js';

/** A sample at `at` ms whose shards have [entriesRead, lag] as given. */
function sample(at: number, shards: Record<number, [number | null, number | null]>): LagSample {
  const list = Object.entries(shards).map(([i, [entriesRead, lag]]) => ({
    shardIndex: Number(i),
    entriesRead,
    lag,
  }));
  const totalLag = list.reduce((a, s) => a + (s.lag ?? 0), 0);
  return sampleOf({ readAtMs: at, totalLag, totalPending: 0, shards: list });
}

describe('console history > window', () => {
  it('keeps the last 15 minutes and drops a sample that is not newer than the last', () => {
    let h: LagSample[] = [];
    for (let t = 0; t <= HISTORY_WINDOW_MS + 10_000; t += 5_000)
      h = appendSample(h, sample(t, { 0: [t, 0] }));
    expect(h[0]!.at).toBe(10_000);
    expect(h.at(-1)!.at).toBe(HISTORY_WINDOW_MS + 10_000);
    expect(appendSample(h, sample(h.at(-1)!.at, { 0: [0, 0] }))).toHaveLength(h.length);
  });

  it('holds at most 1,000 samples however fast the page refreshes', () => {
    let h: LagSample[] = [];
    for (let t = 0; t < 1500; t++) h = appendSample(h, sample(t * 100, { 0: [t, 0] }));
    expect(h).toHaveLength(1000);
    expect(h.at(-1)!.at).toBe(149_900);
  });
});

describe('console history > records/s', () => {
  it('counts consumed from entries-read and produced from entries-read + lag', () => {
    const r = ratesBetween(
      sample(0, { 0: [100, 10], 1: [50, 0] }),
      sample(2000, { 0: [120, 30], 1: [60, 0] }),
    );
    // Read: 20 + 10 in 2 s; added: (150 - 110) + (60 - 50) in 2 s.
    expect(r).toEqual({ consumedPerSecond: 15, producedPerSecond: 25 });
  });

  it('leaves out a shard that is new, unknown or whose counter went back (a recreated key)', () => {
    const prev = sample(0, { 0: [100, 0], 1: [null, 5], 2: [500, 0] });
    const cur = sample(1000, { 0: [110, 0], 1: [7, 5], 2: [3, 0], 3: [40, 0] });
    expect(ratesBetween(prev, cur)).toEqual({ consumedPerSecond: 10, producedPerSecond: 10 });
  });

  it('has no rate without a shard both reads know, nor between reads at the same time', () => {
    expect(ratesBetween(sample(0, { 0: [null, 1] }), sample(1000, { 0: [5, 1] }))).toEqual({
      producedPerSecond: null,
      consumedPerSecond: null,
    });
    expect(ratesBetween(sample(0, { 0: [1, 1] }), sample(0, { 0: [5, 1] })).consumedPerSecond).toBeNull();
  });

  it('draws lag at every read and each rate at the end of its interval', () => {
    const cols = chartColumns([sample(0, { 0: [0, 4] }), sample(1000, { 0: [3, 4] })]);
    expect(cols.lag).toEqual([
      [0, 1],
      [4, 4],
      [0, 0],
    ]);
    expect(cols.rate).toEqual([
      [0, 1],
      [null, 3],
      [null, 3],
    ]);
  });
});

describe('console history > lag per shard', () => {
  it("draws every shard's lag at every read, a gap where a shard was unknown", () => {
    const cols = shardLagColumns([
      sample(0, { 0: [0, 4], 1: [0, 2] }),
      sample(1000, { 0: [0, 5], 1: [0, null], 2: [0, 7] }),
    ]);
    expect(cols.shards).toEqual([0, 1, 2]);
    expect(cols.data).toEqual([
      [0, 1],
      [4, 5],
      [2, null],
      [null, 7],
    ]);
  });

  it('draws only the shards with the most lag now when there are more than it may draw', () => {
    const now = sample(0, { 0: [0, 1], 1: [0, 9], 2: [0, null], 3: [0, 9], 4: [0, 5] });
    expect(shardLagColumns([now], 3).shards).toEqual([1, 3, 4]);
    expect(shardLagColumns([now], 5).shards).toEqual([0, 1, 2, 3, 4]);
  });

  it('draws nothing before the first read', () => {
    expect(shardLagColumns([])).toEqual({ shards: [], data: [[]] });
  });
});
