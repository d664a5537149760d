/**
 * A consumer whose Redis is unreachable — nothing listens on its port from the start, or the
 * server goes away after a successful start — reports typed, retriable errors through its `error`
 * event within `redisTimeoutMs`, reports the client's connection errors in one rate-limited line
 * instead of ioredis's stack trace per attempt, and `close()` settles within a bound. A consumer
 * pointed at a Redis that is not the coordinator's says so. The coordinator runs on the harness
 * Redis; the consumer's client is one an application would make (commands wait for Redis to come
 * back, forever: `maxRetriesPerRequest: null`, no `error` listener).
 */
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { Consumer } from '../../src/client/consumer.js';
import { ShardGroupMissingError } from '../../src/client/consumer-errors.js';
import { ClientError, RedisCommandError } from '../../src/client/errors.js';
import { createGroups, startOutageRedis } from '../consumer/outage-support.js';
import {
  collect,
  controlledFetch,
  deferred,
  eventually,
  newStream,
  publish,
  realStack,
  testConsumer,
} from '../consumer/support.js';
import { standaloneClient } from '../support/redis.js';
import { freePort } from '../support/redis-server.js';

const stack = realStack({ name: 'standalone', make: standaloneClient });
afterAll(async () => {
  await stack.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const clients: Redis[] = [];
afterEach(() => {
  for (const c of clients.splice(0)) c.disconnect();
  vi.restoreAllMocks();
});

/** A client as an application makes one: no `error` listener, commands queued until Redis is back. */
function appClient(port: number): Redis {
  const r = new Redis({ host: '127.0.0.1', port, retryStrategy: () => 50, maxRetriesPerRequest: null });
  clients.push(r);
  return r;
}

/** Everything written to `console.error` and `console.warn` from now on (not printed). */
function capturePrinted(): string[] {
  const printed: string[] = [];
  const keep = (...args: unknown[]) => printed.push(args.map(String).join(' '));
  vi.spyOn(console, 'error').mockImplementation(keep);
  vi.spyOn(console, 'warn').mockImplementation(keep);
  return printed;
}

/** One line per report, no ioredis stack trace. */
function expectNoStackTraces(printed: string[]): void {
  expect(printed.some((l) => l.includes('Unhandled error event'))).toBe(false);
  expect(printed.every((l) => !l.includes('    at '))).toBe(true);
}

/** `close()`'s outcome within `ms`. */
async function closeWithin(c: Consumer, ms: number): Promise<{ outcome: string; elapsedMs: number }> {
  const t0 = Date.now();
  const outcome = await Promise.race([c.close().then(() => 'closed'), sleep(ms).then(() => 'still closing')]);
  return { outcome, elapsedMs: Date.now() - t0 };
}

describe('consumer > Redis unreachable', () => {
  it('started with nothing listening on its Redis port: reports a retriable RedisCommandError within redisTimeoutMs, prints no stack trace, and close() settles', async () => {
    const printed = capturePrinted();
    const p = await newStream(stack, 2, 'unreach');
    const redis = appClient(await freePort());
    const c = testConsumer({
      streamPrefix: p,
      redis,
      fetch: controlledFetch(stack).fetch,
      redisTimeoutMs: 800,
      handler: () => 'ack',
    });
    const errors = collect(c, 'error');
    const t0 = Date.now();
    c.start();
    // Joining needs only the coordinator; the first Redis command is the claim of a granted shard.
    await eventually(() => expect(c.status()[0]!.reading).toEqual([0, 1]), 5_000);
    await eventually(
      () => expect(errors.find((e) => e.error instanceof RedisCommandError)).toBeDefined(),
      5_000,
    );
    const reportedMs = Date.now() - t0;
    const first = errors.find((e) => e.error instanceof RedisCommandError)!;
    expect(first.error).toMatchObject({ code: 'REDIS_ERROR', retriable: true });
    expect(first.error.message).toContain('redisTimeoutMs');

    const { outcome, elapsedMs } = await closeWithin(c, 6_000);
    expect(outcome).toBe('closed');
    expect(elapsedMs).toBeLessThan(5_000);
    expectNoStackTraces(printed);
    expect(printed.filter((l) => l.includes("consumer's Redis connection failed"))).toHaveLength(1);
    console.info(`Redis unreachable at start: first error after ${reportedMs} ms, close() ${elapsedMs} ms`);
  });

  it('closes within the bound when its Redis is stopped after a successful start, a failed record still to be written back, printing no stack trace', async () => {
    const printed = capturePrinted();
    const r = await startOutageRedis();
    try {
      const p = await newStream(stack, 2, 'unreach');
      await createGroups(r.url, p, 2);
      const redis = appClient(Number(new URL(r.url).port));
      const handled: string[] = [];
      const slowStarted = deferred();
      const redisGone = deferred();
      const c = testConsumer({
        streamPrefix: p,
        redis,
        fetch: controlledFetch(stack).fetch,
        redisTimeoutMs: 800,
        // Far above the bound below: the stop must not rely on the shutdown timeout.
        shutdownTimeoutMs: 20_000,
        handler: async (rec) => {
          if (!rec.fields.tag?.startsWith('slow')) {
            handled.push(rec.id);
            return;
          }
          slowStarted.resolve();
          // Fails once Redis is gone: restarting its idle clock (XCLAIM JUSTID) then waits on Redis.
          await redisGone.promise;
          throw new Error('downstream failed');
        },
      });
      const errors = collect(c, 'error');
      c.start();
      await eventually(() => expect(c.status()[0]!.reading).toEqual([0, 1]));
      const ids = [...(await publish(redis, p, 0, 2)), ...(await publish(redis, p, 1, 2))];
      await publish(redis, p, 0, 1, 'slow');
      await eventually(() => expect([...handled].sort()).toEqual([...ids].sort()));
      await slowStarted.promise;

      await r.stop();
      redisGone.resolve();
      // Long enough for reads, acks and the failed record's write to fail or time out at least once.
      await sleep(1_500);
      const { outcome, elapsedMs } = await closeWithin(c, 6_000);
      expect(outcome).toBe('closed');
      expect(elapsedMs).toBeLessThan(5_000);
      for (const e of errors) expect(e.error).toBeInstanceOf(ClientError);
      expectNoStackTraces(printed);
      expect(printed.filter((l) => l.includes("consumer's Redis connection failed"))).toHaveLength(1);
      console.info(`Redis stopped after start: close() ${elapsedMs} ms, ${errors.length} error events`);
    } finally {
      await r.stop();
    }
  });

  it('started with its coordinator unreachable and no error listener: reports the failures in one rate-limited line, and close() settles', async () => {
    const printed = capturePrinted();
    const p = await newStream(stack, 1, 'unreach');
    const ctl = controlledFetch(stack);
    ctl.mode = 'hang';
    const c = testConsumer({
      streamPrefix: p,
      redis: appClient(await freePort()),
      fetch: ctl.fetch,
      handler: () => 'ack',
    });
    c.start();
    // requestTimeoutMs is 1 s: a few heartbeats time out meanwhile.
    await eventually(
      () => expect(printed.filter((l) => l.includes('consumer error'))).toHaveLength(1),
      5_000,
    );
    await sleep(2_500);
    const reports = printed.filter((l) => l.includes('consumer error'));
    expect(reports).toHaveLength(1);
    expect(reports[0]).toContain('heartbeat');
    expect(reports[0]).toContain('no answer within 1000 ms');
    const { outcome, elapsedMs } = await closeWithin(c, 6_000);
    expect(outcome).toBe('closed');
    expect(elapsedMs).toBeLessThan(2_500);
    expectNoStackTraces(printed);
  });

  it("says a missing shard stream or group likely means its Redis is not the coordinator's, naming host:port only", async () => {
    const printed = capturePrinted();
    // A reachable Redis the coordinator never created the stream on.
    const r = await startOutageRedis();
    try {
      const p = await newStream(stack, 1, 'unreach');
      const port = Number(new URL(r.url).port);
      const c = testConsumer({
        streamPrefix: p,
        redis: appClient(port),
        fetch: controlledFetch(stack).fetch,
        handler: () => 'ack',
      });
      const errors = collect(c, 'error');
      c.start();
      await eventually(() => expect(errors.find((e) => e.error.message.includes('REDIS_URL'))).toBeDefined());
      const missing = errors.find((e) => e.error.message.includes('REDIS_URL'))!.error;
      expect(missing).toBeInstanceOf(ShardGroupMissingError);
      expect(missing).toMatchObject({ code: 'SHARD_GROUP_MISSING', retriable: false });
      expect(missing.message).toContain(`${p}:0`);
      expect(missing.message).toContain("likely not the coordinator's");
      expect(missing.message).toContain(`127.0.0.1:${port}`);
      const { outcome } = await closeWithin(c, 6_000);
      expect(outcome).toBe('closed');
      expectNoStackTraces(printed);
    } finally {
      await r.stop();
    }
  });
});
