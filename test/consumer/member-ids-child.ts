/**
 * A consumer process with default options (no memberBase), for member-ids.test.ts: prints its
 * member ids and every shard it is assigned as JSON lines; closes (leaves) on SIGTERM.
 * Env: COORDINATOR_URL, REDIS_URL, STREAM_PREFIX.
 */
import { Redis } from 'ioredis';
import { createConsumer } from '../../src/client/consumer.js';

const env = (name: string): string => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is required`);
  return v;
};
const say = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);

const redis = new Redis(env('REDIS_URL'), { protocol: 2, maxRetriesPerRequest: 1 });
const consumer = createConsumer({
  coordinatorUrl: env('COORDINATOR_URL'),
  streamPrefix: env('STREAM_PREFIX'),
  redis,
  handler: () => 'ack',
  heartbeatIntervalMs: 500,
  blockMs: 100,
  requestTimeoutMs: 1000,
});
consumer.on('assigned', (e) => say({ type: 'assigned', memberId: e.memberId, shard: e.shard }));
consumer.on('error', (e) =>
  say({ type: 'error', memberId: e.memberId, code: (e.error as { code?: string }).code }),
);
consumer.start();
say({ type: 'started', pid: process.pid, memberIds: consumer.memberIds });

process.once('SIGTERM', () => {
  void consumer
    .close()
    .then(() => redis.quit())
    .finally(() => process.exit(0));
});
