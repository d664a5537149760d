import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it, vi } from 'vitest';
import { PRIVATE_REDIS_WARNING } from '../../node/local-redis.js';
import { canConnect, freeLoopbackPort } from '../../node/net.js';
import { OPEN_MODE_WARNING } from '../../node/open-mode.js';
import { uniquePrefix } from '../support/redis.js';
import { processAlive, slowPost, startCoordinator } from './child.js';

const createOrders = JSON.stringify({ initialShardCount: 4, requestedBy: 'me' });

function post(url: string, body: string): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
}

describe('npm start > configuration errors', () => {
  it('exits 2 and names the field when the configuration is invalid', async () => {
    const child = startCoordinator({ PORT: 'eighty' });
    expect(await child.exited).toBe(2);
    expect(child.stderr()).toMatch(/\bPORT\b/);
  });

  it('exits 2 when asked to bind a public address in open mode, before starting anything', async () => {
    const deadRedis = `redis://127.0.0.1:${await freeLoopbackPort()}`;
    const child = startCoordinator({ HOST: '0.0.0.0', PORT: '0', REDIS_URL: deadRedis });
    expect(await child.exited).toBe(2);
    expect(child.stderr()).toMatch(/HOST.*loopback/);
    expect(child.lines.some((l) => l.msg.includes('private redis-server'))).toBe(false);
  });
});

describe('npm start > SIGTERM', () => {
  it('drains: in-flight requests finish, new mutations get 503 COORDINATOR_TERMINATING, exit 0', async () => {
    const stream = uniquePrefix('orders');
    const child = startCoordinator({
      PORT: '0',
      REDIS_URL: inject('redisUrl'),
      COORDINATOR_KEY_PREFIX: uniquePrefix('sigterm'),
    });
    const listening = await child.waitForLine((l) => l.msg === 'listening');
    const url = String(listening.url);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(child.lines.some((l) => l.msg === OPEN_MODE_WARNING)).toBe(true);
    expect((await fetch(`${url}/actuator/health`)).status).toBe(200);

    // Body withheld: the request is in the server's hands when the signal lands.
    const inFlight = slowPost(`${url}/coord/v1/streams/${stream}`, createOrders);
    await inFlight.arrived;
    child.proc.kill('SIGTERM');
    await child.waitForLine((l) => l.msg.startsWith('terminating'));

    const refused = await post(`${url}/coord/v1/streams/${uniquePrefix('payments')}`, createOrders);
    expect(refused.status).toBe(503);
    expect((await refused.json()).errorCode).toBe('COORDINATOR_TERMINATING');

    inFlight.finish();
    const first = await inFlight.response;
    if (first.status !== 201) {
      expect(first.status).toBe(503);
      expect(JSON.parse(first.body).errorCode).toBe('COORDINATOR_TERMINATING');
    }
    expect(await child.exited).toBe(0);
    expect(child.lines.at(-1)?.msg).toBe('stopped');
  });

  it('drains and exits 0 when SIGTERM is sent to `npm start` itself, leaving no coordinator behind', async () => {
    const child = startCoordinator({ PORT: '0', REDIS_URL: inject('redisUrl') }, 'npm');
    const url = String((await child.waitForLine((l) => l.msg === 'listening')).url);
    child.proc.kill('SIGTERM');
    expect(await child.exited).toBe(0);
    expect(child.lines.at(-1)?.msg).toBe('stopped');
    const port = Number(new URL(url).port);
    expect(await canConnect('127.0.0.1', port)).toBe(false);
  });

  it('treats SIGINT (Ctrl-C) the same way', async () => {
    const child = startCoordinator({ PORT: '0', REDIS_URL: inject('redisUrl') });
    await child.waitForLine((l) => l.msg === 'listening');
    child.proc.kill('SIGINT');
    expect(await child.exited).toBe(0);
  });
});

