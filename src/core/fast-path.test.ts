import { describe, expect, it } from 'vitest';
import { hb } from '../../test/support/heartbeat-fixtures.js';
import { heartbeatKey } from './fast-path.js';
import type { HeartbeatInput } from './heartbeat-types.js';

describe('fast path > request key', () => {
  const base = hb('A', { epoch: 3, mv: 3, owned: [1, 0], progress: [0, 1] });

  it('ignores the request id, progress positions and the order of owned shards', () => {
    const other: HeartbeatInput = {
      ...base,
      requestId: 'another',
      ownedShards: [0, 1],
      shardProgress: base.shardProgress
        .map((p) => ({ ...p, lastDeliveredId: '9-9', pendingCount: 5 }))
        .reverse(),
    };
    expect(heartbeatKey(other)).toBe(heartbeatKey(base));
  });

  it.each<[string, Partial<HeartbeatInput>]>([
    ['epoch', { memberEpoch: 4 }],
    ['metadata version', { metadataVersion: 4 }],
    ['protocol version', { protocolVersion: 2 }],
    ['member name', { memberName: 'x' }],
    ['capacity', { availableConcurrency: 0 }],
    ['owned shards', { ownedShards: [0] }],
    ['revoking reports', { revokingShards: [{ shard: 2, state: 'REVOKED', inFlight: 0, ackedAt: null }] }],
    ['progress shard set', { shardProgress: [] }],
    ['path member id', { pathMemberId: 'B' }],
  ])('changes with the %s', (_, change) => {
    expect(heartbeatKey({ ...base, ...change })).not.toBe(heartbeatKey(base));
  });
});
