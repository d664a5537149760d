import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tailWindow } from './message-pages.js';

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
