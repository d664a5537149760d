/**
 * A real coordinator (`startServer`, port 0, the suite's private Redis) with a stream, two
 * members that converged through heartbeats, and known records, for the console's browser tests.
 */
import { copyFile, mkdir, mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { expect, inject } from 'vitest';
import { type RunningServer, startServer } from '../../node/server.js';
import { parseConfig } from '../../src/config.js';
import { SimMember } from '../support/members.js';
import { standaloneClient, uniquePrefix } from '../support/redis.js';
import type { TestResponse } from '../support/stack.js';

/** The admin password the credentialed server is configured with. */
export const ADMIN_PASSWORD = 'console-test-Secret!';

/** Where the lead looks at the screenshots after a run. */
export const SHOTS_OUT = '/tmp/console-shots';

/** A running coordinator with arranged data. */
export interface ConsoleFixture {
  server: RunningServer;
  url: string;
  /** Stream prefix; its first group has the same name. */
  p: string;
  members: SimMember[];
  /** Record ids of shard 0, oldest first (30 records with `payload`). */
  shard0: string[];
  redis: Redis;
  /** JSON call with the admin's Basic credentials (when configured). */
  call: (method: string, path: string, body?: unknown) => Promise<TestResponse>;
  close: () => Promise<void>;
}

/** Starts the coordinator, creates a 4-shard stream, joins two members and writes records. */
export async function startConsoleFixture(opts: {
  credentials: boolean;
  users?: string;
  /** More settings (e.g. a short lease), applied last. */
  config?: Record<string, string>;
}): Promise<ConsoleFixture> {
  const config = parseConfig({
    PORT: '0',
    REDIS_URL: inject('redisUrl'),
    COORDINATOR_KEY_PREFIX: uniquePrefix('console'),
    COORDINATOR_HEARTBEAT_INTERVAL_MS: '1000',
    // Long leases: members must stay live while the browser looks at them.
    COORDINATOR_MEMBER_LEASE_TTL_MS: '120000',
    ...(opts.credentials ? { COORDINATOR_ADMIN_PASSWORD: ADMIN_PASSWORD } : {}),
    ...(opts.users ? { COORDINATOR_USERS: opts.users } : {}),
    ...opts.config,
  });
  const server = await startServer({ config, log: () => {} });
  const redis = standaloneClient();
  const auth = opts.credentials
    ? `Basic ${Buffer.from(`admin:${ADMIN_PASSWORD}`, 'utf8').toString('base64')}`
    : null;
  const call = async (method: string, path: string, body?: unknown): Promise<TestResponse> => {
    const headers: Record<string, string> = {};
    if (auth) headers.authorization = auth;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? null : JSON.parse(text) };
  };
  const close = async () => {
    redis.disconnect();
    await server.close();
  };
  try {
    const p = uniquePrefix('orders');
    const created = await call('POST', `/coord/v1/streams/${p}`, {
      initialShardCount: 4,
      requestedBy: 'test',
    });
    expect(created.status).toBe(201);

    const members = [new SimMember('worker-a', p, p), new SimMember('worker-b', p, p)];
    // Beat until the coordinator sees every shard held by its target owner (group STABLE).
    let state = '';
    for (let round = 0; round < 12 && state !== 'STABLE'; round++) {
      for (const m of members) expect((await m.beat({ call })).status).toBe(200);
      state = (await call('GET', `/coord/v1/streams/${p}/groups/${p}`)).body.state;
    }
    expect(state).toBe('STABLE');
    expect(members.map((m) => m.owned.length)).toEqual([2, 2]);

    const shard0: string[] = [];
    for (let i = 0; i < 30; i++) {
      shard0.push(
        (await redis.xadd(`${p}:0`, '*', 'payload', JSON.stringify({ order: i, sku: `SKU-${i}` })))!,
      );
    }
    for (let i = 0; i < 3; i++) await redis.xadd(`${p}:1`, '*', 'payload', `plain text ${i}`);
    await redis.xadd(`${p}:2`, '*', 'kind', 'fields-only', 'n', '1');
    // A raw consumer reads 6 records of shard 0 and acknowledges 4: lag 24, pending 2.
    await redis.xreadgroup('GROUP', p, 'raw-reader', 'COUNT', 6, 'STREAMS', `${p}:0`, '>');
    expect(await redis.xack(`${p}:0`, p, ...shard0.slice(0, 4))).toBe(4);

    return { server, url: server.url, p, members, shard0, redis, call, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** A fresh temporary directory for one run's screenshots. */
export function shotsDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'rsc-console-shots-'));
}

/** Copies every PNG of `dir` to `SHOTS_OUT` for the lead to look at. */
export async function publishShots(dir: string): Promise<void> {
  await mkdir(SHOTS_OUT, { recursive: true });
  for (const f of await readdir(dir)) {
    if (f.endsWith('.png')) await copyFile(join(dir, f), join(SHOTS_OUT, f));
  }
}
