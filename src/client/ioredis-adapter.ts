/**
 * The producer's Redis operations over ioredis, a standalone `Redis` or a `Cluster`:
 * `producerAdapter` over `ioredisPort`.
 */
import { type IoredisClient, ioredisPort, onConnectionErrors } from '../redis/ioredis-port.js';
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

/** Seconds between two default reports of connection errors. */
const REPORT_EVERY_MS = 30_000;

/** A rate-limited one-line report of connection errors (no stack traces). */
function reportConnectionErrors(now: () => number = Date.now): (err: unknown) => void {
  let last = Number.NEGATIVE_INFINITY;
  let skipped = 0;
  return (err) => {
    const t = now();
    if (t - last < REPORT_EVERY_MS) {
      skipped++;
      return;
    }
    const more = skipped > 0 ? ` (${skipped} more since the last report)` : '';
    const why = err instanceof Error ? err.message : String(err);
    console.warn(`[redis-stream-coordinator] producer's Redis connection failed: ${why}${more}`);
    last = t;
    skipped = 0;
  };
}

/** The producer port over an ioredis client (the caller keeps owning and closing it). */
export function ioredisAdapter(client: IoredisClient, opts: IoredisAdapterOptions = {}): ProducerRedis {
  const { onConnectionError, ...adapterOptions } = opts;
  if (client.listenerCount('error') === 0)
    onConnectionErrors(client, onConnectionError ?? reportConnectionErrors());
  return producerAdapter(ioredisPort(client), adapterOptions);
}
