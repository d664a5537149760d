import { describe, expect, it } from 'vitest';
import { drainVerdict, entriesEverAdded, evidenceRecord, type ShardReading } from './drain-evidence.js';

const stream = (
  length: number,
  groups: Array<[string, number | null, number | null]>,
  entriesAdded: number | null = length,
): ShardReading => ({
  kind: 'stream',
  length,
  entriesAdded,
  groups: groups.map(([name, pending, lag]) => ({ name, pending, lag })),
});

describe('drain evidence > verdict', () => {
  it.each<[string, ShardReading, boolean]>([
    ['an absent key', { kind: 'absent' }, true],
    ['every group read and acknowledged everything', stream(5, [['g', 0, 0]]), true],
    [
      'an unmanaged group that read and acknowledged everything (never deleted)',
      stream(5, [
        ['g', 0, 0],
        ['other', 0, 0],
      ]),
      false,
    ],
    ['an empty stream carrying an unmanaged group', stream(0, [['other', 0, 0]]), false],
    ['a group with pending entries', stream(5, [['g', 2, 0]]), false],
    ['a group with undelivered entries', stream(5, [['g', 0, 3]]), false],
    [
      'an unmanaged group with pending entries',
      stream(5, [
        ['g', 0, 0],
        ['audit', 1, 0],
      ]),
      false,
    ],
    ['a null lag (entry deleted beyond the group position)', stream(5, [['g', 0, null]]), false],
    ['an unknown pending count', stream(5, [['g', null, 0]]), false],
    ['a read error', { kind: 'error', message: 'WRONGTYPE' }, false],
    ['entries and no consumer group at all', stream(3, []), false],
    ['entries and the managed group missing', stream(3, [['audit', 0, 0]]), false],
    ['an empty stream whose lag counts deleted entries', stream(0, [['g', 0, 4]], 4), true],
    ['an empty stream with a null lag', stream(0, [['g', 0, null]], 4), true],
    ['an empty stream with pending entries left', stream(0, [['g', 1, 0]], 4), false],
    ['an empty stream without groups', stream(0, []), true],
  ])('%s → drained %s', (_label, reading, drained) => {
    expect(drainVerdict(reading, ['g']).drained).toBe(drained);
  });

  it('names every reason a shard is not drained', () => {
    const v = drainVerdict(
      stream(5, [
        ['g', 2, null],
        ['audit', 0, 3],
      ]),
      ['g', 'h'],
    );
    expect(v.reason).toContain('"g": 2 pending');
    expect(v.reason).toContain('"g": lag unknown (null');
    expect(v.reason).toContain('"audit": 3 entries not yet delivered');
    expect(v.reason).toContain('"h" is missing while 5 entries remain');
    expect(v.reason).toContain('"audit" is not managed by the coordinator');
  });

  it('keeps what it saw, and a failed read is recorded as such', () => {
    const ok = stream(2, [['g', 0, 0]]);
    expect(evidenceRecord(ok, drainVerdict(ok, ['g']), 7)).toEqual({
      checkedAt: 7,
      drained: true,
      keyExists: true,
      length: 2,
      consumerGroups: [{ name: 'g', pending: 0, lag: 0 }],
      error: null,
    });
    const failed: ShardReading = { kind: 'error', message: 'boom' };
    expect(evidenceRecord(failed, drainVerdict(failed, ['g']), 8)).toMatchObject({
      drained: false,
      keyExists: null,
      error: 'boom',
    });
  });

  it('counts entries ever written: a missing key is 0, an unreadable one unknown', () => {
    expect(entriesEverAdded({ kind: 'absent' })).toBe(0);
    expect(entriesEverAdded(stream(0, [], 3))).toBe(3);
    expect(entriesEverAdded({ kind: 'error', message: 'x' })).toBeNull();
  });
});
