/**
 * A producer process of the fault suite (run with `node --import tsx`). It publishes records
 * `{n}` for n = 0 … COUNT-1 at about RATE a second, retrying each n until the SDK reports it
 * written, and prints one JSON line per outcome:
 *   {"t":"p","n":<n>,"at":<ms>}   written (acknowledged by Redis)
 *   {"t":"f","n":<n>,"msg":…,"at":<ms>}   this attempt failed (it is retried)
 *   {"t":"done","at":<ms>}
 *
 * Env: COORDINATOR_URL, REDIS_URL, STREAM_PREFIX, COUNT, RATE.
 */
import { Redis } from 'ioredis';
import { createProducer, ioredisAdapter } from '../../../src/client/producer-index.js';

const env = (name: string): string => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is required`);
  return v;
};
const print = (o: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(o)}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const redis = new Redis(env('REDIS_URL'), {
  retryStrategy: (t) => Math.min(t * 50, 200),
  maxRetriesPerRequest: 1,
});
redis.on('error', () => {});
const producer = createProducer({
  coordinatorUrl: env('COORDINATOR_URL'),
  streamPrefix: env('STREAM_PREFIX'),
  redis: ioredisAdapter(redis),
  requestTimeoutMs: 1000,
  routingLeaseMs: 1000,
  refreshAheadMs: 200,
  retryBackoffMs: 20,
});

const count = Number(env('COUNT'));
const gapMs = 1000 / Number(env('RATE'));
const t0 = Date.now();
for (let n = 0; n < count; n++) {
  for (;;) {
    try {
      await producer.publish({ partitionKey: `k${n}`, fields: { n: String(n) } });
      print({ t: 'p', n, at: Date.now() });
      break;
    } catch (err) {
      print({ t: 'f', n, msg: err instanceof Error ? err.message : String(err), at: Date.now() });
      await sleep(50);
    }
  }
  const due = t0 + (n + 1) * gapMs - Date.now();
  if (due > 0) await sleep(due);
}
print({ t: 'done', at: Date.now() });
redis.disconnect();
