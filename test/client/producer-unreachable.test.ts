/**
 * A producer whose Redis is unreachable (nothing listens on its port; ioredis keeps reconnecting
 * and queues commands meanwhile) settles every publish within `redisTimeoutMs` with a typed,
 * retriable, in-doubt `RedisCommandError`, and reports the connection errors in one rate-limited
 * line instead of ioredis's stack trace per attempt.
 */
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RedisCommandError } from '../../src/client/errors.js';
import { ioredisAdapter } from '../../src/client/ioredis-adapter.js';
import { createProducer } from '../../src/client/producer.js';
import { uniquePrefix } from '../support/redis.js';
import { referenceDouble } from './reference-double.js';

/** A loopback port nothing listens on (taken, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const clients: Redis[] = [];
afterEach(() => {
  for (const c of clients.splice(0)) c.disconnect();
  vi.restoreAllMocks();
});

describe('producer > Redis unreachable', () => {
  it('settles publish and publishBatch within redisTimeoutMs with a retriable in-doubt RedisCommandError, and no stack traces', async () => {
    const printed: string[] = [];
    const keep = (...args: unknown[]) => printed.push(args.map(String).join(' '));
    vi.spyOn(console, 'error').mockImplementation(keep);
    vi.spyOn(console, 'warn').mockImplementation(keep);
    // maxRetriesPerRequest: null (as BullMQ requires): without a deadline of its own a command waits forever.
    const redis = new Redis({
      host: '127.0.0.1',
      port: await closedPort(),
      retryStrategy: () => 50,
      maxRetriesPerRequest: null,
    });
    clients.push(redis);
    const p = uniquePrefix('unreachable');
    const producer = createProducer({
      streamPrefix: p,
      coordinatorUrl: 'http://coordinator.localhost',
      redis: ioredisAdapter(redis),
      fetch: referenceDouble({ streamPrefix: p, shardCount: 4 }).fetch,
      redisTimeoutMs: 800,
    });

    const t0 = performance.now();
    const err = await producer.publish({ partitionKey: 'k', fields: { a: '1' } }).catch((e: unknown) => e);
    const tookMs = performance.now() - t0;
    expect(err).toBeInstanceOf(RedisCommandError);
    expect(err).toMatchObject({ retriable: true, inDoubt: true });
    expect((err as Error).message).toContain('redisTimeoutMs');
    expect(tookMs).toBeLessThan(5000);

    const batch = await producer.publishBatch(
      Array.from({ length: 10 }, (_, i) => ({
        partitionKey: `k${i}`,
        fields: { i: String(i) },
        eventId: `e${i}`,
      })),
    );
    expect(batch).toHaveLength(10);
    for (const r of batch) {
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error).toMatchObject({ retriable: true, inDoubt: true });
    }

    // ioredis tried to reconnect many times meanwhile: one short line, no stack trace.
    expect(printed.some((l) => l.includes('Unhandled error event'))).toBe(false);
    expect(printed.filter((l) => l.includes("producer's Redis connection failed"))).toHaveLength(1);
    expect(printed.every((l) => !l.includes('    at '))).toBe(true);
  });
});
