/**
 * `routeV1`: partition key → shard index, bit-for-bit as the reference clients (docs/protocol.md#routev1).
 * Shared by the server and the producer SDK; runs on Node and Workers.
 */
import { murmur3Hash32, murmur3Hash32Unsigned } from './murmur3.js';

const TWO_POW_32 = 2 ** 32;
const utf8 = new TextEncoder();

/** Largest shard count the unbiased rejection loop is defined for (the hash is 32-bit). */
const MAX_ROUTE_SHARD_COUNT = TWO_POW_32;

/** Seed used for the `attempt`-th rehash: murmur3 of `attempt` as 4 little-endian bytes. */
export function routeV1RetrySeed(attempt: number): number {
  const le = new Uint8Array(4);
  new DataView(le.buffer).setUint32(0, attempt >>> 0, true);
  return murmur3Hash32(le, 0);
}

/** A routing decision with the number of rehashes the rejection loop needed. */
export interface RouteV1Result {
  shardIndex: number;
  rehashAttempts: number;
}

/** Shard index of `partitionKey` (UTF-8 encoded when a string) among `shardCount` shards. */
export function routeV1(partitionKey: string | Uint8Array, shardCount: number): number {
  return routeV1Detailed(partitionKey, shardCount).shardIndex;
}

/** `routeV1` plus how many rehashes it took (diagnostics and tests). */
export function routeV1Detailed(partitionKey: string | Uint8Array, shardCount: number): RouteV1Result {
  if (!Number.isInteger(shardCount) || shardCount < 1 || shardCount > MAX_ROUTE_SHARD_COUNT) {
    throw new RangeError(`shardCount must be an integer in [1, 2^32], got ${shardCount}`);
  }
  const bytes = typeof partitionKey === 'string' ? utf8.encode(partitionKey) : partitionKey;
  // Reject hashes in the incomplete last block of `shardCount`-sized buckets so every shard
  // is equally likely; rehash with a derived seed until one lands below the limit.
  const limit = TWO_POW_32 - (TWO_POW_32 % shardCount);
  let h = murmur3Hash32Unsigned(bytes, 0);
  let attempt = 0;
  while (h >= limit) {
    attempt += 1;
    h = murmur3Hash32Unsigned(bytes, routeV1RetrySeed(attempt));
  }
  return { shardIndex: h % shardCount, rehashAttempts: attempt };
}
