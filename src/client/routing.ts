/**
 * Producer routing as the SDK holds it: the coordinator's `ProducerRoutingResponse`
 * (docs/protocol.md#producer-routing), validated the way the reference clients validate it, and the shard choice by `routeV1`.
 */
import { routeV1 } from '../routing/route-v1.js';
import { InvalidRoutingError, NoShardsError } from './errors.js';

/** A validated routing answer. */
export interface ProducerRouting {
  readonly streamPrefix: string;
  readonly consumerGroup: string;
  readonly metadataVersion: number;
  readonly shardCount: number;
  /** Stream key of shard `i` at index `i` (taken from `shards[]`, as both reference clients do). */
  readonly streamKeys: readonly string[];
  /** Target of shard `i` at index `i` (built once, shared by every record routed there). */
  readonly targets: readonly ShardTarget[];
}

/** Where one record goes. */
export interface ShardTarget {
  readonly shardIndex: number;
  readonly streamKey: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/**
 * Checks a routing answer for `streamPrefix`/`consumerGroup`: matching names, a non-negative
 * integer `shardCount`, and shard indexes exactly `0..shardCount-1`, each with a usable key.
 * Unknown fields are ignored (servers may add fields).
 */
export function parseProducerRouting(
  body: unknown,
  streamPrefix: string,
  consumerGroup: string,
): ProducerRouting {
  const bad = (why: string) =>
    new InvalidRoutingError(`routing for '${streamPrefix}'/'${consumerGroup}': ${why}`);
  if (!isObject(body)) throw bad('the answer is not a JSON object');
  if (body.streamPrefix !== streamPrefix)
    throw bad(`answer is for stream ${JSON.stringify(body.streamPrefix)}`);
  if (body.consumerGroup !== consumerGroup)
    throw bad(`answer is for group ${JSON.stringify(body.consumerGroup)}`);
  const { shardCount, shards, metadataVersion } = body;
  if (typeof shardCount !== 'number' || !Number.isSafeInteger(shardCount) || shardCount < 0) {
    throw bad(`shardCount ${JSON.stringify(shardCount)} is not a non-negative integer`);
  }
  if (typeof metadataVersion !== 'number' || !Number.isSafeInteger(metadataVersion)) {
    throw bad('metadataVersion is not an integer');
  }
  if (!Array.isArray(shards)) throw bad('shards is not an array');
  if (shards.length !== shardCount) throw bad(`${shards.length} shards listed for shardCount ${shardCount}`);
  const streamKeys: string[] = new Array(shardCount);
  for (const shard of shards) {
    if (!isObject(shard)) throw bad('a shard entry is not an object');
    const { shardIndex, streamKey } = shard;
    if (
      typeof shardIndex !== 'number' ||
      !Number.isInteger(shardIndex) ||
      shardIndex < 0 ||
      shardIndex >= shardCount
    ) {
      throw bad(`shardIndex ${JSON.stringify(shardIndex)} is outside 0..${shardCount - 1}`);
    }
    if (streamKeys[shardIndex] !== undefined) throw bad(`shardIndex ${shardIndex} is listed twice`);
    // Braces would move the idempotency marker `{<streamKey>}:idem:…` out of the shard's slot.
    if (typeof streamKey !== 'string' || streamKey === '' || /[{}]/.test(streamKey)) {
      throw bad(`shard ${shardIndex} has an unusable streamKey ${JSON.stringify(streamKey)}`);
    }
    streamKeys[shardIndex] = streamKey;
  }
  const targets = streamKeys.map((streamKey, shardIndex) => ({ shardIndex, streamKey }));
  return { streamPrefix, consumerGroup, metadataVersion, shardCount, streamKeys, targets };
}

const utf8 = new TextEncoder();

/**
 * UTF-8 bytes of `key`. ASCII keys (the usual ids) are copied by hand: `TextEncoder` costs a
 * native call per key, which showed up as the largest share of batch routing time.
 */
export function utf8Bytes(key: string): Uint8Array {
  const out = new Uint8Array(key.length);
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c >= 0x80) return utf8.encode(key);
    out[i] = c;
  }
  return out;
}

/** The shard `partitionKey` goes to under `routing` (`routeV1`); `NoShardsError` when there are none. */
export function chooseShard(routing: ProducerRouting, partitionKey: string | Uint8Array): ShardTarget {
  if (routing.shardCount === 0) throw new NoShardsError(routing.streamPrefix);
  const bytes = typeof partitionKey === 'string' ? utf8Bytes(partitionKey) : partitionKey;
  return routing.targets[routeV1(bytes, routing.shardCount)]!;
}
