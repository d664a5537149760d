/**
 * `GET /metrics` on the Node adapter over a private Redis: the text format parses, and the
 * numbers follow the requests, heartbeats, sweeps and stored state that produced them.
 */
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { type RunningServer, startServer } from '../../node/server.js';
import { ConfigError, parseConfig } from '../../src/config.js';
import { type Exposition, parseExposition, sampleSum, sampleValue } from '../support/exposition.js';
import { uniquePrefix } from '../support/redis.js';
import { heartbeatBody } from '../support/stack.js';

const ADMIN = { user: 'admin', password: 'metrics-admin-secret' };
const READER = { user: 'reader', password: 'metrics-reader-secret' };
const CREDENTIALS = {
  COORDINATOR_ADMIN_PASSWORD: ADMIN.password,
  COORDINATOR_USERS: `${READER.user}:${READER.password}:READ`,
};

let redis: Redis;
beforeAll(() => {
  redis = new Redis(inject('redisUrl'));
});
afterAll(() => {
  redis.disconnect();
});
const running: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});

async function start(config: Record<string, string>): Promise<RunningServer> {
  const server = await startServer({
    config: parseConfig({
      PORT: '0',
      REDIS_URL: inject('redisUrl'),
      COORDINATOR_KEY_PREFIX: uniquePrefix('metrics'),
      COORDINATOR_SWEEP_INTERVAL_MS: '50',
      ...config,
    }),
    log: () => {},
  });
  running.push(server);
  return server;
}

function basic(who: { user: string; password: string }): string {
  return `Basic ${Buffer.from(`${who.user}:${who.password}`).toString('base64')}`;
}

async function call(
  server: RunningServer,
  method: string,
  path: string,
  body?: unknown,
  who: { user: string; password: string } | null = ADMIN,
) {
  const headers: Record<string, string> = {};
  if (who) headers.authorization = basic(who);
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    text,
    json: text.startsWith('{') ? JSON.parse(text) : null,
  };
}

async function scrape(server: RunningServer): Promise<Exposition> {
  const res = await call(server, 'GET', '/metrics', undefined, READER);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parseExposition(res.text);
}

/** Heartbeats one member until the coordinator answers from the fast path (bounded). */
async function heartbeatUntilSteady(server: RunningServer, prefix: string, memberId: string): Promise<void> {
  const path = `/coord/v1/streams/${prefix}/groups/${prefix}/members/${memberId}/heartbeat`;
  let epoch = 0;
  let mv = 0;
  let owned: number[] = [];
  for (let i = 0; i < 8; i++) {
    const res = await call(server, 'POST', path, heartbeatBody(memberId, prefix, { epoch, mv, owned }));
    expect(res.status).toBe(200);
    epoch = res.json.memberEpoch;
    mv = res.json.metadataVersion;
    owned = res.json.assignment.assignedShards.map((s: { shardIndex: number }) => s.shardIndex);
  }
}

