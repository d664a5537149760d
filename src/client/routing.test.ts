import { describe, expect, it } from 'vitest';
import type { ClientError } from './errors.js';
import { chooseShard, parseProducerRouting } from './routing.js';

const body = (over: Record<string, unknown> = {}, n = 3) => ({
  streamPrefix: 'orders',
  consumerGroup: 'billing',
  metadataVersion: 4,
  shardCount: n,
  streamKeyPattern: 'orders:{shardIndex}',
  shards: Array.from({ length: n }, (_, i) => ({ shardIndex: i, streamKey: `orders:${i}`, redisSlot: 0 })),
  ...over,
});

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return (e as ClientError).code;
  }
  return 'no error';
};

describe('producer routing > validation like the reference clients', () => {
  it('accepts the reference shape and keeps the stream keys it lists', () => {
    const r = parseProducerRouting(body(), 'orders', 'billing');
    expect(r).toMatchObject({
      streamPrefix: 'orders',
      consumerGroup: 'billing',
      metadataVersion: 4,
      shardCount: 3,
      streamKeys: ['orders:0', 'orders:1', 'orders:2'],
    });
    expect(r.targets[2]).toEqual({ shardIndex: 2, streamKey: 'orders:2' });
  });

  it('accepts shards listed out of order and ignores unknown fields', () => {
    const b = body({ extra: true });
    (b.shards as unknown[]).reverse();
    expect(parseProducerRouting(b, 'orders', 'billing').streamKeys).toEqual([
      'orders:0',
      'orders:1',
      'orders:2',
    ]);
  });

  it('accepts shardCount 0 with no shards (a fully drained stream)', () => {
    expect(parseProducerRouting(body({}, 0), 'orders', 'billing').shardCount).toBe(0);
  });

  it.each([
    ['another stream', body({ streamPrefix: 'payments' })],
    ['another group', body({ consumerGroup: 'other' })],
    ['a negative shard count', body({ shardCount: -1 })],
    ['a fractional shard count', body({ shardCount: 1.5 })],
    ['a missing metadataVersion', body({ metadataVersion: undefined })],
    ['fewer shards than shardCount', body({ shardCount: 4 })],
    ['more shards than shardCount', body({ shardCount: 2 })],
    [
      'a duplicated index',
      body({ shards: [0, 0, 2].map((i) => ({ shardIndex: i, streamKey: `orders:${i}` })) }),
    ],
    [
      'an index out of range',
      body({ shards: [0, 1, 3].map((i) => ({ shardIndex: i, streamKey: `orders:${i}` })) }),
    ],
    ['an empty stream key', body({ shards: [0, 1, 2].map((i) => ({ shardIndex: i, streamKey: '' })) })],
    [
      'a hash-tagged stream key',
      body({ shards: [0, 1, 2].map((i) => ({ shardIndex: i, streamKey: `{o}:${i}` })) }),
    ],
    ['no object at all', 'orders'],
  ])('rejects %s with INVALID_ROUTING', (_, b) => {
    expect(code(() => parseProducerRouting(b, 'orders', 'billing'))).toBe('INVALID_ROUTING');
  });
});

describe('producer routing > shard choice', () => {
  it('routes with routeV1 and takes the key from shards[]', () => {
    const r = parseProducerRouting(body({}, 8), 'orders', 'billing');
    // route-v1-vectors.json: "order-123" → 5 of 8.
    expect(chooseShard(r, 'order-123')).toEqual({ shardIndex: 5, streamKey: 'orders:5' });
  });

  it('refuses to route with no shards (NO_SHARDS)', () => {
    const r = parseProducerRouting(body({}, 0), 'orders', 'billing');
    expect(code(() => chooseShard(r, 'k'))).toBe('NO_SHARDS');
  });
});

describe('producer routing > key bytes', () => {
  it('encodes ASCII and non-ASCII keys exactly as UTF-8', async () => {
    const { utf8Bytes } = await import('./routing.js');
    for (const key of ['', 'order-123', 'ключ', 'a😀b', '\u007f\u0080']) {
      expect([...utf8Bytes(key)]).toEqual([...new TextEncoder().encode(key)]);
    }
  });
});
