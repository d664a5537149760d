/**
 * Publishing with the producer SDK. With a coordinator running (`npm start`):
 *
 *   COORDINATOR_URL=http://127.0.0.1:8080 REDIS_URL=redis://127.0.0.1:6379 STREAM=orders npx tsx examples/publish.ts
 *
 * REDIS_URL must be the coordinator's Redis (if `npm start` started a private one, its warn line
 * "started a private redis-server" names the URL); credentials and the rest: see examples/env.ts.
 * Creates the stream with 4 shards when it does not exist yet, then publishes a record, an
 * idempotent record twice, and a batch.
 */
import { Redis } from 'ioredis';
import { createProducer, ioredisAdapter } from '../src/client/producer-index.js';
import { coordinatorUrl, credentials, ensureStream, redisUrl, stream } from './env.js';

const redis = new Redis(redisUrl);

try {
  await ensureStream('examples/publish.ts');
  const producer = createProducer({
    coordinatorUrl,
    credentials,
    streamPrefix: stream,
    redis: ioredisAdapter(redis),
  });

  const one = await producer.publish({ partitionKey: 'customer-42', fields: { payload: '{"orderId":1}' } });
  console.log('published', one);

  // The same eventId twice: one entry, and the repeat returns the first entry id.
  const record = {
    partitionKey: 'customer-42',
    fields: { payload: '{"orderId":2}' },
    eventId: 'order-2-created',
  };
  const first = await producer.publish(record);
  const repeat = await producer.publish(record);
  console.log('idempotent', first.entryId, 'repeat', repeat.entryId, 'duplicate:', repeat.duplicate);

  // A batch: one pipeline per shard, results in input order, failures per record.
  const batch = await producer.publishBatch(
    Array.from({ length: 10 }, (_, i) => ({
      partitionKey: `customer-${i}`,
      fields: { payload: `{"orderId":${100 + i}}` },
    })),
  );
  for (const r of batch)
    console.log(r.ok ? `${r.streamKey} ${r.entryId}` : `failed: ${r.error.code} ${r.error.message}`);
} finally {
  redis.disconnect();
}
