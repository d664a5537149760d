/**
 * A consumer whose Redis path goes silent (blackhole: connections stay open, nothing comes
 * back) while the coordinator revokes its shards: its ownership
 * intervals close within a bound and never overlap the new owner's: the SDK's bounded stops
 * and its local revoke deadline, ahead of the coordinator's rebalance-timeout fence.
 */
import { describe, expect, it } from 'vitest';
import { uniquePrefix } from '../support/redis.js';
import { startFaultProxy } from './support/fault-proxy.js';
import { must, sleep, waitUntil } from './support/http.js';
import { check, describeFindings, intervalsOf, printTable } from './support/invariants.js';
import { startKillableRedis } from './support/killable-redis.js';
import { type JsonChild, startConsumer, startFaultCoordinator, startProducer } from './support/processes.js';

const REBALANCE_TIMEOUT_MS = 3000;
/** A revoked shard must be let go within the rebalance timeout (then the coordinator fences) + this. */
const CLOSE_MARGIN_MS = 2000;

describe('faults > consumer cut off from Redis while its shards are revoked ', () => {
  it('closes its ownership intervals within the rebalance timeout + margin, with no overlap, and loses nothing once the path returns', async () => {
    const redis = await startKillableRedis();
    const proxy = await startFaultProxy({ host: '127.0.0.1', port: redis.port });
    const ns = uniquePrefix('ns');
    const p = uniquePrefix('cb');
    const c = await startFaultCoordinator(redis.url, ns);
    const children: JsonChild[] = [];
    try {
      await must(c.url, 'POST', `/streams/${p}`, { initialShardCount: 4, requestedBy: 'faults' }, 201);
      const a = startConsumer(`${p}-a`, {
        coordinatorUrl: c.url,
        redisUrl: proxy.url,
        prefix: p,
        concurrency: 1,
      });
      children.push(a);
      await waitUntil('a to read all four shards', () => new Set(openShards(a)).size === 4, 20_000, 50);
      const producer = startProducer({
        coordinatorUrl: c.url,
        redisUrl: redis.url,
        prefix: p,
        count: 300,
        rate: 50,
      });
      children.push(producer);
      await a.waitFor((l) => l.t === 'h', 10_000);
      await sleep(500);

      proxy.setMode({ kind: 'blackhole' });
      const blackholeAt = Date.now();
      await sleep(300);
      const b = startConsumer(`${p}-b`, {
        coordinatorUrl: c.url,
        redisUrl: redis.url,
        prefix: p,
        concurrency: 1,
      });
      children.push(b);
      const joinAt = Date.now();
      // B takes over what A gives up (or what the coordinator fences away from A).
      const bOpenAt = await waitUntil('b to read a shard', () => openShards(b).length > 0, 20_000, 20).catch(
        () => null,
      );
      await sleep(REBALANCE_TIMEOUT_MS + CLOSE_MARGIN_MS);
      const snapshotAt = Date.now();
      const aIntervals = intervalsOf(a.lines, snapshotAt);
      const bShards = new Set(intervalsOf(b.lines, snapshotAt).map((iv) => iv.shard));
      // A's holdings when B joined, on shards B came to read: these are what A had to let go.
      const handedOver = aIntervals.filter((iv) => iv.start < joinAt && bShards.has(iv.shard));
      const closeMs = handedOver.map((iv) => (iv.open ? Number.POSITIVE_INFINITY : iv.end - joinAt));

      // The path comes back the way a broken one does: its connections reset, new ones work.
      proxy.setMode({ kind: 'pass' });
      proxy.resetAll();
      const backAt = Date.now();
      await producer.waitFor((l) => l.t === 'done', 30_000);
      const published = () => producer.lines.filter((l) => l.t === 'p').map((l) => Number(l.n));
      await waitUntil(
        'every published record handled',
        () => {
          const handled = new Set(
            [a, b].flatMap((x) => x.lines.filter((l) => l.t === 'h').map((l) => Number(l.n))),
          );
          return published().every((n) => handled.has(n));
        },
        15_000,
        100,
      ).catch(() => {});
      await Promise.all([a.stop(), b.stop()]);
      const f = check({ producer, consumers: [a, b], answers: [], window: [blackholeAt, backAt] });

      printTable('consumer blackhole', {
        published: f.published,
        lost: f.lost.length,
        duplicates: f.duplicates,
        overlaps: f.overlaps.length,
        'join → b reads ms': bOpenAt === null ? 'never' : bOpenAt - joinAt,
        'handed-over shards': handedOver.length,
        'join → a closes ms': closeMs.map((x) => (Number.isFinite(x) ? x : 'open')).join('/') || '-',
        'a errors': a.lines.filter((l) => l.t === 'e').length,
        'a revokes': [...new Set(a.lines.filter((l) => l.t === 'r').map((l) => l.reason))].join(',') || '-',
      });

      const why = `${describeFindings(f)}\nA intervals: ${JSON.stringify(aIntervals)}\nA lines: ${JSON.stringify(
        a.lines.filter((l) => l.t !== 'h').slice(-30),
      )}`;
      expect(bOpenAt, why).not.toBeNull();
      expect(handedOver.length, why).toBeGreaterThan(0);
      for (const ms of closeMs) expect(ms, why).toBeLessThanOrEqual(REBALANCE_TIMEOUT_MS + CLOSE_MARGIN_MS);
      expect(f.overlaps, why).toEqual([]);
      expect(f.lost, why).toEqual([]);
    } finally {
      await Promise.all(children.map((x) => x.kill()));
      await c.kill();
      await proxy.close();
      await redis.close();
    }
  }, 60_000);
});

/** Shards with an ownership interval open now in `child`'s lines. */
function openShards(child: JsonChild): number[] {
  return intervalsOf(child.lines, Date.now())
    .filter((iv) => iv.open)
    .map((iv) => iv.shard);
}
