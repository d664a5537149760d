import { describe, expect, it } from 'vitest';
import { drainVerdict, entriesEverAdded, evidenceRecord, type ShardReading } from './drain-evidence.js';

/**
 * A stream reading; each group is `[name, pending, lag, entry after its position?]`, the last
 * defaulting to what an honest lag implies (none after it when lag is 0, some otherwise).
 */
const stream = (
  length: number,
  groups: Array<[string, number | null, number | null, (boolean | null)?]>,
  entriesAdded: number | null = length,
): ShardReading => ({
  kind: 'stream',
  length,
  entriesAdded,
  groups: groups.map(([name, pending, lag, after]) => ({
    name,
    pending,
    lag,
    lastDeliveredId: '7-0',
    entryAfterLastDelivered: after === undefined ? lag !== 0 : after,
  })),
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
    // The IDs decide; lag is only a hint.
    [
      'a stale lag (restart from the AOF) with nothing after the position',
      stream(5, [['g', 0, 5, false]]),
      true,
    ],
    ['a null lag with nothing after the position', stream(5, [['g', 0, null, false]]), true],
    ['lag 0 while an entry follows the position', stream(5, [['g', 0, 0, true]]), false],
    ['lag 0 and an unknown position (lag alone is not evidence)', stream(5, [['g', 0, 0, null]]), false],
    ['a stale lag, nothing after the position, but pending entries', stream(5, [['g', 1, 5, false]]), false],
    ['an empty stream with an unknown position', stream(0, [['g', 0, null, null]], 4), true],
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

  it('says where the undelivered entries are, and when lag and the IDs disagree', () => {
    const v = drainVerdict(
      stream(5, [
        ['g', 0, 0, true],
        ['h', 0, 3, null],
        ['i', 0, 4, false],
      ]),
      ['g', 'h', 'i'],
    );
    expect(v.reason).toContain('"g": entries not yet delivered: some remain after its last-delivered-id 7-0');
    expect(v.reason).toContain('"h": could not tell whether an entry follows its last-delivered-id 7-0');
    expect(v.reason).not.toContain('"i"');
  });

  it('keeps what it saw, and a failed read is recorded as such', () => {
    const ok = stream(2, [['g', 0, 0]]);
    expect(evidenceRecord(ok, drainVerdict(ok, ['g']), 7)).toEqual({
      checkedAt: 7,
      drained: true,
      keyExists: true,
      length: 2,
      consumerGroups: [
        { name: 'g', pending: 0, lag: 0, lastDeliveredId: '7-0', entryAfterLastDelivered: false },
      ],
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
