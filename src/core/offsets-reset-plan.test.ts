import { describe, expect, it } from 'vitest';
import {
  canonicalId,
  compareIds,
  newPosition,
  recordsAfter,
  recordsBetween,
  type StreamEnds,
  shardMove,
} from './offsets-reset-plan.js';

/** Records 3-0 … 7-0 held (1-0 and 2-0 trimmed away), 8-0 generated then deleted. */
const ENDS: StreamEnds = {
  length: 5,
  firstRecordId: '3-0',
  lastRecordId: '7-0',
  lastGeneratedId: '8-0',
  entriesAdded: 8,
};
const EMPTY: StreamEnds = {
  length: 0,
  firstRecordId: null,
  lastRecordId: null,
  lastGeneratedId: '0-0',
  entriesAdded: 0,
};
const all = (count: number) => ({ count, complete: true });

describe('offsets reset > stream ids', () => {
  it.each([
    ['1-0', '1-0', 0],
    ['1-1', '1-0', 1],
    ['9-0', '10-0', -1],
    ['18446744073709551615-0', '18446744073709551614-99', 1],
  ])('orders %s against %s numerically', (a, b, want) => {
    expect(compareIds(a, b)).toBe(want);
  });

  it('accepts only full ids within 64 bits, in canonical form', () => {
    expect(canonicalId('007-01')).toBe('7-1');
    expect(canonicalId('5')).toBeNull();
    expect(canonicalId('1-2-3')).toBeNull();
    expect(canonicalId('18446744073709551616-0')).toBeNull();
  });
});

describe('offsets reset > new position', () => {
  it('earliest is 0-0 and latest the last generated id', () => {
    expect(newPosition({ to: 'earliest' }, ENDS, null)).toEqual({ id: '0-0' });
    expect(newPosition({ to: 'latest' }, ENDS, null)).toEqual({ id: '8-0' });
  });

  it('a timestamp lands on the newest record before it, or 0-0 when none is', () => {
    expect(newPosition({ to: 'timestamp', timestamp: 5 }, ENDS, '4-0')).toEqual({ id: '4-0' });
    expect(newPosition({ to: 'timestamp', timestamp: 1 }, ENDS, null)).toEqual({ id: '0-0' });
  });

  it('an id is taken as given, unless it is after the stream’s last id', () => {
    expect(newPosition({ to: 'id', id: '5-0' }, ENDS, null)).toEqual({ id: '5-0' });
    expect(newPosition({ to: 'id', id: '8-0' }, ENDS, null)).toEqual({ id: '8-0' });
    expect(newPosition({ to: 'id', id: '8-1' }, ENDS, null)).toEqual({
      refused: "id 8-1 is after the stream's last id 8-0",
    });
  });
});

describe('offsets reset > counts the ends answer', () => {
  it.each([
    ['0-0', 5],
    ['2-9', 5],
    ['7-0', 0],
    ['8-0', 0],
    ['3-0', null],
    ['5-0', null],
  ])('records after %s: %s', (id, want) => {
    expect(recordsAfter(ENDS, id)).toBe(want);
  });

  it('an empty stream has nothing after any id', () => {
    expect(recordsAfter(EMPTY, '0-0')).toBe(0);
    expect(recordsBetween(EMPTY, '0-0', '9-0')).toBe(0);
  });

  it.each([
    ['0-0', '8-0', 5],
    ['5-0', '5-0', 0],
    ['7-0', '8-0', 0],
    ['0-0', '5-0', null],
    ['4-0', '8-0', null],
  ])('records in (%s, %s]: %s', (low, high, want) => {
    expect(recordsBetween(ENDS, low, high)).toBe(want);
  });
});

describe('offsets reset > what a move does', () => {
  it('moving forward skips, and keeps the read counter so the lag stays known', () => {
    expect(shardMove(ENDS, '4-0', '8-0', all(3), all(0))).toEqual({
      skippedRecords: 3,
      replayedRecords: 0,
      countExact: true,
      lagAfter: 0,
      entriesRead: 8,
    });
  });

  it('moving back replays; records trimmed away count as read (the lag is what is left)', () => {
    expect(shardMove(ENDS, '6-0', '0-0', all(4), all(5))).toEqual({
      skippedRecords: 0,
      replayedRecords: 4,
      countExact: true,
      lagAfter: 5,
      entriesRead: 3,
    });
  });

  it('a count stopped at its limit is a lower bound, and leaves the read counter to Redis', () => {
    const move = shardMove(ENDS, '0-0', '8-0', { count: 2, complete: false }, { count: 2, complete: false });
    expect(move).toMatchObject({ skippedRecords: 2, countExact: false, lagAfter: null, entriesRead: null });
  });

  it('without Redis 7 counters no read counter is set', () => {
    expect(shardMove({ ...ENDS, entriesAdded: null }, '4-0', '8-0', all(3), all(0)).entriesRead).toBeNull();
  });
});
