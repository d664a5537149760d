import { describe, expect, it } from 'vitest';
import { entries, integerOrNull, parseGroups, parseRecord, parseStreamInfo } from './xinfo-reply.js';

// Reply shapes as ioredis delivers them over RESP2, and the Map/object shapes a RESP3 client may give.
describe('xinfo replies', () => {
  const flat = [
    'length',
    2,
    'last-generated-id',
    '5-0',
    'entries-added',
    7,
    'first-entry',
    ['4-0', ['a', '1']],
    'last-entry',
    ['5-0', ['a', '2']],
  ];

  it('parses XINFO STREAM from a flat array, a Map or an object', () => {
    const want = {
      length: 2,
      firstRecordId: '4-0',
      lastRecordId: '5-0',
      lastGeneratedId: '5-0',
      entriesAdded: 7,
    };
    expect(parseStreamInfo(flat)).toEqual(want);
    expect(parseStreamInfo(entries(flat))).toEqual(want);
    expect(parseStreamInfo(Object.fromEntries(entries(flat)))).toEqual(want);
    expect(parseStreamInfo(['length', 0, 'first-entry', null, 'last-entry', null])).toMatchObject({
      firstRecordId: null,
      entriesAdded: null,
    });
    expect(parseStreamInfo('garbage')).toBeNull();
  });

  it('parses XINFO GROUPS with nil lag and entries-read', () => {
    const reply = [
      [
        'name',
        'g',
        'consumers',
        0,
        'pending',
        1,
        'last-delivered-id',
        '0-0',
        'entries-read',
        null,
        'lag',
        null,
      ],
      'junk',
    ];
    expect(parseGroups(reply)).toEqual([
      { name: 'g', consumers: 0, pending: 1, lastDeliveredId: '0-0', entriesRead: null, lag: null },
    ]);
  });

  it('parses range entries and integers defensively', () => {
    expect(parseRecord(['1-0', ['k', 'v', 'k', 'w']])).toEqual({ id: '1-0', fields: { k: 'w' } });
    expect(parseRecord('x')).toBeNull();
    expect(integerOrNull('42')).toBe(42);
    expect(integerOrNull('4.2')).toBeNull();
    expect(integerOrNull(null)).toBeNull();
  });
});
