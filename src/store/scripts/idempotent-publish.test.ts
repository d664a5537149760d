import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { redisSlot } from '../../routing/slot.js';
import {
  decodeIdempotentReply,
  IDEMPOTENT_PUBLISH,
  idempotencyMarkerKey,
  idempotentPublishArgs,
  idempotentPublishKeys,
  incarnationKey,
} from './idempotent-publish.js';

// Changing the script changes its SHA: update the pin here and in the module together.
const PINNED = '2a018f02eceed2d6c7491d27b5f247ab907becb2';

describe('idempotent-publish script', () => {
  it('matches its pinned SHA1', () => {
    expect(createHash('sha1').update(IDEMPOTENT_PUBLISH.lua).digest('hex')).toBe(PINNED);
    expect(IDEMPOTENT_PUBLISH.sha1).toBe(PINNED);
  });

  it('puts the marker and the incarnation in the shard key slot, the marker named after the incarnation', () => {
    for (const key of ['orders:0', 'orders:7', 'a b:12']) {
      expect(redisSlot(idempotencyMarkerKey(key, 'evt-1', '19a2b3c4d5e6f'))).toBe(redisSlot(key));
      expect(redisSlot(incarnationKey(key))).toBe(redisSlot(key));
    }
    expect(idempotencyMarkerKey('orders:3', 'e{1}', 'i1')).toBe('{orders:3}:idem:i1:e{1}');
    expect(incarnationKey('orders:3')).toBe('{orders:3}:incarnation');
    expect(idempotentPublishKeys('orders:3', 'e', 'i1')).toEqual([
      'orders:3',
      '{orders:3}:incarnation',
      '{orders:3}:idem:i1:e',
    ]);
  });

  it('encodes the incarnation, TTL, MAXLEN, trim mode and field pairs as strings', () => {
    expect(idempotentPublishArgs('i1', 60, 1000, true, { a: '1', b: '' })).toEqual([
      'i1',
      '60',
      '1000',
      '~',
      'a',
      '1',
      'b',
      '',
    ]);
    expect(idempotentPublishArgs('', 60, 5, false, { x: 'y' })).toEqual(['', '60', '5', '=', 'x', 'y']);
  });

  it('decodes the four replies', () => {
    expect(decodeIdempotentReply([2, '1-0'])).toEqual({ status: 'added', entryId: '1-0' });
    expect(decodeIdempotentReply([1, '1-0'])).toEqual({ status: 'duplicate', entryId: '1-0' });
    expect(decodeIdempotentReply([0])).toEqual({ status: 'missing' });
    expect(decodeIdempotentReply([4, 'i2'])).toEqual({ status: 'stale', incarnation: 'i2' });
    expect(() => decodeIdempotentReply('OK')).toThrow(TypeError);
  });
});
