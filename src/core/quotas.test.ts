import { describe, expect, it } from 'vitest';
import { atLimit, refuseGroupBeyondLimit, refuseJoinBeyondLimit, streamLimitReached } from './quotas.js';

describe('quotas', () => {
  it.each([
    [0, 0, false],
    [1_000_000, 0, false],
    [1, 2, false],
    [2, 2, true],
    [3, 2, true],
  ])('atLimit(%i, limit %i) is %s (0 = no limit)', (count, limit, expected) => {
    expect(atLimit(count, limit)).toBe(expected);
  });

  it('refuses a group beyond the limit with a 409 naming the setting', () => {
    expect(() => refuseGroupBeyondLimit('orders', 'g3', 1, 2)).not.toThrow();
    expect(() => refuseGroupBeyondLimit('orders', 'g3', 2, 2)).toThrow(
      expect.objectContaining({ code: 'GROUP_LIMIT_REACHED', status: 409, retryable: false }),
    );
    expect(() => refuseGroupBeyondLimit('orders', 'g3', 500, 0)).not.toThrow();
  });

  it('refuses only joins, and only at the limit', () => {
    expect(() => refuseJoinBeyondLimit(false, 'm', 10, 2)).not.toThrow();
    expect(() => refuseJoinBeyondLimit(true, 'm', 1, 2)).not.toThrow();
    expect(() => refuseJoinBeyondLimit(true, 'm', 2, 2)).toThrow(
      expect.objectContaining({ code: 'MEMBER_LIMIT_REACHED', status: 409 }),
    );
    expect(() => refuseJoinBeyondLimit(true, 'm', 2, 0)).not.toThrow();
  });

  it('names the stream and the setting when a stream is refused', () => {
    const e = streamLimitReached('orders', 5);
    expect(e).toMatchObject({ code: 'STREAM_LIMIT_REACHED', status: 409 });
    expect(e.message).toContain('"orders"');
    expect(e.message).toContain('COORDINATOR_MAX_STREAMS');
  });
});
