/**
 * Health that tells the truth: liveness never depends on Redis; readiness is UP only
 * while Redis answers with our credentials and the instance is not terminating, and UP again
 * within a second of Redis returning; Redis auth failures answer 503 REDIS_UNAVAILABLE; Redis
 * errors are logged as JSON, rate-limited, once per state change, never printed raw.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, inject, it, vi } from 'vitest';
import { createLogger, type LogFn } from '../../node/logger.js';
import { type RunningServer, redisErrorLogger, startServer } from '../../node/server.js';
import { parseConfig } from '../../src/config.js';
import { RedisHealthProbe } from '../../src/coordinator/health.js';
import type { ActuatorHealth } from '../../src/http/routes/actuator.js';
import type { PingOutcome } from '../../src/store/store.js';
import { uniquePrefix } from '../support/redis.js';
import { freePort } from '../support/redis-server.js';
import { heartbeatBody } from '../support/stack.js';
import { slowPost } from './child.js';

type Line = { level: string; msg: string; fields: Record<string, unknown> | undefined };

/** Log lines as the real JSON logger writes them (secrets scrubbed), parsed back. */
function capture(): { log: LogFn; lines: Line[]; written: string[] } {
  const lines: Line[] = [];
  const written: string[] = [];
  const log = createLogger({
    level: 'debug',
    write: (line) => {
      written.push(line);
      const { ts: _ts, level, msg, ...fields } = JSON.parse(line);
      lines.push({ level, msg, fields: Object.keys(fields).length > 0 ? fields : undefined });
    },
  });
  return { lines, written, log };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** True once something accepts TCP connections on 127.0.0.1:`port`. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** A redis-server of this test's own, on a fixed port so it can come back on it. */
class OwnRedis {
  private child: ChildProcess | null = null;
  private dir = '';
  constructor(
    readonly port: number,
    private readonly extra: string[] = [],
  ) {}

  /** Starts it and resolves when it accepts connections, with that moment (ms). */
  async start(): Promise<number> {
    this.dir = await mkdtemp(join(tmpdir(), `rsc-health-${this.port}-`));
    const args = ['--save', '', '--appendonly', 'no', '--bind', '127.0.0.1', '--port', String(this.port)];
    this.child = spawn('redis-server', [...args, '--dir', this.dir, ...this.extra], { stdio: 'ignore' });
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      if (await accepts(this.port)) return Date.now();
      await sleep(5);
    }
    throw new Error(`redis-server on ${this.port} did not start`);
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (child && child.exitCode === null && child.signalCode === null) {
      const gone = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGKILL');
      await gone;
    }
    if (this.dir) await rm(this.dir, { recursive: true, force: true });
  }
}

const running: RunningServer[] = [];
const redises: OwnRedis[] = [];
let printed: string[] = [];
beforeEach(() => {
  printed = [];
  // ioredis prints unhandled 'error' events with console.error; nothing may reach stderr raw.
  for (const m of ['error', 'warn'] as const) {
    vi.spyOn(console, m).mockImplementation((...a: unknown[]) => {
      printed.push(a.map(String).join(' '));
    });
  }
});
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(running.splice(0).map((s) => s.close()));
  await Promise.all(redises.splice(0).map((r) => r.stop()));
});

async function ownRedis(extra: string[] = []): Promise<OwnRedis> {
  const r = new OwnRedis(await freePort(), extra);
  redises.push(r);
  await r.start();
  return r;
}

async function start(env: Record<string, string>, log: LogFn): Promise<RunningServer> {
  const config = parseConfig({
    PORT: '0',
    REDIS_URL: inject('redisUrl'),
    COORDINATOR_KEY_PREFIX: uniquePrefix('health'),
    ...env,
  });
  const server = await startServer({ config, log });
  running.push(server);
  return server;
}

async function get(
  server: RunningServer,
  path: string,
): Promise<{ status: number; body: ActuatorHealth; text: string }> {
  const res = await fetch(`${server.url}${path}`);
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text), text };
}

