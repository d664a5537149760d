import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import type { LogFn } from '../../node/logger.js';
import { OPEN_MODE_WARNING } from '../../node/open-mode.js';
import { type RunningServer, startServer } from '../../node/server.js';
import { ConfigError, parseConfig } from '../../src/config.js';
import { uniquePrefix } from '../support/redis.js';
import { slowPost } from './child.js';

type Line = { level: string; msg: string; fields: Record<string, unknown> | undefined };

function capture(): { log: LogFn; lines: Line[] } {
  const lines: Line[] = [];
  return { lines, log: (level, msg, fields) => lines.push({ level, msg, fields }) };
}

const running: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});

async function start(env: Record<string, string>, log: LogFn): Promise<RunningServer> {
  const config = parseConfig({
    PORT: '0',
    REDIS_URL: inject('redisUrl'),
    COORDINATOR_KEY_PREFIX: uniquePrefix('node'),
    COORDINATOR_SWEEP_INTERVAL_MS: '50',
    ...env,
  });
  const server = await startServer({ config, log });
  running.push(server);
  return server;
}

const createOrders = JSON.stringify({ initialShardCount: 4, requestedBy: 'me' });

async function post(url: string, body: string): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
}

describe('node adapter > serving', () => {
  it('serves the coordinator on the real port chosen for PORT=0 and logs where', async () => {
    const stream = uniquePrefix('orders');
    const { log, lines } = capture();
    const server = await start({}, log);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.url).not.toMatch(/:0$/);
    expect(lines.find((l) => l.msg === 'listening')?.fields?.url).toBe(server.url);

    expect((await fetch(`${server.url}/actuator/health`)).status).toBe(200);
    expect((await post(`${server.url}/coord/v1/streams/${stream}`, createOrders)).status).toBe(201);
    const routing = await fetch(`${server.url}/coord/v1/streams/${stream}/groups/${stream}/producer-routing`);
    expect(routing.status).toBe(200);
    expect((await routing.json()).shardCount).toBe(4);
  });

  it('serves against Redis Cluster when REDIS_CLUSTER_NODES is set', async () => {
    const stream = uniquePrefix('orders');
    const server = await start({ REDIS_CLUSTER_NODES: inject('redisClusterNodes') }, capture().log);
    expect((await post(`${server.url}/coord/v1/streams/${stream}`, createOrders)).status).toBe(201);
    const routing = await fetch(`${server.url}/coord/v1/streams/${stream}/groups/${stream}/producer-routing`);
    expect((await routing.json()).shards).toHaveLength(4);
  });

  it('runs the sweep on its interval', async () => {
    const { log, lines } = capture();
    await start({}, log);
    await vi.waitFor(() => expect(lines.filter((l) => l.msg.startsWith('sweep')).length).toBeGreaterThan(1));
    expect(lines.some((l) => l.msg === 'sweep failed')).toBe(false);
  });
});

describe('node adapter > open mode', () => {
  it('warns at start that it runs without credentials on loopback', async () => {
    const { log, lines } = capture();
    await start({}, log);
    expect(lines.some((l) => l.level === 'warn' && l.msg === OPEN_MODE_WARNING)).toBe(true);
  });

  it.each(['0.0.0.0', '::', '10.1.2.3'])('refuses to bind HOST=%s without credentials', async (host) => {
    const config = parseConfig({ HOST: host, PORT: '0', REDIS_URL: inject('redisUrl') });
    const attempt = startServer({ config, log: capture().log });
    await expect(attempt).rejects.toBeInstanceOf(ConfigError);
    await expect(attempt).rejects.toThrow(/HOST.*loopback/);
  });
});

describe('node adapter > terminating mode', () => {
  it('answers new mutations 503 COORDINATOR_TERMINATING while in-flight requests finish', async () => {
    const stream = uniquePrefix('orders');
    const { log, lines } = capture();
    const server = await start({}, log);
    const inFlight = slowPost(`${server.url}/coord/v1/streams/${stream}`, createOrders);
    await inFlight.arrived;
    expect(server.inFlight()).toBe(1);

    const closed = server.close();
    expect(server.terminating()).toBe(true);
    const refused = await post(`${server.url}/coord/v1/streams/${uniquePrefix('payments')}`, createOrders);
    expect(refused.status).toBe(503);
    expect((await refused.json()).errorCode).toBe('COORDINATOR_TERMINATING');

    inFlight.finish();
    const first = await inFlight.response;
    // It arrived before termination: it either completes or is refused cleanly, never cut off.
    if (first.status !== 201) {
      expect(first.status).toBe(503);
      expect(JSON.parse(first.body).errorCode).toBe('COORDINATOR_TERMINATING');
    }
    await closed;
    expect(lines.at(-1)?.msg).toBe('stopped');
    await expect(fetch(`${server.url}/actuator/health`)).rejects.toThrow();
  });

  it('close() is idempotent', async () => {
    const server = await start({}, capture().log);
    await Promise.all([server.close(), server.close()]);
    await server.close();
  });
});
