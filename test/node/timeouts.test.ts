/**
 * Nothing holds the Node server forever: a client that stalls its headers or body is answered
 * 408 and cut off after COORDINATOR_REQUEST_TIMEOUT_MS, and a Redis that accepts connections but
 * stops answering (SIGSTOP) turns requests into 503 REDIS_UNAVAILABLE after
 * COORDINATOR_REDIS_COMMAND_TIMEOUT_MS instead of leaving them hanging.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import { type RunningServer, startServer } from '../../node/server.js';
import { parseConfig } from '../../src/config.js';
import { type OutageRedis, startOutageRedis } from '../consumer/outage-support.js';
import { uniquePrefix } from '../support/redis.js';

/** Far above the configured timeouts (1 s), far below the 300 s Node allows by default. */
const BOUND_MS = 10_000;

const running: RunningServer[] = [];
const sockets: Socket[] = [];
const redises: OutageRedis[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  // Thawed first: closing a server quits its Redis connection, which a frozen Redis never answers.
  for (const r of redises) r.thaw();
  await Promise.all(running.splice(0).map((s) => s.close()));
  for (const r of redises.splice(0)) await r.stop();
});

async function start(env: Record<string, string>): Promise<RunningServer> {
  const config = parseConfig({
    PORT: '0',
    REDIS_URL: inject('redisUrl'),
    COORDINATOR_KEY_PREFIX: uniquePrefix('timeouts'),
    ...env,
  });
  const server = await startServer({ config, log: () => {} });
  running.push(server);
  return server;
}

/** Writes `head` on a raw connection; resolves with what came back once the server closed it. */
async function stall(url: string, head: string): Promise<{ closed: boolean; reply: string }> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  sockets.push(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.write(head);
  return new Promise((resolve) => {
    let reply = '';
    socket.on('data', (d: Buffer) => {
      reply += d.toString('latin1');
    });
    socket.on('error', () => undefined);
    const timer = setTimeout(() => resolve({ closed: false, reply }), BOUND_MS);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve({ closed: true, reply });
    });
  });
}

describe('node adapter > request timeouts', () => {
  it('answers 408 and closes a connection whose body or headers stall past the request timeout', async () => {
    const server = await start({ COORDINATOR_REQUEST_TIMEOUT_MS: '1000' });
    const host = new URL(server.url).host;
    const path = `/coord/v1/streams/${uniquePrefix('orders')}`;
    const [body, headers] = await Promise.all([
      // Content-Length 100, 20 bytes sent, then nothing.
      stall(
        server.url,
        `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"initialShardCount"`,
      ),
      stall(server.url, `GET /actuator/health HTTP/1.1\r\nHost: ${host}\r\nX-Slow: `),
    ]);
    for (const outcome of [body, headers]) {
      expect(outcome.closed).toBe(true);
      expect(outcome.reply).toMatch(/^HTTP\/1\.1 408 /);
    }
    // The stalled request does not stay counted as in flight (close() would wait for it).
    await vi.waitFor(() => expect(server.inFlight()).toBe(0), { timeout: BOUND_MS });
    // Requests that arrive in time are served as before.
    expect((await fetch(`${server.url}/actuator/health`)).status).toBe(200);
  });
});

describe('node adapter > frozen Redis', () => {
  it('answers 503 REDIS_UNAVAILABLE once a command outlasts the command timeout, and recovers', async () => {
    const redis = await startOutageRedis();
    redises.push(redis);
    const server = await start({ REDIS_URL: redis.url, COORDINATOR_REDIS_COMMAND_TIMEOUT_MS: '1000' });
    const p = uniquePrefix('orders');
    const created = await fetch(`${server.url}/coord/v1/streams/${p}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ initialShardCount: 2, requestedBy: 'test' }),
    });
    expect(created.status).toBe(201);
    const routing = `${server.url}/coord/v1/streams/${p}/groups/${p}/producer-routing`;

    redis.freeze();
    const started = Date.now();
    const res = await fetch(routing, { signal: AbortSignal.timeout(BOUND_MS) });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({
      errorCode: 'REDIS_UNAVAILABLE',
      message: 'Redis did not answer in time',
    });
    expect(Date.now() - started).toBeLessThan(BOUND_MS);

    redis.thaw();
    await vi.waitFor(
      async () => expect((await fetch(routing, { signal: AbortSignal.timeout(BOUND_MS) })).status).toBe(200),
      { timeout: BOUND_MS, interval: 200 },
    );
  });
});
