import { describe, expect, it } from 'vitest';
import { vectorsText } from '../../test/support/vectors.js';
import { murmur3Hash32, murmur3Hash32Unsigned } from './murmur3.js';
import { routeV1, routeV1Detailed, routeV1RetrySeed } from './route-v1.js';

interface Vectors {
  shardCounts: number[];
  vectors: { partitionKey: string; utf8Hex: string; murmur3Signed: number; shards: Record<string, number> }[];
  retrySeeds: Record<string, number>;
  rejectionLoopVectors: {
    partitionKey: string;
    shardCount: number;
    murmur3Signed: number;
    rehashAttemptsUsed: number;
    shardIndex: number;
  }[];
}

const vectors: Vectors = JSON.parse(vectorsText());

const hexBytes = (hex: string) => Uint8Array.from(hex.match(/../g) ?? [], (b) => Number.parseInt(b, 16));

describe('routing > murmur3_x86_32', () => {
  it.each(vectors.vectors)('hashes $partitionKey to the reference signed value', (v) => {
    const bytes = new TextEncoder().encode(v.partitionKey);
    expect(Buffer.from(bytes).toString('hex')).toBe(v.utf8Hex);
    expect(murmur3Hash32(bytes, 0)).toBe(v.murmur3Signed);
    expect(murmur3Hash32Unsigned(bytes, 0)).toBe(v.murmur3Signed >>> 0);
  });

  it('matches the routeV1 examples', () => {
    const enc = (s: string) => new TextEncoder().encode(s);
    expect(murmur3Hash32(enc(''))).toBe(0);
    expect(murmur3Hash32(enc('hello'))).toBe(613153351);
    expect(murmur3Hash32(enc('order-123'))).toBe(-1381100355);
  });

  it('treats the seed as its low 32 bits (signed and unsigned seeds agree)', () => {
    const bytes = new TextEncoder().encode('order-123');
    const seed = routeV1RetrySeed(1);
    expect(murmur3Hash32(bytes, seed)).toBe(murmur3Hash32(bytes, seed >>> 0));
  });
});

describe('routing > routeV1', () => {
  for (const v of vectors.vectors) {
    it(`routes ${JSON.stringify(v.partitionKey)} like the reference clients for every shard count`, () => {
      for (const n of vectors.shardCounts) {
        expect(routeV1(v.partitionKey, n), `shardCount ${n}`).toBe(v.shards[String(n)]);
        expect(routeV1(hexBytes(v.utf8Hex), n), `bytes, shardCount ${n}`).toBe(v.shards[String(n)]);
      }
    });
  }

  it('derives the reference retry seeds', () => {
    for (const [attempt, seed] of Object.entries(vectors.retrySeeds)) {
      expect(routeV1RetrySeed(Number(attempt))).toBe(seed);
    }
  });

  it.each(vectors.rejectionLoopVectors)(
    'rehashes $partitionKey $rehashAttemptsUsed time(s) for shardCount $shardCount',
    (v) => {
      const bytes = new TextEncoder().encode(v.partitionKey);
      expect(murmur3Hash32(bytes)).toBe(v.murmur3Signed);
      expect(routeV1Detailed(v.partitionKey, v.shardCount)).toEqual({
        shardIndex: v.shardIndex,
        rehashAttempts: v.rehashAttemptsUsed,
      });
      expect(routeV1(v.partitionKey, v.shardCount)).toBe(v.shardIndex);
    },
  );

  it('refuses shard counts below 1, fractional or beyond 2^32', () => {
    for (const n of [0, -1, 1.5, Number.NaN, 2 ** 32 + 1]) {
      expect(() => routeV1('k', n)).toThrow(RangeError);
    }
  });

  it('always returns an index inside [0, shardCount)', () => {
    for (let i = 0; i < 500; i++) {
      const n = (i % 37) + 1;
      const idx = routeV1(`key-${i}`, n);
      expect(idx).toBeGreaterThanOrEqual(0);
      expect(idx).toBeLessThan(n);
    }
  });
});
