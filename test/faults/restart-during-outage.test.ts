/**
 * A coordinator restarted while its explicit Redis is down: it starts,
 * says it is not ready, never substitutes a private redis-server, and serves the real data as
 * soon as Redis is back (no split brain).
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { uniquePrefix } from '../support/redis.js';
import { call, must, sleep, waitUntil } from './support/http.js';
import { printTable } from './support/invariants.js';
import { startKillableRedis } from './support/killable-redis.js';
import { type Coordinator, startFaultCoordinator } from './support/processes.js';

/** Names of the child processes of `pid` (empty when it has none). */
function childCommands(pid: number): string[] {
  try {
    return execFileSync('ps', ['-o', 'comm=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .map((s) => s.trim())
      .filter(Boolean);
  } catch {
    return []; // ps exits 1 when nothing matches
  }
}

describe('faults > coordinator restart during a Redis outage', () => {
  it('starts not-ready on its configured Redis, starts no private redis-server, and serves the stream created before once Redis is back', async () => {
    const redis = await startKillableRedis();
    const ns = uniquePrefix('ns');
    const p = uniquePrefix('ro');
    const coords: Coordinator[] = [];
    try {
      const first = await startFaultCoordinator(redis.url, ns);
      coords.push(first);
      await must(first.url, 'POST', `/streams/${p}`, { initialShardCount: 4, requestedBy: 'faults' }, 201);
      await redis.kill();
      await first.kill();

      const startAt = Date.now();
      const c = await startFaultCoordinator(redis.url, ns);
      coords.push(c);
      const startMs = Date.now() - startAt;

      // Down for a while: readiness stays 503, admin answers a retryable 503, liveness stays UP.
      const readiness: number[] = [];
      const reads: Array<{ status: number; code: string | null }> = [];
      for (let i = 0; i < 3; i++) {
        readiness.push((await call(c.url, 'GET', '/actuator/health/readiness')).status);
        const g = await call(c.url, 'GET', `/streams/${p}/groups/${p}`, undefined, 8000);
        reads.push({ status: g.status, code: g.code });
        await sleep(200);
      }
      const live = await call(c.url, 'GET', '/actuator/health/liveness');
      const ready = await call(c.url, 'GET', '/actuator/health/readiness');
      const children = childCommands(c.proc.pid!);

      const backAt = Date.now();
      await redis.restart();
      const redisUpMs = Date.now() - backAt;
      const readyAt = await waitUntil(
        'readiness 200',
        async () => (await call(c.url, 'GET', '/actuator/health/readiness', undefined, 2000)).status === 200,
        15_000,
        20,
      );
      const servedAt = await waitUntil(
        'the stream created before',
        async () => (await call(c.url, 'GET', `/streams/${p}/groups/${p}`, undefined, 2000)).status === 200,
        15_000,
        20,
      );
      const group = await must(c.url, 'GET', `/streams/${p}/groups/${p}`);
      const again = await call(c.url, 'POST', `/streams/${p}`, {
        initialShardCount: 2,
        requestedBy: 'faults',
      });

      printTable('restart during outage', {
        'start ms': startMs,
        'readiness while down': [...new Set(readiness)].join(','),
        'reads while down': [...new Set(reads.map((r) => `${r.status} ${r.code}`))].join(','),
        'redis up ms': redisUpMs,
        'ready after redis ms': readyAt - backAt,
        'served after redis ms': servedAt - backAt,
        'shardCount seen': group.shardCount,
      });

      expect(
        readiness.every((s) => s === 503),
        JSON.stringify(readiness),
      ).toBe(true);
      expect(ready.body.status).toBe('DOWN');
      expect(ready.body.components.redis.status).toBe('DOWN');
      expect(live.status).toBe(200);
      for (const r of reads) expect(r).toEqual({ status: 503, code: 'REDIS_UNAVAILABLE' });
      const substitute = c.lines.filter((l) => JSON.stringify(l).includes('private redis-server'));
      expect(substitute).toEqual([]);
      expect(children).not.toContain('redis-server');
      const listening = c.lines.find((l) => l.msg === 'listening');
      expect(listening?.redis).toBe(redis.url);
      // The data of the real Redis, not an empty substitute.
      expect(group.shardCount).toBe(4);
      expect(again.code).toBe('STREAM_PREFIX_ALREADY_EXISTS');
      expect(readyAt - backAt).toBeLessThan(3000);
    } finally {
      await Promise.all(coords.map((c) => c.kill()));
      await redis.close();
    }
  }, 60_000);
});
