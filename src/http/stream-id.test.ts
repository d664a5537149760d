import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareStreamIds, normalizeStreamId, parseStreamId, streamIdTimestampMs } from './stream-id.js';

describe('stream ids', () => {
  it('accepts ms-seq and bare ms, up to 64 bits each', () => {
    expect(parseStreamId('1-2')).toEqual({ ms: 1n, seq: 2n });
    expect(normalizeStreamId('5')).toBe('5-0');
    expect(normalizeStreamId('007-01')).toBe('7-1');
    expect(normalizeStreamId('18446744073709551615-18446744073709551615')).toBe(
      '18446744073709551615-18446744073709551615',
    );
  });

  it.each([
    '',
    '-',
    '+',
    'abc',
    '1-',
    '-1',
    '1-2-3',
    '1.5',
    ' 1',
    '18446744073709551616',
    '1-18446744073709551616',
  ])('rejects %j', (text) => {
    expect(parseStreamId(text)).toBeNull();
  });

  it('orders numerically, not as text', () => {
    expect(['10-0', '9-5', '9-10', '9-0'].sort(compareStreamIds)).toEqual(['9-0', '9-5', '9-10', '10-0']);
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
        fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
        (a, b) => {
          const sign = Math.sign(compareStreamIds(`${a}-0`, `${b}-0`));
          expect(sign).toBe(a < b ? -1 : a > b ? 1 : 0);
        },
      ),
    );
  });

  it('reads the instant of an id when it has one', () => {
    expect(streamIdTimestampMs('1780000000000-3')).toBe(1780000000000);
    expect(streamIdTimestampMs('18446744073709551615-0')).toBeNull();
    expect(streamIdTimestampMs('x')).toBeNull();
  });
});
