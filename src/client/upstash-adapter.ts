/**
 * The producer's Redis operations over @upstash/redis (Redis over HTTPS), for the edge:
 * `producerAdapter` over `upstashPort`. Build the client with `automaticDeserialization: false`
 * so entry ids and script replies stay strings. Imports neither ioredis nor any `node:` module,
 * and not even @upstash/redis at runtime: the client is described structurally.
 */
import { type UpstashClientLike, type UpstashProducerLike, upstashPort } from '../redis/upstash-port.js';
import { type ProducerAdapterOptions, type ProducerRedis, producerAdapter } from './redis-adapter.js';

export type { UpstashPipelineLike } from '../redis/upstash-port.js';

/** The commands of an @upstash/redis `Redis` client the adapter uses. */
export type UpstashRedisLike = UpstashProducerLike;

/** Options of `upstashAdapter`. */
export interface UpstashAdapterOptions extends ProducerAdapterOptions {
  /**
   * Send both scripts with Upstash's `allow-key-locking` flag: they touch only the keys they are
   * passed (the shards' of the call), so publishes to different shards run in parallel instead of under
   * Upstash's global script lock. They also call TIME (the shard's incarnation), which names no
   * key: Upstash documents refusing only database-wide commands under the flag, not keyless ones,
   * and this was not tried on Upstash. Only for Upstash itself: Redis behind a self-hosted REST
   * endpoint refuses the flag (docs/workers.md#upstash-key-locking). @default false
   */
  keyLocking?: boolean;
}

/** The producer port over an @upstash/redis client (`automaticDeserialization: false`). */
export function upstashAdapter(client: UpstashRedisLike, opts: UpstashAdapterOptions = {}): ProducerRedis {
  // The producer sends only the commands of UpstashRedisLike; the port's others stay unused.
  const port = upstashPort(client as UpstashClientLike, { keyLocking: opts.keyLocking });
  // Every command is billed on Upstash: a batch that would take several commands goes as one
  // script call, whatever the shards it touches.
  return producerAdapter(port, { batchPlainWrites: true, oneCallPerBatch: true, ...opts });
}