async function post(server: RunningServer, path: string, body: unknown) {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const UP = { status: 'UP', components: { redis: { status: 'UP' }, lifecycle: { status: 'UP' } } };
const redisLines = (lines: Line[], msg: string) => lines.filter((l) => l.msg === msg);

describe('health > Redis outage', () => {
  it('is DOWN while Redis is stopped, UP within 1 s of it accepting connections again; liveness stays UP', async () => {
    const redis = await ownRedis();
    const { log, lines } = capture();
    const server = await start({ REDIS_URL: `redis://127.0.0.1:${redis.port}` }, log);
    expect(await get(server, '/actuator/health')).toMatchObject({ status: 200, body: UP });
    expect(await get(server, '/actuator/health/readiness')).toMatchObject({ status: 200, body: UP });

    await redis.stop();
    await vi.waitFor(async () => expect((await get(server, '/actuator/health/readiness')).status).toBe(503), {
      timeout: 3000,
      interval: 50,
    });
    const down = await get(server, '/actuator/health');
    expect(down.status).toBe(503);
    expect(down.body).toEqual({
      status: 'DOWN',
      components: {
        redis: { status: 'DOWN', details: { error: 'unreachable' } },
        lifecycle: { status: 'UP' },
      },
    });
    expect(await get(server, '/actuator/health/liveness')).toMatchObject({
      status: 200,
      body: { status: 'UP' },
    });
    const refused = await post(server, `/coord/v1/streams/${uniquePrefix('orders')}`, {
      initialShardCount: 2,
      requestedBy: 't',
    });
    expect(refused).toMatchObject({ status: 503, body: { errorCode: 'REDIS_UNAVAILABLE' } });

    // A long enough outage for ioredis's default reconnect delay to have grown past a second.
    await sleep(3500);
    expect(await get(server, '/actuator/health/liveness')).toMatchObject({ status: 200 });
    const acceptedAt = await redis.start();
    let upAfter = Number.POSITIVE_INFINITY;
    while (Date.now() - acceptedAt < 3000) {
      if ((await get(server, '/actuator/health/readiness')).status === 200) {
        upAfter = Date.now() - acceptedAt;
        break;
      }
      await sleep(50);
    }
    expect(upAfter).toBeLessThanOrEqual(1000);
    expect(await get(server, '/actuator/health')).toMatchObject({ status: 200, body: UP });

    // One line per change of state; connection errors logged once (then suppressed for 10 s).
    expect(redisLines(lines, 'Redis unavailable')).toEqual([
      { level: 'error', msg: 'Redis unavailable', fields: { reason: 'unreachable' } },
    ]);
    expect(redisLines(lines, 'Redis reachable again').map((l) => l.level)).toEqual(['info']);
    const connErrors = redisLines(lines, 'Redis connection error');
    expect(connErrors).toHaveLength(1);
    expect(connErrors[0]).toMatchObject({ level: 'warn', fields: { error: { code: 'ECONNREFUSED' } } });
    expect(JSON.stringify(connErrors)).not.toContain('stack');
    expect(printed).toEqual([]);
  }, 20_000);
});

describe('health > Redis credentials refused', () => {
  it.each([
    ['a wrong password', (port: number) => `redis://:wrong-${'x'.repeat(6)}@127.0.0.1:${port}`],
    ['no password', (port: number) => `redis://127.0.0.1:${port}`],
  ])(
    'with %s: readiness 503 "credentials refused", requests 503 REDIS_UNAVAILABLE, secrets never shown',
    async (_, urlOf) => {
      const secret = `pw-${uniquePrefix('s')}`;
      const redis = await ownRedis(['--requirepass', secret]);
      const { log, lines, written } = capture();
      const url = urlOf(redis.port);
      const server = await start({ REDIS_URL: url }, log);

      const ready = await get(server, '/actuator/health/readiness');
      expect(ready.status).toBe(503);
      expect(ready.body).toEqual({
        status: 'DOWN',
        components: {
          redis: { status: 'DOWN', details: { error: 'credentials refused' } },
          lifecycle: { status: 'UP' },
        },
      });
      expect((await get(server, '/actuator/health')).status).toBe(503);
      expect((await get(server, '/actuator/health/liveness')).status).toBe(200);

      const p = uniquePrefix('orders');
      const admin = await post(server, `/coord/v1/streams/${p}`, { initialShardCount: 2, requestedBy: 't' });
      const hb = await post(
        server,
        `/coord/v1/streams/${p}/groups/${p}/members/m1/heartbeat`,
        heartbeatBody('m1', p, { epoch: 0, mv: 0 }),
      );
      for (const r of [admin, hb]) {
        expect(r.status).toBe(503);
        expect(r.body.errorCode).toBe('REDIS_UNAVAILABLE');
        expect(String(r.body.message)).toMatch(/refused the configured credentials/);
      }

      // Let the reconnect loop fail a few more times: still one line per state, one per 10 s.
      await sleep(1200);
      expect((await get(server, '/actuator/health/readiness')).status).toBe(503);
      expect(redisLines(lines, 'Redis unavailable')).toEqual([
        { level: 'error', msg: 'Redis unavailable', fields: { reason: 'credentials refused' } },
      ]);
      const connErrors = redisLines(lines, 'Redis connection error');
      expect(connErrors).toHaveLength(1);
      expect(String((connErrors[0]!.fields!.error as { message: string }).message)).toMatch(
        /^(WRONGPASS|NOAUTH)/,
      );
      const everything = JSON.stringify({ written, ready: ready.text, admin, hb });
      expect(everything).not.toContain(secret);
      expect(everything).not.toContain('wrong-xxxxxx');
      expect(printed).toEqual([]);
    },
    20_000,
  );
});

describe('health > terminating', () => {
  it('answers readiness 503 as soon as close() begins, while in-flight requests drain; liveness stays 200', async () => {
    const server = await start({}, capture().log);
    expect((await get(server, '/actuator/health/readiness')).status).toBe(200);
    const inFlight = slowPost(
      `${server.url}/coord/v1/streams/${uniquePrefix('orders')}`,
      '{"initialShardCount":2,"requestedBy":"t"}',
    );
    await inFlight.arrived;

    const closed = server.close();
    const ready = await get(server, '/actuator/health/readiness');
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({
      status: 'DOWN',
      components: {
        redis: { status: 'UP' },
        lifecycle: { status: 'DOWN', details: { state: 'terminating' } },
      },
    });
    expect((await get(server, '/actuator/health')).status).toBe(503);
    expect(await get(server, '/actuator/health/liveness')).toMatchObject({
      status: 200,
      body: { status: 'UP' },
    });

    inFlight.finish();
    await inFlight.response;
    await closed;
  });
});

describe('health > Redis Cluster connection errors', () => {
  it('logs them through the JSON logger, rate-limited, and never prints them', async () => {
    const dead = await freePort();
    const { log, lines } = capture();
    const server = await start({ REDIS_CLUSTER_NODES: `127.0.0.1:${dead}` }, log);
    const ready = await get(server, '/actuator/health/readiness');
    expect(ready.status).toBe(503);
    expect(ready.body.components.redis).toEqual({ status: 'DOWN', details: { error: 'unreachable' } });
    expect((await get(server, '/actuator/health/liveness')).status).toBe(200);
    await vi.waitFor(() => expect(redisLines(lines, 'Redis connection error').length).toBeGreaterThan(0));
    await sleep(1000);
    expect(redisLines(lines, 'Redis connection error')).toHaveLength(1);
    expect(printed).toEqual([]);
  }, 15_000);
});

describe('health > ioredis error log rate limit', () => {
  it('logs the first error at once, then one per interval with the count suppressed since', () => {
    const { log, lines } = capture();
    let t = 0;
    const onError = redisErrorLogger(log, () => t, 10_000);
    const err = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    for (t = 0; t < 25_000; t += 500) onError(err);
    expect(lines.map((l) => l.fields)).toEqual([
      { error: { name: 'Error', message: err.message, code: 'ECONNREFUSED' } },
      { error: { name: 'Error', message: err.message, code: 'ECONNREFUSED' }, suppressed: 19 },
      { error: { name: 'Error', message: err.message, code: 'ECONNREFUSED' }, suppressed: 19 },
    ]);
  });
});

describe('health > probe cache', () => {
  it('lets a flood of checks cost one PING per 250 ms (readiness) or per second (monitoring)', async () => {
    let t = 0;
    let pings = 0;
    let answer: () => void = () => {};
    const store = {
      ping: async () => true,
      pingOutcome: () => {
        pings++;
        return new Promise<PingOutcome>((resolve) => {
          answer = () => resolve({ ok: true });
        });
      },
    };
    const probe = new RedisHealthProbe(store, () => t);
    const flood = Array.from({ length: 50 }, () => probe.check());
    answer();
    expect((await Promise.all(flood)).every((c) => c.status === 'UP')).toBe(true);
    expect(pings).toBe(1);
    t = 200;
    await probe.check();
    expect(pings).toBe(1);
    t = 300;
    const again = Promise.all([probe.check(), probe.check(), probe.get()]);
    answer();
    await again;
    expect(pings).toBe(2);
    t = 800;
    expect(await probe.get()).toBe('UP');
    expect(pings).toBe(2);
  });

  it('logs one line per change of state, with the reason', async () => {
    let t = 0;
    let next: PingOutcome = { ok: true };
    const { log, lines } = capture();
    const probe = new RedisHealthProbe(
      { ping: async () => true, pingOutcome: async () => next },
      () => t,
      log,
    );
    const seq: PingOutcome[] = [
      { ok: true },
      { ok: false, error: 'unreachable' },
      { ok: false, error: 'unreachable' },
      { ok: false, error: 'credentials refused' },
      { ok: true },
      { ok: true },
    ];
    for (const o of seq) {
      next = o;
      t += 1000;
      await probe.check();
    }
    expect(lines.map((l) => [l.level, l.msg, l.fields?.reason])).toEqual([
      ['error', 'Redis unavailable', 'unreachable'],
      ['error', 'Redis unavailable', 'credentials refused'],
      ['info', 'Redis reachable again', undefined],
    ]);
  });
});
