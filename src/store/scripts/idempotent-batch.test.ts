import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeBatchReply, IDEMPOTENT_BATCH, idempotentBatchCall } from './idempotent-batch.js';

// Changing the script changes its SHA: update the pin here and in the module together.
const PINNED = '1c9f87d8740134f03a12bc817bb5ee60b48cd5ea';

describe('idempotent-batch script', () => {
  it('matches its pinned SHA1', () => {
    expect(createHash('sha1').update(IDEMPOTENT_BATCH.lua).digest('hex')).toBe(PINNED);
    expect(IDEMPOTENT_BATCH.sha1).toBe(PINNED);
  });

  it('passes the shard, its incarnation and the markers as KEYS, and per record its marker position, field count and fields', () => {
    const call = idempotentBatchCall('orders:1', 'i1', 60, 1000, true, [
      { eventId: 'a', fields: { x: '1', y: '' } },
      { fields: { z: '2' } },
      { eventId: 'b', fields: {} },
    ]);
    expect(call.keys).toEqual([
      'orders:1',
      '{orders:1}:incarnation',
      '{orders:1}:idem:i1:a',
      '{orders:1}:idem:i1:b',
    ]);
    expect(call.args).toEqual([
      ...['i1', '60', '1000', '~'],
      ...['3', '4', 'x', '1', 'y', '', '0', '2', 'z', '2', '4', '0'],
    ]);
    expect(idempotentBatchCall('s:0', '', 5, 9, false, []).args).toEqual(['', '5', '9', '=']);
  });

  it('decodes one reply per record and refuses a reply of the wrong length or shape', () => {
    expect(decodeBatchReply([[2, '1-0'], [1, '0-9'], [0], [3, 'WRONGTYPE x'], [4, 'i2']], 5)).toEqual([
      { status: 'added', entryId: '1-0' },
      { status: 'duplicate', entryId: '0-9' },
      { status: 'missing' },
      { status: 'refused', text: 'WRONGTYPE x' },
      { status: 'stale', incarnation: 'i2' },
    ]);
    expect(() => decodeBatchReply([[2, '1-0']], 2)).toThrow(TypeError);
    expect(() => decodeBatchReply([[7, 'x']], 1)).toThrow(TypeError);
    expect(() => decodeBatchReply('OK', 1)).toThrow(TypeError);
  });
});