describe('metrics > Prometheus endpoint on Node', () => {
  it('counts requests by route pattern and status, heartbeats by status and path, and state at scrape time', async () => {
    const server = await start(CREDENTIALS);
    const p = uniquePrefix('orders');
    expect(
      (await call(server, 'POST', `/coord/v1/streams/${p}`, { initialShardCount: 4, requestedBy: 't' }))
        .status,
    ).toBe(201);
    await heartbeatUntilSteady(server, p, 'm1');
    expect((await call(server, 'GET', `/coord/v1/streams/${p}/groups/${p}`)).status).toBe(200);
    expect((await call(server, 'GET', `/coord/v1/streams/${p}/groups/nope`)).status).toBe(404);
    expect((await call(server, 'GET', '/no/such/route')).status).toBe(404);

    const m = await scrape(server);
    const req = (method: string, route: string, status: string) =>
      sampleValue(m, 'rsc_http_requests_total', { method, route, status });
    expect(req('POST', '/coord/v1/streams/:streamPrefix', '201')).toBe(1);
    expect(req('GET', '/coord/v1/streams/:streamPrefix/groups/:consumerGroup', '200')).toBe(1);
    expect(req('GET', '/coord/v1/streams/:streamPrefix/groups/:consumerGroup', '404')).toBe(1);
    expect(req('GET', 'unmatched', '404')).toBe(1);
    expect(
      sampleValue(m, 'rsc_http_request_duration_seconds_count', {
        method: 'POST',
        route: '/coord/v1/streams/:streamPrefix',
      }),
    ).toBe(1);
    // Latency by route only: the 200 and the 404 of the group route share one histogram.
    expect(
      sampleValue(m, 'rsc_http_request_duration_seconds_count', {
        method: 'GET',
        route: '/coord/v1/streams/:streamPrefix/groups/:consumerGroup',
      }),
    ).toBe(2);
    expect(
      m.samples.some((s) => s.name.startsWith('rsc_http_request_duration') && 'status' in s.labels),
    ).toBe(false);
    // Raw paths never become labels: the stream's name appears only as the `stream` (and here
    // `group`) label of the per-shard series of its real group.
    expect(
      m.samples.some((s) =>
        Object.entries(s.labels).some(
          ([k, v]) => v.includes(p) && !((k === 'stream' || k === 'group') && v === p),
        ),
      ),
    ).toBe(false);
    expect(m.samples.filter((s) => s.labels.stream === p).every((s) => s.name.startsWith('rsc_shard_'))).toBe(
      true,
    );

    const heartbeatRoute =
      '/coord/v1/streams/:streamPrefix/groups/:consumerGroup/members/:memberId/heartbeat';
    expect(req('POST', heartbeatRoute, '200')).toBe(8);
    expect(sampleSum(m, 'rsc_heartbeats_total')).toBe(8);
    expect(sampleSum(m, 'rsc_heartbeats_total', { path: 'full' })).toBeGreaterThanOrEqual(1);
    expect(sampleValue(m, 'rsc_heartbeats_total', { status: 'OK', path: 'fast' })).toBeGreaterThanOrEqual(1);
    expect(sampleValue(m, 'rsc_heartbeat_fast_path_total', { result: 'hit' })).toBe(
      sampleValue(m, 'rsc_heartbeats_total', { status: 'OK', path: 'fast' }),
    );

    expect(sampleValue(m, 'rsc_streams')).toBe(1);
    expect(sampleValue(m, 'rsc_shards')).toBe(4);
    expect(sampleValue(m, 'rsc_members', { state: 'ACTIVE' })).toBe(1);
    expect(sampleValue(m, 'rsc_members', { state: 'FENCED' })).toBe(0);
    expect(sampleSum(m, 'rsc_groups')).toBe(1);
    expect(sampleSum(m, 'rsc_migrations')).toBe(0);
    expect(sampleValue(m, 'rsc_metadata_read_up')).toBe(1);
    expect(sampleValue(m, 'rsc_store_commits_total', { result: 'ok' })).toBeGreaterThanOrEqual(2);
    // Only the create took the stream mutex: heartbeats never do.
    expect(sampleValue(m, 'rsc_lock_acquisitions_total', { waited: 'false' })).toBe(1);
    expect(m.samples.find((s) => s.name === 'rsc_build_info')?.value).toBe(1);
  });

  it('records sweeps: count, duration and outcome', async () => {
    const server = await start({});
    await vi.waitFor(async () => {
      const m = parseExposition((await call(server, 'GET', '/metrics', undefined, null)).text);
      expect(sampleValue(m, 'rsc_sweeps_total', { result: 'ok' })).toBeGreaterThanOrEqual(2);
      expect(sampleValue(m, 'rsc_sweep_duration_seconds_count')).toBe(sampleSum(m, 'rsc_sweeps_total'));
    });
  });

  it('counts migrations by state once a stream is scaled', async () => {
    const server = await start({});
    const p = uniquePrefix('scaled');
    await call(server, 'POST', `/coord/v1/streams/${p}`, { initialShardCount: 2, requestedBy: 't' }, null);
    const scaled = await call(server, 'POST', `/coord/v1/streams/${p}/scale`, {
      targetShardCount: 3,
      requestedBy: 't',
      reason: 'metrics test',
    });
    expect(scaled.status).toBe(202);
    const m = parseExposition((await call(server, 'GET', '/metrics', undefined, null)).text);
    expect(sampleSum(m, 'rsc_migrations')).toBe(1);
    expect(sampleValue(m, 'rsc_shards')).toBe(3);
  });
});

describe('metrics > naming', () => {
  it('follows the Prometheus naming guide: _total on counters only, base units, no _ms on rsc_*', async () => {
    const server = await start({});
    const p = uniquePrefix('named');
    await call(server, 'POST', `/coord/v1/streams/${p}`, { initialShardCount: 1, requestedBy: 't' }, null);
    const m = parseExposition((await call(server, 'GET', '/metrics', undefined, null)).text);
    expect(m.types.size).toBeGreaterThan(30);
    const wrong: string[] = [];
    for (const [name, type] of m.types) {
      if ((type === 'counter') !== name.endsWith('_total')) wrong.push(`${type} ${name}`);
      if (/_(ms|milliseconds|millis|us|ns|kb|mb|kib|mib)(_|$)/i.test(name)) wrong.push(`unit ${name}`);
      if (name.startsWith('rsc_') && /_ms(_|$)/.test(name)) wrong.push(`ms ${name}`);
    }
    expect(wrong).toEqual([]);
  });
});

