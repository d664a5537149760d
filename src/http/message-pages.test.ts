import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  budgetedLimit,
  checkReadBudget,
  checkTailBudget,
  MAX_RECORDS_READ_PER_REQUEST,
  tailWindow,
} from './message-pages.js';

describe('message pages > tail window', () => {
  it('puts the remainder on the last page', () => {
    expect(tailWindow(10, 3, 0)).toEqual({
      distanceFromLast: 0,
      offsetFromTail: 0,
      pageSize: 1,
      readCount: 1,
    });
    expect(tailWindow(10, 3, 1)).toEqual({
      distanceFromLast: 1,
      offsetFromTail: 1,
      pageSize: 3,
      readCount: 4,
    });
    expect(tailWindow(10, 3, 99)).toEqual({
      distanceFromLast: 3,
      offsetFromTail: 7,
      pageSize: 3,
      readCount: 10,
    });
    expect(tailWindow(0, 3, 0)).toEqual({
      distanceFromLast: 0,
      offsetFromTail: 0,
      pageSize: 0,
      readCount: 0,
    });
  });

  it('tiles the records exactly: every page from the last to the first, no gap, no overlap', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 500 }), fc.integer({ min: 1, max: 60 }), (total, limit) => {
        const pages = Math.ceil(total / limit);
        let covered = 0;
        for (let d = 0; d < pages; d++) {
          const w = tailWindow(total, limit, d);
          expect(w.distanceFromLast).toBe(d);
          expect(w.offsetFromTail).toBe(covered);
          covered += w.pageSize;
        }
        expect(covered).toBe(total);
      }),
    );
  });
});

describe('message pages > read budget', () => {
  it('keeps the limit while every shard fits, shrinks it over many shards, refuses past 3 records a shard', () => {
    expect(MAX_RECORDS_READ_PER_REQUEST).toBe(10_000);
    expect(budgetedLimit(1000, 1)).toBe(1000);
    expect(budgetedLimit(1000, 9)).toBe(1000);
    expect(budgetedLimit(1000, 16)).toBe(623);
    expect(budgetedLimit(1000, 1024)).toBe(7);
    expect(budgetedLimit(5, 1024)).toBe(5);
    expect(budgetedLimit(25, 0)).toBe(25);
    expect(budgetedLimit(1000, 3333)).toBe(1);
    expect(() => budgetedLimit(1, 3334)).toThrow(/select one shard/);
  });

  it('never lets a page read more than the budget', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 3333 }), (limit, shards) => {
        expect(shards * (budgetedLimit(limit, shards) + 2)).toBeLessThanOrEqual(MAX_RECORDS_READ_PER_REQUEST);
      }),
    );
  });

  it('refuses a tail window or lookup beyond the budget with INVALID_REQUEST', () => {
    expect(() => checkTailBudget(tailWindow(10_000, 1000, 99), 1)).not.toThrow();
    expect(() => checkTailBudget(tailWindow(10_001, 1000, 99), 1)).toThrow(
      expect.objectContaining({ code: 'INVALID_REQUEST', message: expect.stringContaining('10001 in all') }),
    );
    expect(() => checkTailBudget(tailWindow(6000, 1000, 99), 2)).toThrow(/each of 2 shard/);
    expect(() => checkReadBudget(1, 10_000, 'recordId', 'x')).not.toThrow();
    expect(() => checkReadBudget(1, 10_001, 'recordId', 'x')).toThrow(/10001 in all/);
  });
});
