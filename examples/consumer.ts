/**
 * Consuming with the consumer SDK. With a coordinator running (`npm start`):
 *
 *   COORDINATOR_URL=http://127.0.0.1:8080 REDIS_URL=redis://127.0.0.1:6379 npx tsx examples/consumer.ts
 *
 * REDIS_URL must be the coordinator's Redis (if `npm start` started a private one, its log line
 * "started a private redis-server" names the URL). Creates the stream `orders` with 4 shards
 * when it does not exist yet, then consumes it with two members until Ctrl-C, which leaves the
 * group gracefully. Run `examples/publish.ts` in another terminal to give it something to read;
 * run this file twice (with different MEMBER_BASE values) to watch the shards move.
 */
import { Redis } from 'ioredis';
import { createConsumer } from '../src/client/consumer-index.js';

const coordinatorUrl = process.env.COORDINATOR_URL ?? 'http://127.0.0.1:8080';
const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');

// Creating the stream provisions its shard streams and consumer group; 409 means it exists already.
const created = await fetch(`${coordinatorUrl}/coord/v1/streams/orders`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ initialShardCount: 4, requestedBy: 'examples/consumer.ts' }),
});
if (created.status !== 201 && created.status !== 409)
  throw new Error(`create stream: HTTP ${created.status}`);

const consumer = createConsumer({
  coordinatorUrl,
  streamPrefix: 'orders',
  redis,
  concurrency: 2, // two members: <base>-m0 and <base>-m1
  memberBase: process.env.MEMBER_BASE, // default: POD_IP, else the host name
  handler: async (record) => {
    console.log(`${record.memberId} ${record.streamKey} ${record.id}`, record.fields);
    if (record.fields.payload === 'fail') throw new Error('retried with backoff, then dead-lettered');
    // Returning nothing acks; return 'ack-delete' to also delete the entry, 'retry' to try again later.
  },
  listeners: {
    assigned: (e) => console.log(`+ ${e.memberId} reads ${e.streamKey}`),
    revoked: (e) => console.log(`- ${e.memberId} stopped ${e.streamKey} (${e.reason})`),
    'lease-lost': (e) => console.log(`! ${e.memberId} lost its lease; stopped reading ${e.shards.join(',')}`),
    'dead-letter': (e) => console.log(`x ${e.entryId} → orders:dlq after ${e.deliveryCount} deliveries`),
    error: (e) => console.error(`${e.memberId ?? 'consumer'} ${e.context}: ${e.error.message}`),
  },
});

consumer.start();
console.log(`consuming orders as ${consumer.memberIds.join(', ')}; Ctrl-C to stop`);

process.once('SIGINT', () => {
  console.log('closing: finishing in-flight records, then leaving the group');
  void consumer.close().finally(() => redis.disconnect());
});
