/**
 * Consuming with the consumer SDK. With a coordinator running (`npm start`):
 *
 *   COORDINATOR_URL=http://127.0.0.1:8080 REDIS_URL=redis://127.0.0.1:6379 STREAM=orders npx tsx examples/consumer.ts
 *
 * REDIS_URL must be the coordinator's Redis (if `npm start` started a private one, its warn line
 * "started a private redis-server" names the URL); credentials and the rest: see examples/env.ts.
 * Creates the stream with 4 shards when it does not exist yet, then consumes it with two members
 * until Ctrl-C, which leaves the group gracefully. Run `examples/publish.ts` in another terminal
 * to give it something to read; run this file twice to watch the shards move (each process gets
 * its own member ids unless MEMBER_BASE names one).
 */
import { Redis } from 'ioredis';
import { createConsumer } from '../src/client/consumer-index.js';
import { coordinatorUrl, credentials, ensureStream, redisUrl, stream } from './env.js';

const redis = new Redis(redisUrl);
await ensureStream('examples/consumer.ts');

const consumer = createConsumer({
  coordinatorUrl,
  credentials,
  streamPrefix: stream,
  redis,
  concurrency: 2, // two members: <base>-m0 and <base>-m1
  memberBase: process.env.MEMBER_BASE, // default: host name, pid and a random suffix
  handler: async (record) => {
    console.log(`${record.memberId} ${record.streamKey} ${record.id}`, record.fields);
    if (record.fields.payload === 'fail') throw new Error('retried with backoff, then dead-lettered');
    // Returning nothing acks; return 'ack-delete' to also delete the entry, 'retry' to try again later.
  },
  listeners: {
    assigned: (e) => console.log(`+ ${e.memberId} reads ${e.streamKey}`),
    revoked: (e) => console.log(`- ${e.memberId} stopped ${e.streamKey} (${e.reason})`),
    'lease-lost': (e) => console.log(`! ${e.memberId} lost its lease; stopped reading ${e.shards.join(',')}`),
    'dead-letter': (e) => console.log(`x ${e.entryId} → ${stream}:dlq after ${e.deliveryCount} deliveries`),
    error: (e) => console.error(`${e.memberId ?? 'consumer'} ${e.context}: ${e.error.message}`),
  },
});

consumer.start();
console.log(`consuming ${stream} as ${consumer.memberIds.join(', ')}; Ctrl-C to stop`);

process.once('SIGINT', () => {
  console.log('closing: finishing in-flight records, then leaving the group');
  void consumer.close().finally(() => redis.disconnect());
});
