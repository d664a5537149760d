import { describe, expect, it } from 'vitest';
import { encodeMergedCursor, parsePageCursor, parseTailCursor, tailNextCursor } from './grafana-messages.js';

describe('grafana messages > cursors', () => {
  it('recognises tail cursors', () => {
    expect(parseTailCursor(null)).toBeNull();
    expect(parseTailCursor('__rsc_last__')).toBe(0);
    expect(parseTailCursor('__rsc_tail__:3')).toBe(3);
    expect(parseTailCursor('__rsc_tail__:-2')).toBe(0);
    expect(parseTailCursor('__rsc_tail__:x')).toBeNull();
    expect(parseTailCursor('1-0')).toBeNull();
    expect(tailNextCursor(2)).toBe('__rsc_tail__:1');
    expect(tailNextCursor(0)).toBeNull();
  });

  it('reads merged cursors for the selected shards and normalises ids', () => {
    expect([...parsePageCursor('all:0=5-1,2=7,9=1-1', [0, 1, 2])]).toEqual([
      [0, '5-1'],
      [2, '7-0'],
    ]);
    expect(parsePageCursor('all:', [0]).size).toBe(0);
    expect([...parsePageCursor('3-4', [0, 1])]).toEqual([
      [0, '3-4'],
      [1, '3-4'],
    ]);
  });

  it.each(['all:0', 'all:x=1-0', 'all:0=abc', 'abc'])('rejects %j with 400', (cursor) => {
    expect(() => parsePageCursor(cursor, [0])).toThrow(expect.objectContaining({ code: 'INVALID_REQUEST' }));
  });

  it('encodes merged cursors with shards ascending', () => {
    expect(
      encodeMergedCursor(
        new Map([
          [2, '9-0'],
          [0, '1-0'],
        ]),
      ),
    ).toBe('all:0=1-0,2=9-0');
  });
});
