/**
 * Readiness and Redis' eviction policy (docs/running-redis.md#eviction-policy), on private
 * redis-servers started with each policy: `allkeys-*` may drop a group's keys, so readiness is
 * 503 naming the policy (one `error` line, not one per probe) unless COORDINATOR_ALLOW_EVICTION
 * is set; `volatile-*` is served with one `warn` line; `noeviction` is served silently; a Redis
 * whose INFO cannot be read is served with one `info` line. A policy changed at runtime is seen
 * once the cached reading is 30 s old.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger, type LogFn } from '../../node/logger.js';
import { type RedisServer, startRedisServer } from '../../node/redis-server.js';
import { type RunningServer, startServer } from '../../node/server.js';
import { ConfigError, parseConfig } from '../../src/config.js';
import { Coordinator } from '../../src/coordinator.js';
import type { ActuatorHealth } from '../../src/http/routes/actuator.js';
import { IoredisStore } from '../../src/store/ioredis-store.js';
import { clusterClient, uniquePrefix } from '../support/redis.js';
import { manualClock } from '../support/stack.js';

type Line = { level: string; msg: string; fields: Record<string, unknown> };

function capture(): { log: LogFn; lines: Line[] } {
  const lines: Line[] = [];
  const log = createLogger({
    level: 'debug',
    write: (line) => {
      const { ts: _ts, level, msg, ...fields } = JSON.parse(line);
      lines.push({ level, msg, fields });
    },
  });
  return { log, lines };
}

/** Lines about the eviction policy (they all carry `maxmemoryPolicy`, or say it cannot be read). */
const policyLines = (lines: Line[]) =>
  lines.filter((l) => 'maxmemoryPolicy' in l.fields || /maxmemory-policy/.test(l.msg));

const refusalOf = (policy: string) =>
  `redis maxmemory-policy is ${policy}: coordinator keys may be evicted; ` +
  'set noeviction (or volatile-*) or COORDINATOR_ALLOW_EVICTION=true';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const redises: RedisServer[] = [];
const servers: RunningServer[] = [];
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(servers.splice(0).map((s) => s.close()));
  for (const c of closers.splice(0)) await c();
  await Promise.all(redises.splice(0).map((r) => r.stop()));
});

async function redisWith(args: string[]): Promise<RedisServer> {
  const r = await startRedisServer({
    baseDir: join(tmpdir(), 'rsc-test-redis'),
    args,
    startTimeoutMs: 20_000,
  });
  redises.push(r);
  return r;
}

async function serve(
  redis: RedisServer,
  log: LogFn,
  env: Record<string, string> = {},
): Promise<RunningServer> {
  const config = parseConfig({
    PORT: '0',
    REDIS_URL: redis.url,
    COORDINATOR_KEY_PREFIX: uniquePrefix('evict'),
    ...env,
  });
  const s = await startServer({ config, log });
  servers.push(s);
  return s;
}

async function readiness(server: RunningServer): Promise<{ status: number; body: ActuatorHealth }> {
  const res = await fetch(`${server.url}/actuator/health/readiness`);
  return { status: res.status, body: (await res.json()) as ActuatorHealth };
}

/** Several probes, spread over more than one background check of the server (every second). */
async function probes(server: RunningServer): Promise<Array<{ status: number; body: ActuatorHealth }>> {
  const seen = [];
  for (let i = 0; i < 6; i++) {
    seen.push(await readiness(server));
    await sleep(250);
  }
  return seen;
}

const UP = { status: 'UP', components: { redis: { status: 'UP' }, lifecycle: { status: 'UP' } } };

describe('readiness > allkeys eviction policy', () => {
  it('answers 503 naming the policy, with one error line however often it is probed', async () => {
    const redis = await redisWith(['--maxmemory-policy', 'allkeys-lru']);
    const { log, lines } = capture();
    const server = await serve(redis, log);
    for (const r of await probes(server)) {
      expect(r.status).toBe(503);
      expect(r.body).toEqual({
        status: 'DOWN',
        components: {
          redis: { status: 'DOWN', details: { error: refusalOf('allkeys-lru') } },
          lifecycle: { status: 'UP' },
        },
      });
    }
    expect((await fetch(`${server.url}/actuator/health`)).status).toBe(503);
    expect((await fetch(`${server.url}/actuator/health/liveness`)).status).toBe(200);
    expect(policyLines(lines)).toEqual([
      {
        level: 'error',
        msg: 'Redis may evict coordinator keys; readiness is DOWN',
        fields: { maxmemoryPolicy: 'allkeys-lru', reason: refusalOf('allkeys-lru') },
      },
    ]);
    // Redis itself is reachable: no outage is reported.
    expect(lines.filter((l) => l.msg === 'Redis unavailable')).toEqual([]);
  });

  it.each(['allkeys-lfu', 'allkeys-random'])('refuses %s the same way', async (policy) => {
    const redis = await redisWith(['--maxmemory-policy', policy]);
    const server = await serve(redis, capture().log);
    const r = await readiness(server);
    expect(r.status).toBe(503);
    expect(r.body.components.redis).toEqual({ status: 'DOWN', details: { error: refusalOf(policy) } });
  });

  it('answers 200 with COORDINATOR_ALLOW_EVICTION=true, with one warn line instead', async () => {
    const redis = await redisWith(['--maxmemory-policy', 'allkeys-lru']);
    const { log, lines } = capture();
    const server = await serve(redis, log, { COORDINATOR_ALLOW_EVICTION: 'true' });
    for (const r of await probes(server)) expect(r).toEqual({ status: 200, body: UP });
    expect(policyLines(lines)).toEqual([
      {
        level: 'warn',
        msg: 'Redis may evict coordinator keys; serving because COORDINATOR_ALLOW_EVICTION=true',
        fields: { maxmemoryPolicy: 'allkeys-lru' },
      },
    ]);
  });
});

