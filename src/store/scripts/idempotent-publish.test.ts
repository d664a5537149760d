import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { redisSlot } from '../../routing/slot.js';
import {
  decodeIdempotentReply,
  IDEMPOTENT_PUBLISH,
  idempotencyMarkerKey,
  idempotentPublishArgs,
} from './idempotent-publish.js';

// Changing the script changes its SHA: update the pin here and in the module together.
const PINNED = 'b0c9ac9bbced1fa467877a65bcfd7a5f16b89e6c';

describe('idempotent-publish script', () => {
  it('matches its pinned SHA1', () => {
    expect(createHash('sha1').update(IDEMPOTENT_PUBLISH.lua).digest('hex')).toBe(PINNED);
    expect(IDEMPOTENT_PUBLISH.sha1).toBe(PINNED);
  });

  it('puts the marker in the shard key slot', () => {
    for (const key of ['orders:0', 'orders:7', 'a b:12']) {
      expect(redisSlot(idempotencyMarkerKey(key, 'evt-1'))).toBe(redisSlot(key));
    }
    expect(idempotencyMarkerKey('orders:3', 'e{1}')).toBe('{orders:3}:idem:e{1}');
  });

  it('encodes TTL, MAXLEN, trim mode and field pairs as strings', () => {
    expect(idempotentPublishArgs(60, 1000, true, { a: '1', b: '' })).toEqual([
      '60',
      '1000',
      '~',
      'a',
      '1',
      'b',
      '',
    ]);
    expect(idempotentPublishArgs(60, 5, false, { x: 'y' })).toEqual(['60', '5', '=', 'x', 'y']);
  });

  it('decodes the three replies', () => {
    expect(decodeIdempotentReply([2, '1-0'])).toEqual({ status: 'added', entryId: '1-0' });
    expect(decodeIdempotentReply([1, '1-0'])).toEqual({ status: 'duplicate', entryId: '1-0' });
    expect(decodeIdempotentReply([0])).toEqual({ status: 'missing' });
    expect(() => decodeIdempotentReply('OK')).toThrow(TypeError);
  });
});
