/**
 * The console's pure formatting helpers: durations, times, numbers and shard lists in every wire
 * form the API has sent.
 */
import { describe, expect, it } from 'vitest';
import {
  fmtDuration,
  fmtNum,
  fmtTime,
  groupPath,
  parseTime,
  range,
  shardIndexOf,
  shardList,
} from '../../src/console/app/format.js';

describe('console format > durations and numbers', () => {
  it.each([
    [4200, '4.2 s'],
    [-1500, '-1.5 s'],
    [185_000, '3 m 5 s'],
    [7_800_000, '2 h 10 m'],
    [97_200_000, '1 d 3 h'],
  ])('prints %d ms as %s', (ms, text) => {
    expect(fmtDuration(ms)).toBe(text);
  });

  it('prints a dash for what is not a finite number', () => {
    expect(fmtDuration(Number.NaN)).toBe('—');
    expect(fmtNum(null)).toBe('—');
    expect(fmtNum(1234567)).toBe('1,234,567');
  });
});

describe('console format > times', () => {
  it('prints UTC to the second, or to the millisecond when asked', () => {
    expect(fmtTime('2026-05-24T00:00:03.123Z')).toBe('2026-05-24 00:00:03Z');
    expect(fmtTime('2026-05-24T00:00:03.123Z', true)).toBe('2026-05-24 00:00:03.123Z');
  });

  it('shows what it cannot parse as it came, and nothing as a dash', () => {
    expect(fmtTime('soon')).toBe('soon');
    expect(fmtTime(null)).toBe('—');
    expect(parseTime(42)).toBeNull();
  });
});

describe('console format > shards', () => {
  it('reads a shard index from every wire form', () => {
    expect(shardIndexOf(3)).toBe(3);
    expect(shardIndexOf({ shardIndex: 4 })).toBe(4);
    expect(shardIndexOf({ shard: { shardIndex: 5 } })).toBe(5);
    expect(shardIndexOf({ shard: 6 })).toBe(6);
    expect(shardIndexOf({ other: 1 })).toBeNull();
    expect(shardIndexOf(null)).toBeNull();
  });

  it('sorts shard lists and drops what is not a shard', () => {
    expect(shardList([{ shardIndex: 2 }, 0, { nope: true }, { shard: { shardIndex: 1 } }])).toEqual([
      0, 1, 2,
    ]);
    expect(shardList(undefined)).toEqual([]);
    expect(range(2, 5)).toEqual([2, 3, 4]);
  });

  it('encodes group paths', () => {
    expect(groupPath('a/b', 'g 1')).toBe('/streams/a%2Fb/groups/g%201');
  });
});
