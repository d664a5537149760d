/**
 * What one batched heartbeat request may hold, so that no client can make the coordinator keep
 * more than a known amount of memory for it (docs/protocol.md#batched-heartbeats):
 *
 * - a body cap of its own (`COORDINATOR_MAX_BATCH_BODY_BYTES`), refused on `Content-Length`
 *   before a byte is read, and counted while reading when there is none;
 * - no more JSON objects and arrays than a valid batch of that many shard entries has, counted on
 *   the raw bytes before parsing (parsed, an empty object costs ~20 times its three bytes);
 * - no item listing more shards than a stream can have (`COORDINATOR_MAX_SHARD_COUNT`) in any
 *   of its three lists, and no more shard entries in the whole request than every shard of the
 *   largest stream once in each list;
 * - at most `COORDINATOR_MAX_CONCURRENT_BATCHES` batches in flight (reading, parsing or running),
 *   past which a batch is answered 503 `COORDINATOR_BUSY` with `Retry-After` at once, unread.
 */
import type { CoordinatorConfig } from '../config.js';
import { CoordinatorError } from '../core/errors.js';
import { invalidRequest, payloadTooLarge } from './errors.js';
import { HEARTBEAT_BATCH_MAX_ITEMS, type HeartbeatRequestBody } from './schemas.js';

/** The shard lists of a heartbeat (owned, revoking, progress); a shard appears at most once in each. */
const SHARD_LISTS = ['ownedShards', 'revokingShards', 'shardProgress'] as const;
/**
 * Objects and arrays of one item besides its shard entries: the item, its capacity and its three
 * lists, and four more for fields a later protocol version may add.
 */
const CONTAINERS_PER_ITEM = 9;
/** Objects of one shard entry at most: a revoke report or progress entry and its shard id. */
const CONTAINERS_PER_ENTRY = 2;
/** Seconds a refused batch is told to wait. */
const BUSY_RETRY_AFTER_SECONDS = 1;

/** The bounds of one batch request, from the configuration. */
export interface BatchLimits {
  /** Body bytes (413 beyond). */
  maxBodyBytes: number;
  /** Entries of one item's shard list (400 beyond). */
  maxShardsPerItem: number;
  /** Shard entries of the whole request, over every item and list (400 beyond). */
  maxShardEntries: number;
  /** JSON objects and arrays of the whole body (400 beyond, before parsing). */
  maxContainers: number;
  /** Batches in flight at once (503 beyond). */
  maxConcurrent: number;
}

/** The limits `config` sets. */
export function batchLimits(
  config: Pick<CoordinatorConfig, 'maxBatchBodyBytes' | 'maxShardCount' | 'maxConcurrentBatches'>,
): BatchLimits {
  const maxShardEntries = SHARD_LISTS.length * config.maxShardCount;
  return {
    maxBodyBytes: config.maxBatchBodyBytes,
    maxShardsPerItem: config.maxShardCount,
    maxShardEntries,
    // The body object and its list, then each item and each entry at their most.
    maxContainers:
      2 + CONTAINERS_PER_ITEM * HEARTBEAT_BATCH_MAX_ITEMS + CONTAINERS_PER_ENTRY * maxShardEntries,
    maxConcurrent: config.maxConcurrentBatches,
  };
}

/** 413 when the declared `Content-Length` is over `maxBytes`, before anything is read. */
export function refuseDeclaredLength(req: Request, maxBytes: number): void {
  const declared = req.headers.get('content-length');
  if (declared !== null && Number(declared) > maxBytes) throw payloadTooLarge(maxBytes);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;

/**
 * 400 when the raw JSON opens more than `max` objects and arrays (outside strings), so the parser
 * never builds more than a valid batch has. Malformed JSON is left to the parser.
 */
export function checkNesting(bytes: Uint8Array, max: number): void {
  let containers = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) inString = true;
    else if ((b === OPEN_BRACE || b === OPEN_BRACKET) && ++containers > max) {
      throw invalidRequest([
        `body: more than ${max} JSON objects and arrays (a batch carries at most ${HEARTBEAT_BATCH_MAX_ITEMS} heartbeats and 3 × COORDINATOR_MAX_SHARD_COUNT shard entries)`,
      ]);
    }
  }
}

/** 400 when an item lists more shards than a stream can have, or the request more entries than `maxShardEntries`. */
export function checkShardEntries(items: readonly HeartbeatRequestBody[], limits: BatchLimits): void {
  let total = 0;
  const problems: string[] = [];
  items.forEach((item, i) => {
    for (const list of SHARD_LISTS) {
      const n = item[list]?.length ?? 0;
      total += n;
      if (n > limits.maxShardsPerItem) {
        problems.push(
          `heartbeats[${i}].${list}: ${n} entries, more than a stream can have (COORDINATOR_MAX_SHARD_COUNT ${limits.maxShardsPerItem})`,
        );
      }
    }
  });
  if (problems.length === 0 && total > limits.maxShardEntries) {
    problems.push(
      `heartbeats: ${total} shard entries in all, more than ${limits.maxShardEntries} (3 × COORDINATOR_MAX_SHARD_COUNT)`,
    );
  }
  if (problems.length > 0) throw invalidRequest(problems);
}

/** Batches in flight at once; one past the limit is refused, never queued. */
export class BatchGate {
  private running = 0;

  constructor(private readonly limit: number) {}

  /** Runs `work` when a slot is free; throws 503 `COORDINATOR_BUSY` with `Retry-After` otherwise. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) {
      throw new CoordinatorError(
        'COORDINATOR_BUSY',
        `${this.limit} batched heartbeats are already in flight (COORDINATOR_MAX_CONCURRENT_BATCHES); retry, or send the heartbeats alone`,
        { details: { retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS, closeConnection: true } },
      );
    }
    this.running++;
    try {
      return await work();
    } finally {
      this.running--;
    }
  }
}
