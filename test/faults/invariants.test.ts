/**
 * The fault suite's checker itself: what counts as an overlap, an open interval, a lost record
 * and a bad answer.
 */
import { describe, expect, it } from 'vitest';
import type { Answer } from './support/http.js';
import { check, intervalsOf, overlapsOf } from './support/invariants.js';
import type { ChildLine, JsonChild } from './support/processes.js';

const child = (lines: ChildLine[]) => ({ lines }) as unknown as JsonChild;
const open = (m: string, s: number, start: number): ChildLine => ({ t: 'o', m, s, start, end: null });
const close = (m: string, s: number, start: number, end: number): ChildLine => ({ t: 'o', m, s, start, end });
const answer = (at: number, status: number, code: string | null = null): Answer => ({
  at,
  status,
  code,
  body: null,
  what: 'GET x',
});

describe('faults > checker', () => {
  it('treats an interval still open at the end as open until the end', () => {
    const ivs = intervalsOf([open('a', 0, 10), close('a', 0, 10, 20), open('a', 1, 30)], 100);
    expect(ivs).toEqual([
      { member: 'a', shard: 0, start: 10, end: 20, open: false },
      { member: 'a', shard: 1, start: 30, end: 100, open: true },
    ]);
  });

  it('reports overlapping intervals of different members on one shard only', () => {
    const ivs = intervalsOf(
      [
        close('a', 0, 0, 10),
        close('b', 0, 10, 20),
        close('a', 1, 0, 15),
        close('b', 1, 14, 20),
        close('a', 2, 0, 9),
        close('a', 2, 5, 12),
      ],
      100,
    );
    const found = overlapsOf(ivs);
    expect(found).toHaveLength(1);
    expect(found[0]!.map((iv) => [iv.member, iv.shard])).toEqual([
      ['a', 1],
      ['b', 1],
    ]);
  });

  it('counts lost records and duplicates, and allows only retryable 503s inside the fault window', () => {
    const producer = child([1, 2, 3].map((n) => ({ t: 'p', n, at: 0 })));
    const consumer = child([
      { t: 'h', n: '1', at: 0 },
      { t: 'h', n: '1', at: 0 },
      { t: 'h', n: '3', at: 0 },
    ]);
    const f = check({
      producer,
      consumers: [consumer],
      answers: [
        answer(5, 200),
        answer(15, 503, 'REDIS_UNAVAILABLE'),
        answer(16, 500, 'INTERNAL_ERROR'),
        answer(30, 503, 'REDIS_UNAVAILABLE'),
      ],
      window: [10, 20],
      endAt: 100,
    });
    expect(f.lost).toEqual([2]);
    expect(f.duplicates).toBe(1);
    expect(f.badAnswers.map((a) => [a.at, a.status])).toEqual([
      [16, 500],
      [30, 503],
    ]);
    expect(f.faultAnswers).toEqual({ '503 REDIS_UNAVAILABLE': 1, '500 INTERNAL_ERROR': 1 });
  });

  it("judges the consumers' own heartbeats too: SDK timeouts and retryable 503s only inside the window", () => {
    const hb = (at: number, status: number | null, code: string | null): ChildLine => ({
      t: 'e',
      m: 'c-m0',
      ctx: 'heartbeat',
      msg: 'x',
      status,
      code,
      name: status === null ? 'CoordinatorUnreachableError' : 'CoordinatorHttpError',
      at,
    });
    const f = check({
      producer: child([]),
      consumers: [
        child([
          hb(150, null, null),
          hb(160, 503, 'REDIS_UNAVAILABLE'),
          hb(170, 500, 'INTERNAL_ERROR'),
          hb(300, null, null),
        ]),
      ],
      answers: [],
      window: [100, 200],
      endAt: 400,
    });
    expect(f.badAnswers.map((a) => [a.at, a.status])).toEqual([
      [170, 500],
      [300, 0],
    ]);
  });
});
