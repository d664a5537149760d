/**
 * A member the coordinator revokes a shard from lets it go before the coordinator's rebalance
 * deadline, even when its soft stop cannot finish: acks left on a frozen
 * Redis are waited for a bounded time, and a handler still running at the member's own deadline
 * is told to stop. The coordinator never has to fence the member, so the new owner starts only
 * after the old one's interval has closed. The coordinator runs on the harness Redis.
 */
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import type { Consumer } from '../../src/client/consumer.js';
import type { ConsumerEventMap } from '../../src/client/consumer-events.js';
import { standaloneClient } from '../support/redis.js';
import type { Stack } from '../support/stack.js';
import { createGroups, startOutageRedis, watchDeadline } from './outage-support.js';
import {
  collect,
  controlledFetch,
  deferred,
  eventually,
  newStream,
  publish,
  realStack,
  testConsumer,
} from './support.js';

const timings = { COORDINATOR_HEARTBEAT_INTERVAL_MS: '250', COORDINATOR_MEMBER_LEASE_TTL_MS: '1500' };
/** Long enough for a bounded soft stop (a read's BLOCK + 1 s, then its acks as long) to finish first. */
const LONG_TIMEOUT_MS = 6000;
/** Shorter than any handler here: only the member's own deadline can end the revoke in time. */
const SHORT_TIMEOUT_MS = 2500;
const longStack = realStack(
  { name: 'standalone', make: standaloneClient },
  { ...timings, COORDINATOR_REBALANCE_TIMEOUT_MS: String(LONG_TIMEOUT_MS) },
);
const shortStack = realStack(
  { name: 'standalone', make: standaloneClient },
  { ...timings, COORDINATOR_REBALANCE_TIMEOUT_MS: String(SHORT_TIMEOUT_MS) },
);
const redis = standaloneClient();
afterAll(async () => {
  await Promise.all([longStack.close(), shortStack.close()]);
  await redis.quit();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Revoked = ConsumerEventMap['revoked'] & { at: number };

/** `revoked` events of `c`, with when each was emitted. */
function revokedAt(c: Consumer): Revoked[] {
  const seen: Revoked[] = [];
  c.on('revoked', (e) => seen.push({ ...e, at: Date.now() }));
  return seen;
}

/**
 * Starts `b` next to `a` (reading shards 0 and 1), waits for `a` to let one go and `b` to read
 * it, and checks the hand-over: released before the coordinator's deadline, never fenced, the
 * new owner's interval after the old one's. Returns how long after the coordinator's decision
 * `a` released the shard.
 */
async function handOver(stack: Stack, p: string, a: Consumer, b: Consumer): Promise<number> {
  const aRevoked = revokedAt(a);
  const aOwnership = collect(a, 'ownership');
  const bOwnership = collect(b, 'ownership');
  const deadline = watchDeadline(stack, p, a.memberIds[0]!);
  try {
    b.start();
    await eventually(
      () => expect(aRevoked.length).toBeGreaterThan(0),
      stack.config.rebalanceTimeoutMs + 3000,
    );
    const moved = aRevoked[0]!;
    await eventually(() => expect(b.status()[0]!.reading).toEqual([moved.shard]), 5000);
    const deadlineAt = deadline.first();
    expect(deadlineAt).not.toBeNull();
    expect(aRevoked.map((e) => [e.shard, e.reason])).toEqual([[moved.shard, 'rebalance']]);
    expect(moved.at).toBeLessThan(deadlineAt!);
    const aEnd = aOwnership.find((o) => o.shard === moved.shard && o.end !== null)!.end!;
    const bStart = bOwnership.find((o) => o.shard === moved.shard)!.start;
    expect(aEnd).toBeLessThanOrEqual(bStart);
    expect(a.status()[0]).toMatchObject({ reading: [1 - moved.shard], draining: [] });
    return moved.at - (deadlineAt! - stack.config.rebalanceTimeoutMs);
  } finally {
    deadline.stop();
  }
}

describe('consumer > revoke before the rebalance deadline', () => {
  it('releases a revoked shard within a bounded soft stop while its Redis is frozen with acks unwritten', async () => {
    const r = await startOutageRedis();
    const aRedis = new Redis(r.url, { maxRetriesPerRequest: null, retryStrategy: () => 100 });
    const bRedis = new Redis(r.url, { maxRetriesPerRequest: null, retryStrategy: () => 100 });
    aRedis.on('error', () => {});
    bRedis.on('error', () => {});
    const ctl = controlledFetch(longStack);
    let a: Consumer | null = null;
    let b: Consumer | null = null;
    try {
      const p = await newStream(longStack, 2, 'deadline');
      await createGroups(r.url, p, 2);
      const gate = deferred();
      let started = 0;
      a = testConsumer({
        streamPrefix: p,
        redis: aRedis,
        fetch: ctl.fetch,
        shutdownTimeoutMs: 1000,
        handler: async () => {
          started++;
          await gate.promise;
          return 'ack' as const;
        },
      });
      b = testConsumer({ streamPrefix: p, redis: bRedis, fetch: ctl.fetch, handler: () => 'ack' });
      a.start();
      await eventually(() => expect(a!.status()[0]!.reading).toEqual([0, 1]));
      await publish(aRedis, p, 0, 1);
      await publish(aRedis, p, 1, 1);
      await eventually(() => expect(started).toBe(2));
      // The handlers finish once Redis is frozen: their acks can never be written.
      r.freeze();
      gate.resolve();
      await sleep(100);
      const releaseMs = await handOver(longStack, p, a, b);
      // A BLOCK (100 ms) + 1 s for the read, as long for the acks, a heartbeat and some slack;
      // well before the member's own deadline (6 s − 850 ms), which is not what ended it.
      expect(releaseMs).toBeLessThan(3500);
      console.info(`revoke with acks stuck on a frozen Redis: released ${releaseMs} ms after the decision`);
    } finally {
      r.thaw();
      await Promise.all([a?.close(), b?.close()]);
      aRedis.disconnect();
      bRedis.disconnect();
      await r.stop();
    }
  }, 30_000);

  it('tells a handler still running at its own deadline to stop, so the shard is let go before the coordinator fences', async () => {
    const p = await newStream(shortStack, 2, 'deadline');
    const ctl = controlledFetch(shortStack);
    let started = 0;
    // Runs until told to stop, far longer than the rebalance timeout.
    const a = testConsumer({
      streamPrefix: p,
      redis,
      fetch: ctl.fetch,
      shutdownTimeoutMs: 1000,
      handler: (rec) =>
        new Promise<'retry'>((resolve) => {
          started++;
          rec.signal.addEventListener('abort', () => resolve('retry'), { once: true });
        }),
    });
    const b = testConsumer({ streamPrefix: p, redis, fetch: ctl.fetch, handler: () => 'ack' });
    try {
      a.start();
      await eventually(() => expect(a.status()[0]!.reading).toEqual([0, 1]));
      await publish(redis, p, 0, 1);
      await publish(redis, p, 1, 1);
      await eventually(() => expect(started).toBe(2));
      const releaseMs = await handOver(shortStack, p, a, b);
      // At the member's deadline: 2.5 s − (250 ms + 500 ms) after its request was sent.
      expect(releaseMs).toBeGreaterThanOrEqual(1000);
      console.info(`revoke with a handler that runs on: released ${releaseMs} ms after the decision`);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 30_000);
});
