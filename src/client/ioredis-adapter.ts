/**
 * The producer's Redis operations over ioredis, a standalone `Redis` or a `Cluster`:
 * `producerAdapter` over `ioredisPort`.
 */
import { type IoredisClient, ioredisPort, onConnectionErrors } from '../redis/ioredis-port.js';
import { reportConnectionErrors } from './connection-report.js';
import { type ProducerAdapterOptions, type ProducerRedis, producerAdapter } from './redis-adapter.js';

/** Options of `ioredisAdapter`. */
export interface IoredisAdapterOptions extends ProducerAdapterOptions {
  /**
   * Called with the client's connection errors when the client has no `error` listener of its
   * own (ioredis prints every unhandled one as a stack trace, over and over while Redis is down).
   * @default one line on `console.warn`, then at most one every 30 s with the count left out
   */
  onConnectionError?: ((err: unknown) => void) | undefined;
}

/** The producer port over an ioredis client (the caller keeps owning and closing it). */
export function ioredisAdapter(client: IoredisClient, opts: IoredisAdapterOptions = {}): ProducerRedis {
  const { onConnectionError, ...adapterOptions } = opts;
  if (client.listenerCount('error') === 0)
    onConnectionErrors(client, onConnectionError ?? reportConnectionErrors("producer's"));
  return producerAdapter(ioredisPort(client), adapterOptions);
}
