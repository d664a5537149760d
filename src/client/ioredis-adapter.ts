/**
 * The producer's Redis operations over ioredis, a standalone `Redis` or a `Cluster`:
 * `producerAdapter` over `ioredisPort`.
 */
import { type IoredisClient, ioredisPort } from '../redis/ioredis-port.js';
import { type ProducerAdapterOptions, type ProducerRedis, producerAdapter } from './redis-adapter.js';

/** Options of `ioredisAdapter`. */
export type IoredisAdapterOptions = ProducerAdapterOptions;

/** The producer port over an ioredis client (the caller keeps owning and closing it). */
export function ioredisAdapter(client: IoredisClient, opts: IoredisAdapterOptions = {}): ProducerRedis {
  return producerAdapter(ioredisPort(client), opts);
}
