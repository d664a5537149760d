import { describe, expect, it } from 'vitest';
import {
  compareIds,
  parseEntries,
  parsePending,
  parseReadReply,
  supportsAckDelete,
} from './consumer-replies.js';

describe('consumer redis > replies', () => {
  const entries = [
    ['1-0', ['a', '1', 'b', '2']],
    ['1-1', null],
  ];
  const parsed = [
    { id: '1-0', fields: { a: '1', b: '2' } },
    { id: '1-1', fields: null },
  ];

  it('reads XREADGROUP replies in RESP2, RESP3-legacy (call) and RESP3-map shapes', () => {
    expect(parseReadReply([['k', entries]])).toEqual(parsed);
    expect(parseReadReply(['k', entries])).toEqual(parsed);
    expect(parseReadReply({ k: entries })).toEqual(parsed);
    expect(parseReadReply(new Map([['k', entries]]))).toEqual(parsed);
    expect(parseReadReply(null)).toEqual([]);
  });

  it('reads entries with map-shaped fields and skips ids Redis reports as nil', () => {
    expect(parseEntries([['2-0', { x: 'y' }], null, [null, null]])).toEqual([
      { id: '2-0', fields: { x: 'y' } },
    ]);
  });

  it('reads extended XPENDING rows', () => {
    expect(parsePending([['1-0', 'c', 15, 3], ['bad']])).toEqual([
      { id: '1-0', consumer: 'c', idleMs: 15, deliveries: 3 },
    ]);
  });
});

describe('consumer redis > XACKDEL detection', () => {
  it.each([
    ['# Server\r\nredis_version:7.0.15\r\n', false],
    ['redis_version:8.0.2\r\n', false],
    ['redis_version:8.2.0\r\n', true],
    ['redis_version:9.0.0\r\n', true],
    ['valkey_version:8.2.0\r\n', false],
    ['nothing', false],
  ])('%j → %s', (info, expected) => {
    expect(supportsAckDelete(info)).toBe(expected);
  });
});

describe('consumer redis > stream ids', () => {
  it('orders ids numerically by milliseconds, then sequence', () => {
    expect(compareIds('10-0', '9-5')).toBe(1);
    expect(compareIds('9-5', '9-10')).toBe(-1);
    expect(compareIds('9-5', '9-5')).toBe(0);
    expect(compareIds('1700000000000-0', '1700000000001-0')).toBe(-1);
  });
});
