/**
 * The consumer when the Redis it reads from is unreachable (killed or frozen) and it must stop
 * reading — lease lost, revoked by the coordinator, `close()`: the stop completes within a
 * bounded time, `revoked` and the closing `ownership` events are emitted, and once the
 * coordinator answers again the member rejoins at its next heartbeat instead of a lease later.
 * The coordinator runs on the harness Redis; the consumer reads from a private one.
 */
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import type { Consumer } from '../../src/client/consumer.js';
import { standaloneClient } from '../support/redis.js';
import { createGroups, type OutageRedis, startOutageRedis } from './outage-support.js';
import {
  collect,
  controlledFetch,
  eventually,
  newStream,
  publish,
  realStack,
  testConsumer,
} from './support.js';

const stack = realStack({ name: 'standalone', make: standaloneClient });
afterAll(async () => {
  await stack.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A consumer's client as an application would make it: commands wait for Redis to come back. */
function appClient(url: string): Redis {
  const r = new Redis(url, { maxRetriesPerRequest: null, retryStrategy: () => 100 });
  r.on('error', () => {});
  return r;
}

/** A killed Redis back on its port, empty: the groups are created again. */
async function restartEmpty(r: OutageRedis, p: string, shards: number): Promise<void> {
  await r.restart();
  await createGroups(r.url, p, shards);
}

/** `close()`'s outcome within `ms`. */
async function closeWithin(c: Consumer, ms: number): Promise<{ outcome: string; elapsedMs: number }> {
  const t0 = Date.now();
  const outcome = await Promise.race([c.close().then(() => 'closed'), sleep(ms).then(() => 'still closing')]);
  return { outcome, elapsedMs: Date.now() - t0 };
}

/** Runs `fn` with a private Redis, a stream of `shards` shards on it and an app client. */
async function withOutageRedis(
  shards: number,
  fn: (r: OutageRedis, p: string, redis: Redis) => Promise<void>,
): Promise<void> {
  const r = await startOutageRedis();
  const redis = appClient(r.url);
  try {
    const p = await newStream(stack, shards, 'outage');
    await createGroups(r.url, p, shards);
    await fn(r, p, redis);
  } finally {
    r.thaw();
    redis.disconnect();
    await r.stop();
  }
}

describe('consumer > redis unreachable', () => {
  it.each([
    ['killed', (r: OutageRedis) => r.kill(), (r: OutageRedis, p: string) => restartEmpty(r, p, 2)],
    ['frozen', async (r: OutageRedis) => r.freeze(), async (r: OutageRedis) => r.thaw()],
  ])(
    'stops reading within a bounded time when its lease runs out while its Redis is %s, and rejoins at the next heartbeat once the coordinator answers',
    async (how, takeAway, bringBack) => {
      await withOutageRedis(2, async (r, p, redis) => {
        const ctl = controlledFetch(stack);
        const handled: string[] = [];
        const c = testConsumer({
          streamPrefix: p,
          redis,
          fetch: ctl.fetch,
          handler: (rec) => {
            handled.push(rec.id);
          },
        });
        const revoked = collect(c, 'revoked');
        const ownership = collect(c, 'ownership');
        const leaseLost = collect(c, 'lease-lost');
        c.start();
        const id = c.memberIds[0]!;
        await eventually(() => expect(c.status()[0]!.reading).toEqual([0, 1]));
        const first = [...(await publish(redis, p, 0, 1)), ...(await publish(redis, p, 1, 1))];
        await eventually(() => expect([...handled].sort()).toEqual([...first].sort()));

        // The coordinator shares the consumer's Redis in production: it answers 503 meanwhile.
        await takeAway(r);
        ctl.mode = '503';
        const lastOkAt = Date.now();
        await eventually(() => expect(leaseLost).toHaveLength(1), 10_000);
        const lostAt = Date.now();
        await eventually(() => expect(revoked.map((e) => e.shard).sort()).toEqual([0, 1]), 5_000);
        const stopMs = Date.now() - lostAt;
        expect(revoked.map((e) => e.reason)).toEqual(['lease-lost', 'lease-lost']);
        const closed = ownership.filter((o) => o.end !== null);
        expect(closed.map((o) => o.shard).sort()).toEqual([0, 1]);
        for (const o of closed) expect(o.end!).toBeLessThanOrEqual(Date.now());
        expect(c.status()[0]).toMatchObject({ reading: [], draining: [] });

        await bringBack(r, p);
        // Past the server lease (3 s) too: the coordinator has fenced the member by now.
        await sleep(Math.max(0, lastOkAt + 3_300 - Date.now()));
        const seen = ctl.heartbeats.length;
        const backAt = Date.now();
        ctl.mode = 'pass';
        const joined = () =>
          ctl.heartbeats
            .slice(seen)
            .find((h) => h.memberId === id && h.body.memberEpoch === 0 && h.answer.status === 'OK');
        await eventually(() => expect(joined()).toBeDefined(), 10_000);
        const rejoinMs = Date.now() - backAt;
        // One heartbeat interval (500 ms) for the fenced answer, then the join right after it.
        expect(rejoinMs).toBeLessThan(1500);
        await eventually(() => expect(c.status()[0]!.reading).toEqual([0, 1]));
        const later = [...(await publish(redis, p, 0, 1)), ...(await publish(redis, p, 1, 1))];
        await eventually(() => expect(handled).toEqual(expect.arrayContaining(later)));
        console.info(
          `Redis ${how}: lease lost → readers stopped in ${stopMs} ms; coordinator back → joined in ${rejoinMs} ms`,
        );
        await c.close();
      });
    },
  );

  it.each([
    ['killed', (r: OutageRedis) => r.kill()],
    ['frozen', async (r: OutageRedis) => r.freeze()],
  ])(
    'close() completes within 5 s while its Redis is %s and closes every ownership interval',
    async (how, takeAway) => {
      await withOutageRedis(2, async (r, p, redis) => {
        const ctl = controlledFetch(stack);
        const c = testConsumer({
          streamPrefix: p,
          redis,
          fetch: ctl.fetch,
          // Far above the bound below: the stop must not rely on the shutdown timeout.
          shutdownTimeoutMs: 20_000,
          handler: () => 'ack',
        });
        const revoked = collect(c, 'revoked');
        const ownership = collect(c, 'ownership');
        c.start();
        await eventually(() => expect(c.status()[0]!.reading).toEqual([0, 1]));
        await sleep(200); // both readers blocked in XREADGROUP
        await takeAway(r);
        await sleep(200);
        const { outcome, elapsedMs } = await closeWithin(c, 6_000);
        expect(outcome).toBe('closed');
        expect(elapsedMs).toBeLessThan(5_000);
        expect(revoked.map((e) => [e.shard, e.reason]).sort()).toEqual([
          [0, 'shutdown'],
          [1, 'shutdown'],
        ]);
        expect(
          ownership
            .filter((o) => o.end !== null)
            .map((o) => o.shard)
            .sort(),
        ).toEqual([0, 1]);
        const last = ctl.heartbeats.at(-1)!;
        expect(last.body.memberEpoch).toBe(-1);
        expect(last.body.revokingShards).toEqual([
          expect.objectContaining({ state: 'REVOKED', inFlight: 0 }),
          expect.objectContaining({ state: 'REVOKED', inFlight: 0 }),
        ]);
        console.info(`close() with Redis ${how}: ${elapsedMs} ms`);
      });
    },
  );

  it('releases a shard the coordinator moves while its Redis is frozen within a bounded time, before the new owner starts', async () => {
    await withOutageRedis(2, async (r, p, redis) => {
      const ctl = controlledFetch(stack);
      const a = testConsumer({ streamPrefix: p, redis, fetch: ctl.fetch, handler: () => 'ack' });
      const aRevoked = collect(a, 'revoked');
      const aOwnership = collect(a, 'ownership');
      a.start();
      await eventually(() => expect(a.status()[0]!.reading).toEqual([0, 1]));
      await sleep(200);
      r.freeze();
      const bRedis = appClient(r.url);
      const b = testConsumer({ streamPrefix: p, redis: bRedis, fetch: ctl.fetch, handler: () => 'ack' });
      const bOwnership = collect(b, 'ownership');
      try {
        const t0 = Date.now();
        b.start();
        await eventually(() => expect(aRevoked).toHaveLength(1), 5_000);
        const revokeMs = Date.now() - t0;
        const moved = aRevoked[0]!;
        expect(moved.reason).toBe('rebalance');
        await eventually(() => expect(b.status()[0]!.reading).toEqual([moved.shard]), 5_000);
        const aEnd = aOwnership.find((o) => o.shard === moved.shard && o.end !== null)!.end!;
        const bStart = bOwnership.find((o) => o.shard === moved.shard)!.start;
        expect(aEnd).toBeLessThanOrEqual(bStart);
        console.info(`revoke with Redis frozen: released in ${revokeMs} ms after the second member started`);
        r.thaw();
        await Promise.all([a.close(), b.close()]);
      } finally {
        r.thaw();
        bRedis.disconnect();
      }
    });
  });
});
