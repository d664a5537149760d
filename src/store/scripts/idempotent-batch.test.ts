import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  decodeBatchReply,
  IDEMPOTENT_BATCH,
  idempotentBatchCall,
  joinBatchCalls,
} from './idempotent-batch.js';

// Changing the script changes its SHA: update the pin here and in the module together.
const PINNED = 'ac5f2c423b5f743e24167502eff9613e63a51d31';

describe('idempotent-batch script', () => {
  it('matches its pinned SHA1', () => {
    expect(createHash('sha1').update(IDEMPOTENT_BATCH.lua).digest('hex')).toBe(PINNED);
    expect(IDEMPOTENT_BATCH.sha1).toBe(PINNED);
  });

  it('passes the shard, its incarnation and the markers as KEYS, and its key and argument counts, then per record its marker position, field count and fields', () => {
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
      ...['4', '16'],
      ...['i1', '60', '1000', '~'],
      ...['3', '4', 'x', '1', 'y', '', '0', '2', 'z', '2', '4', '0'],
    ]);
    expect(idempotentBatchCall('s:0', '', 5, 9, false, []).args).toEqual(['2', '4', '', '5', '9', '=']);
  });

  it('joins segments of several shards into one call, in order', () => {
    const a = idempotentBatchCall('s:0', '*', 5, 9, true, [{ fields: { x: '1' } }]);
    const b = idempotentBatchCall('s:1', 'i2', 5, 9, true, [{ eventId: 'e', fields: { y: '2' } }]);
    expect(joinBatchCalls([a])).toBe(a);
    expect(joinBatchCalls([a, b])).toEqual({
      keys: ['s:0', '{s:0}:incarnation', 's:1', '{s:1}:incarnation', '{s:1}:idem:i2:e'],
      args: [
        ...['2', '8', '*', '5', '9', '~', '0', '2', 'x', '1'],
        ...['3', '8', 'i2', '5', '9', '~', '3', '2', 'y', '2'],
      ],
    });
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