describe('npm start > private Redis', () => {
  it('starts a private redis-server only when no Redis is configured, says so at warn, stops it on SIGTERM', async () => {
    const stream = uniquePrefix('orders');
    const child = startCoordinator({ PORT: '0' });
    const started = await child.waitForLine((l) => l.msg === PRIVATE_REDIS_WARNING);
    expect(started.level).toBe('warn');
    const pid = Number(started.pid);
    const dir = String(started.dir);
    expect(processAlive(pid)).toBe(true);
    expect(existsSync(dir)).toBe(true);
    expect(dir).toContain(join('.data', 'redis'));

    const url = String((await child.waitForLine((l) => l.msg === 'listening')).url);
    expect((await post(`${url}/coord/v1/streams/${stream}`, createOrders)).status).toBe(201);
    const privatePort = Number(new URL(String(started.url)).port);
    expect(await canConnect('127.0.0.1', privatePort)).toBe(true);
    // The line a newcomer pastes into the shell of a producer, a consumer or the CLI.
    expect(child.stderr()).toContain(`export REDIS_URL=redis://127.0.0.1:${privatePort}`);

    child.proc.kill('SIGTERM');
    expect(await child.exited).toBe(0);
    expect(processAlive(pid)).toBe(false);
    expect(await canConnect('127.0.0.1', privatePort)).toBe(false);
    expect(existsSync(dir)).toBe(false);
  });

  it('runs the private redis-server on COORDINATOR_DEV_REDIS_PORT when one is set', async () => {
    const port = await freeLoopbackPort();
    const child = startCoordinator({ PORT: '0', COORDINATOR_DEV_REDIS_PORT: String(port) });
    const started = await child.waitForLine((l) => l.msg === PRIVATE_REDIS_WARNING);
    expect(started.url).toBe(`redis://127.0.0.1:${port}`);
    await child.waitForLine((l) => l.msg === 'listening');
    expect(child.stderr()).toContain(`export REDIS_URL=redis://127.0.0.1:${port}`);
    expect(await canConnect('127.0.0.1', port)).toBe(true);
    child.proc.kill('SIGTERM');
    expect(await child.exited).toBe(0);
    expect(await canConnect('127.0.0.1', port)).toBe(false);
  });

  it('never substitutes an explicit REDIS_URL that does not answer: starts, serves 503, reconnects when Redis comes', async () => {
    const port = await freeLoopbackPort();
    const stream = uniquePrefix('orders');
    const child = startCoordinator({ PORT: '0', REDIS_URL: `redis://:not-logged@127.0.0.1:${port}` });
    const url = String((await child.waitForLine((l) => l.msg === 'listening')).url);
    expect(child.lines.some((l) => l.msg.includes('private redis-server'))).toBe(false);

    const down = await post(`${url}/coord/v1/streams/${stream}`, createOrders);
    expect(down.status).toBe(503);
    expect((await down.json()).errorCode).toBe('REDIS_UNAVAILABLE');

    // Redis arrives late on the configured address (no password there: the refusal is fine too).
    const redis = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      {
        stdio: 'ignore',
      },
    );
    try {
      await vi.waitFor(
        async () => {
          const r = await fetch(`${url}/coord/v1/monitoring/health`);
          expect((await r.json()).redis).toBe('UP');
        },
        { timeout: 10_000, interval: 100 },
      );
      expect((await post(`${url}/coord/v1/streams/${stream}`, createOrders)).status).toBe(201);
    } finally {
      redis.kill('SIGKILL');
    }
    child.proc.kill('SIGTERM');
    expect(await child.exited).toBe(0);
    // The password of the configured URL never reaches the logs.
    expect(JSON.stringify(child.lines)).not.toContain('not-logged');
    expect(child.stderr()).not.toContain('not-logged');
  });

  it('exits 2 when no Redis is configured and COORDINATOR_DEV_REDIS=false', async () => {
    const child = startCoordinator({ PORT: '0', COORDINATOR_DEV_REDIS: 'false' });
    expect(await child.exited).toBe(2);
    expect(child.stderr()).toContain('REDIS_URL');
    expect(child.stderr()).toContain('COORDINATOR_DEV_REDIS');
  });

  it('exits 1 and says how to get Redis when none is configured and redis-server is not installed', async () => {
    const emptyPath = mkdtempSync(join(tmpdir(), 'no-redis-'));
    const child = startCoordinator({ PORT: '0', PATH: emptyPath });
    expect(await child.exited).toBe(1);
    expect(child.stderr()).toContain('apt-get install redis-server');
    expect(child.stderr()).toContain('REDIS_URL');
  });
});
