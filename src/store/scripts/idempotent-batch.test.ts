import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeBatchReply, IDEMPOTENT_BATCH, idempotentBatchCall } from './idempotent-batch.js';

// Changing the script changes its SHA: update the pin here and in the module together.
const PINNED = '6b9dc972a11894311e0cb95e528bf67b932f53a0';

describe('idempotent-batch script', () => {
  it('matches its pinned SHA1', () => {
    expect(createHash('sha1').update(IDEMPOTENT_BATCH.lua).digest('hex')).toBe(PINNED);
    expect(IDEMPOTENT_BATCH.sha1).toBe(PINNED);
  });

  it('passes the shard and the markers as KEYS, and per record its marker position, field count and fields', () => {
    const call = idempotentBatchCall('orders:1', 60, 1000, true, [
      { markerKey: '{orders:1}:idem:a', fields: { x: '1', y: '' } },
      { fields: { z: '2' } },
      { markerKey: '{orders:1}:idem:b', fields: {} },
    ]);
    expect(call.keys).toEqual(['orders:1', '{orders:1}:idem:a', '{orders:1}:idem:b']);
    expect(call.args).toEqual(['60', '1000', '~', '2', '4', 'x', '1', 'y', '', '0', '2', 'z', '2', '3', '0']);
    expect(idempotentBatchCall('s:0', 5, 9, false, []).args).toEqual(['5', '9', '=']);
  });

  it('decodes one reply per record and refuses a reply of the wrong length or shape', () => {
    expect(decodeBatchReply([[2, '1-0'], [1, '0-9'], [0], [3, 'WRONGTYPE x']], 4)).toEqual([
      { status: 'added', entryId: '1-0' },
      { status: 'duplicate', entryId: '0-9' },
      { status: 'missing' },
      { status: 'refused', text: 'WRONGTYPE x' },
    ]);
    expect(() => decodeBatchReply([[2, '1-0']], 2)).toThrow(TypeError);
    expect(() => decodeBatchReply([[7, 'x']], 1)).toThrow(TypeError);
    expect(() => decodeBatchReply('OK', 1)).toThrow(TypeError);
  });
});
