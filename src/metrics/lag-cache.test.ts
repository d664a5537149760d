/**
 * The lag cache bounds its Redis cost: one read per refresh interval however often it is
 * scraped (concurrent scrapes share it), at most `maxShards` shard streams per read, the rest
 * covered round-robin; and the label budget and summary behave as documented.
 */
import { describe, expect, it } from 'vitest';
import type { GroupSnapshot } from '../coordinator-api.js';
import type { KeyGroup, ShardReading, StreamInspector } from '../store/inspector.js';
import { LabelBudget, OTHER_LABEL } from './label-budget.js';
import { LagCache } from './lag-cache.js';
import { nearestRank, Summary } from './summary.js';

/** An inspector that counts reads and answers lag = shard index + 1, pending 0. */
function countingInspector() {
  const reads: string[][] = [];
  const inspector: StreamInspector = {
    clustered: false,
    readShards: async (keys) => {
      reads.push([...keys]);
      return keys.map(
        (streamKey): ShardReading => ({
          streamKey,
          stream: {
            length: 10,
            firstRecordId: null,
            lastRecordId: null,
            lastGeneratedId: null,
            entriesAdded: 10,
          },
          groups: [
            {
              name: 'g',
              consumers: 0,
              pending: 0,
              lastDeliveredId: null,
              entriesRead: 0,
              lag: Number(streamKey.split(':')[1]) + 1,
            },
          ],
          memoryUsageBytes: 100,
        }),
      );
    },
    streams: async () => [],
    range: async () => [],
    slotOwners: async () => new Map(),
    pendingSummaries: async (pairs: readonly KeyGroup[]) => pairs.map(() => null),
  };
  return { inspector, reads };
}

function snap(prefix: string, shardCount: number): GroupSnapshot {
  return {
    stream: { streamPrefix: prefix, shardCount, removedShards: [], migrations: [], activeReshardingId: null },
    group: { consumerGroup: 'g', members: {} },
  } as unknown as GroupSnapshot;
}

describe('metrics > lag cache', () => {
  it('reads Redis at most once per refresh interval, sharing a read between concurrent scrapes', async () => {
    let t = 1_000_000;
    const { inspector, reads } = countingInspector();
    const cache = new LagCache({ inspector, refreshMs: 10_000, maxShards: 100, now: () => t });
    const snaps = [snap('a', 3)];
    const [x, y] = await Promise.all([cache.lags(snaps), cache.lags(snaps)]);
    expect(reads.length).toBe(1);
    expect(x![0]!.totalLag).toBe(1 + 2 + 3);
    expect(y![0]!.totalLag).toBe(6);
    t += 9_999;
    await cache.lags(snaps);
    expect(reads.length).toBe(1);
    t += 1;
    await cache.lags(snaps);
    expect(reads.length).toBe(2);
  });

  it('reads at most maxShards shard streams per refresh and covers the rest round-robin', async () => {
    let t = 0;
    const { inspector, reads } = countingInspector();
    const cache = new LagCache({ inspector, refreshMs: 1, maxShards: 2, now: () => t });
    const snaps = [snap('a', 3), snap('b', 2)];
    const seen = new Set<string>();
    for (let i = 0; i < 3; i++) {
      t += 1;
      const from = reads.length;
      await cache.lags(snaps);
      const keys = reads.slice(from).flat();
      expect(keys.length).toBe(2);
      for (const k of keys) seen.add(k);
    }
    expect(reads.flat().length).toBe(6);
    expect([...seen].sort()).toEqual(['a:0', 'a:1', 'a:2', 'b:0', 'b:1']);
    // After one full round every shard has a reading.
    const lags = await cache.lags(snaps);
    expect(lags.map((l) => l.shards.length)).toEqual([3, 2]);
    expect(lags.map((l) => l.totalLag)).toEqual([6, 3]);
  });
});

describe('metrics > label budget', () => {
  const pair = (stream: string, group = 'g') => ({ stream, group });

  it('gives the first max pairs of a snapshot a slot, keeps them, and reports the rest as _other', () => {
    const b = new LabelBudget(2);
    expect(b.sync([pair('s1'), pair('s2'), pair('s3')])).toEqual([]);
    expect(b.lookup('s1', 'g')).toEqual({ stream: 's1', group: 'g' });
    expect(b.lookup('s2', 'g')).toEqual({ stream: 's2', group: 'g' });
    expect(b.lookup('s3', 'g')).toEqual({ stream: OTHER_LABEL, group: OTHER_LABEL });
    // A pair that holds its slot keeps it, whatever comes before it in a later snapshot.
    expect(b.sync([pair('s0'), pair('s1'), pair('s2'), pair('s3')])).toEqual([]);
    expect(b.lookup('s1', 'g')).toEqual({ stream: 's1', group: 'g' });
    expect(b.lookup('s0', 'g')).toEqual({ stream: OTHER_LABEL, group: OTHER_LABEL });
    expect(b.streamOnly('s1')).toEqual({ stream: 's1', group: 'none' });
    expect(b.streamOnly('s3')).toEqual({ stream: OTHER_LABEL, group: 'none' });
    expect(b.size).toBe(2);
    expect(b.overflowCount).toBe(2);
  });

  it('never gives a slot on lookup, and releases the slot of a pair the snapshot no longer lists', () => {
    const b = new LabelBudget(1);
    expect(b.lookup('ghost', 'g')).toEqual({ stream: OTHER_LABEL, group: OTHER_LABEL });
    expect(b.size).toBe(0);
    b.sync([pair('s1')]);
    expect(b.sync([pair('s2')])).toEqual([pair('s1')]);
    expect(b.lookup('s1', 'g')).toEqual({ stream: OTHER_LABEL, group: OTHER_LABEL });
    expect(b.lookup('s2', 'g')).toEqual({ stream: 's2', group: 'g' });
    expect(b.streamOnly('s1')).toEqual({ stream: OTHER_LABEL, group: 'none' });
    expect(b.hasStream('s2')).toBe(true);
  });
});

describe('metrics > summary', () => {
  it('publishes windowed quantiles and max, cumulative count and sum', () => {
    let t = 0;
    const s = new Summary({
      name: 'x_seconds',
      help: 'x',
      quantiles: [0.5, 0.95],
      windowMs: 1000,
      clock: () => t,
    });
    for (let i = 1; i <= 100; i++) s.observe(undefined, i);
    const max = s.maxFamily('max');
    expect(s.samples()).toEqual([
      'x_seconds{quantile="0.5"} 50',
      'x_seconds{quantile="0.95"} 95',
      'x_seconds_sum 5050',
      'x_seconds_count 100',
    ]);
    expect(max.samples()).toEqual(['x_seconds_max 100']);
    t = 2000;
    expect(s.samples()[0]).toBe('x_seconds{quantile="0.5"} 0');
    expect(s.samples()[3]).toBe('x_seconds_count 100');
    expect(nearestRank([], 0.5)).toBe(0);
  });
});