describe('metrics > shard lag on /metrics', () => {
  it('reports lag and pending per shard of a real group with a backlog, and none for made-up groups', async () => {
    const server = await start({ COORDINATOR_AUTHENTICATE_MEMBER_API: 'false' });
    const p = uniquePrefix('lagged');
    await call(server, 'POST', `/coord/v1/streams/${p}`, { initialShardCount: 2, requestedBy: 't' }, null);
    for (let k = 0; k < 7; k++) await redis.xadd(`${p}:0`, '*', 'payload', `r${k}`);
    await redis.xreadgroup('GROUP', p, 'worker-1', 'COUNT', 3, 'STREAMS', `${p}:0`, '>');
    // A heartbeat to a group that does not exist is answered 200 and proves nothing: no slot.
    const ghost = await call(
      server,
      'POST',
      `/coord/v1/streams/${p}/groups/ghost/members/m/heartbeat`,
      heartbeatBody('m', p, { epoch: 0, mv: 0 }),
      null,
    );
    expect(ghost.status).toBe(200);

    const m = parseExposition((await call(server, 'GET', '/metrics', undefined, null)).text);
    expect(m.types.get('rsc_shard_lag')).toBe('gauge');
    expect(m.types.get('rsc_shard_pending')).toBe('gauge');
    expect(sampleValue(m, 'rsc_shard_lag', { stream: p, group: p, shard: '0' })).toBe(4);
    expect(sampleValue(m, 'rsc_shard_pending', { stream: p, group: p, shard: '0' })).toBe(3);
    expect(sampleValue(m, 'rsc_shard_lag', { stream: p, group: p, shard: '1' })).toBe(0);
    expect(m.samples.some((s) => s.labels.group === 'ghost')).toBe(false);
  });

  it('names no stream when /metrics is public (COORDINATOR_METRICS_PUBLIC=true)', async () => {
    const server = await start({ ...CREDENTIALS, COORDINATOR_METRICS_PUBLIC: 'true' });
    const p = uniquePrefix('hidden');
    await call(server, 'POST', `/coord/v1/streams/${p}`, { initialShardCount: 1, requestedBy: 't' });
    await redis.xadd(`${p}:0`, '*', 'payload', 'r');
    const m = parseExposition((await call(server, 'GET', '/metrics', undefined, null)).text);
    expect(m.samples.some((s) => Object.values(s.labels).some((v) => v.includes(p)))).toBe(false);
    expect(m.samples.some((s) => s.name === 'rsc_shard_lag')).toBe(false);
    expect(sampleValue(m, 'rsc_streams')).toBe(1);
  });
});

describe('metrics > access', () => {
  it('needs READ when credentials are configured: 401 anonymous, 403 without a reading role', async () => {
    const server = await start({
      ...CREDENTIALS,
      COORDINATOR_USERS: `${CREDENTIALS.COORDINATOR_USERS},m:m-secret:MEMBER`,
    });
    expect((await call(server, 'GET', '/metrics', undefined, null)).status).toBe(401);
    expect(
      (await call(server, 'GET', '/metrics', undefined, { user: 'm', password: 'm-secret' })).status,
    ).toBe(403);
    expect((await call(server, 'GET', '/metrics', undefined, READER)).status).toBe(200);
    const m = await scrape(server);
    expect(
      sampleValue(m, 'rsc_http_requests_total', { method: 'GET', route: '/metrics', status: '401' }),
    ).toBe(1);
  });

  it('is public with COORDINATOR_METRICS_PUBLIC=true', async () => {
    const server = await start({ ...CREDENTIALS, COORDINATOR_METRICS_PUBLIC: 'true' });
    expect((await call(server, 'GET', '/metrics', undefined, null)).status).toBe(200);
    expect((await call(server, 'GET', '/coord/v1/monitoring/groups', undefined, null)).status).toBe(401);
  });

  it('refuses to start with an unreadable COORDINATOR_METRICS_PUBLIC', async () => {
    await expect(start({ COORDINATOR_METRICS_PUBLIC: 'maybe' })).rejects.toBeInstanceOf(ConfigError);
  });
});
