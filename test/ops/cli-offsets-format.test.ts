/** How `offsets reset` prints an executed reset: moved shards, counts that stopped at the limit, pending records. */
import { describe, expect, it } from 'vitest';
import { formatOffsetsReset } from '../../cli/cli-offsets.js';

const shard = (i: number, before: string, after: string, exact: boolean, pending: number) => ({
  shard: { shardIndex: i },
  streamKey: `orders:${i}`,
  lastDeliveredIdBefore: before,
  lastDeliveredIdAfter: after,
  skippedRecords: 1_000_000,
  replayedRecords: 0,
  countExact: exact,
  lagAfter: exact ? 0 : null,
  pendingCount: pending,
});

describe('cli > offsets reset output', () => {
  it('says how many shards moved, marks lower bounds with +, and reminds of pending records', () => {
    const text = formatOffsetsReset({
      streamPrefix: 'orders',
      consumerGroup: 'billing',
      to: 'latest',
      timestamp: null,
      id: null,
      dryRun: false,
      shards: [shard(0, '5-0', '9-0', false, 3), shard(1, '9-0', '9-0', true, 0)],
      totalSkippedRecords: 2_000_000,
      totalReplayedRecords: 0,
      countsExact: false,
    });
    expect(text.split('\n')).toEqual([
      'Reset group billing of stream orders to latest: 1 of 2 shard(s) moved.',
      'SHARD  KEY       BEFORE  AFTER  SKIPPED   REPLAYED  LAG AFTER  PENDING',
      '0      orders:0  5-0     9-0    1000000+  0         -          3',
      '1      orders:1  9-0     9-0    1000000   0         0          0',
      'total: 2000000+ skipped, 0 replayed',
      '(n+: counting stopped at 1,000,000 records on that shard; at least n)',
      'Pending records stay pending: acknowledge or claim them as usual.',
    ]);
  });
});