describe('readiness > other eviction policies', () => {
  it('serves under volatile-lru, with one warn line about keys with a TTL', async () => {
    const redis = await redisWith(['--maxmemory-policy', 'volatile-lru']);
    const { log, lines } = capture();
    const server = await serve(redis, log);
    for (const r of await probes(server)) expect(r).toEqual({ status: 200, body: UP });
    const found = policyLines(lines);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ level: 'warn', fields: { maxmemoryPolicy: 'volatile-lru' } });
    expect(found[0]!.msg).toMatch(/TTL/);
    expect(found[0]!.msg).toMatch(/idempotency/);
  });

  it('serves under noeviction and says nothing about it', async () => {
    const redis = await redisWith(['--maxmemory-policy', 'noeviction']);
    const { log, lines } = capture();
    const server = await serve(redis, log);
    for (const r of await probes(server)) expect(r).toEqual({ status: 200, body: UP });
    expect(policyLines(lines)).toEqual([]);
  });

  it('serves when INFO is refused, with one info line saying the policy cannot be read', async () => {
    // A provider whose ACL denies INFO still serves; the policy is then unknown. (A Redis with
    // INFO renamed away is another matter: ioredis's own ready check needs INFO or NOPERM.)
    const redis = await redisWith(['--maxmemory-policy', 'allkeys-lru']);
    const admin = new Redis(redis.url, { protocol: 2, maxRetriesPerRequest: 1 });
    closers.push(async () => admin.disconnect());
    await admin.call('ACL', 'SETUSER', 'coord', 'on', '>coord-pw', '~*', '&*', '+@all', '-info');
    // ioredis says on stderr that it skips its ready check; that is its business, not ours.
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { log, lines } = capture();
    const server = await serve(redis, log, { REDIS_URL: `redis://coord:coord-pw@127.0.0.1:${redis.port}` });
    for (const r of await probes(server)) expect(r).toEqual({ status: 200, body: UP });
    expect(policyLines(lines)).toEqual([
      {
        level: 'info',
        msg: 'Redis maxmemory-policy cannot be read; eviction is not checked',
        fields: { reason: 'INFO memory refused or failed' },
      },
    ]);
    vi.restoreAllMocks();
  });
});

describe('readiness > eviction policy changed at runtime', () => {
  it('is noticed once the cached reading is 30 s old, in both directions, one line each', async () => {
    const redis = await redisWith(['--maxmemory-policy', 'noeviction']);
    const admin = new Redis(redis.url, { protocol: 2, maxRetriesPerRequest: 1 });
    const clock = manualClock();
    const { log, lines } = capture();
    const store = new IoredisStore(new Redis(redis.url, { protocol: 2 }), {
      namespace: uniquePrefix('evict'),
      ownsClient: true,
    });
    const coordinator = new Coordinator({ store, config: parseConfig({}), now: clock.now, log });
    closers.push(async () => {
      await coordinator.close();
      await store.close();
      admin.disconnect();
    });

    expect(await coordinator.redisReadiness()).toEqual({ status: 'UP' });
    await admin.config('SET', 'maxmemory-policy', 'allkeys-lfu');
    clock.advance(10_000);
    expect(await coordinator.redisReadiness()).toEqual({ status: 'UP' });
    clock.advance(20_001);
    expect(await coordinator.redisReadiness()).toEqual({ status: 'DOWN', error: refusalOf('allkeys-lfu') });
    clock.advance(1000);
    expect(await coordinator.redisReadiness()).toMatchObject({ status: 'DOWN' });
    // Monitoring health is about reachability only.
    expect(await coordinator.redisHealth()).toBe('UP');

    await admin.config('SET', 'maxmemory-policy', 'noeviction');
    clock.advance(30_001);
    expect(await coordinator.redisReadiness()).toEqual({ status: 'UP' });
    expect(policyLines(lines).map((l) => [l.level, l.fields.maxmemoryPolicy])).toEqual([
      ['error', 'allkeys-lfu'],
      ['info', 'noeviction'],
    ]);
  });
});

describe('readiness > eviction policy on Redis Cluster', () => {
  it('reads the policy of every master (the private Cluster runs noeviction)', async () => {
    const store = new IoredisStore(clusterClient(), { namespace: uniquePrefix('evict'), ownsClient: true });
    closers.push(() => store.close());
    expect(await store.ping()).toBe(true);
    expect(await store.evictionPolicy()).toBe('noeviction');
  });
});

describe('config > COORDINATOR_ALLOW_EVICTION', () => {
  it('is off by default, takes a boolean, and refuses anything else naming the variable', () => {
    expect(parseConfig({}).allowEviction).toBe(false);
    expect(parseConfig({ COORDINATOR_ALLOW_EVICTION: 'true' }).allowEviction).toBe(true);
    expect(parseConfig({ COORDINATOR_ALLOW_EVICTION: 'false' }).allowEviction).toBe(false);
    expect(() => parseConfig({ COORDINATOR_ALLOW_EVICTION: 'allkeys' })).toThrow(ConfigError);
    expect(() => parseConfig({ COORDINATOR_ALLOW_EVICTION: 'allkeys' })).toThrow(
      /COORDINATOR_ALLOW_EVICTION/,
    );
  });
});
