/**
 * `GET /actuator/prometheus` on the Node adapter over a private Redis: after a small scenario
 * (a stream, a second group, members heartbeating, records added, a backlog delivered and not
 * acknowledged) every metric and label the reference's dashboards and console read (the
 * fixture written by scripts/extract-dashboard-facts.ts) is served; the lag gauges and the lag
 * route agree with `XINFO GROUPS` and `XPENDING`; stream/group labels stop at the cap.
 */
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { type RunningServer, startServer } from '../../node/server.js';
import { parseConfig } from '../../src/config.js';
import { type Exposition, parseExposition, sampleSum } from '../support/exposition.js';
import { uniquePrefix } from '../support/redis.js';
import { heartbeatBody } from '../support/stack.js';

const FIXTURE = JSON.parse(
  readFileSync(new URL('../fixtures/reference-dashboard-metrics.json', import.meta.url), 'utf8'),
) as { metrics: Array<{ name: string; labels: string[] }> };

const READER = { user: 'reader', password: 'reference-reader-secret' };
const CREDENTIALS = {
  COORDINATOR_ADMIN_PASSWORD: 'reference-admin-secret',
  COORDINATOR_USERS: `${READER.user}:${READER.password}:READ`,
};
const WRITER = { user: 'admin', password: 'reference-admin-secret' };
type Who = { user: string; password: string } | null;

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

async function start(config: Record<string, string> = {}): Promise<RunningServer> {
  const server = await startServer({
    config: parseConfig({
      PORT: '0',
      REDIS_URL: inject('redisUrl'),
      COORDINATOR_KEY_PREFIX: uniquePrefix('refmetrics'),
      COORDINATOR_SWEEP_INTERVAL_MS: '100',
      COORDINATOR_METRICS_LAG_REFRESH_MS: '0',
      ...CREDENTIALS,
      ...config,
    }),
    log: () => {},
  });
  running.push(server);
  return server;
}

async function call(server: RunningServer, method: string, path: string, body?: unknown, who: Who = WRITER) {
  const headers: Record<string, string> = {};
  if (who) headers.authorization = `Basic ${Buffer.from(`${who.user}:${who.password}`).toString('base64')}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, json: text.startsWith('{') ? JSON.parse(text) : null };
}

async function scrape(server: RunningServer): Promise<Exposition> {
  const res = await call(server, 'GET', '/actuator/prometheus', undefined, READER);
  expect(res.status).toBe(200);
  return parseExposition(res.text);
}

/** Creates `p` with `shards` shards (its first group is `p`) and, optionally, more groups. */
async function createStream(server: RunningServer, p: string, shards: number, groups: string[] = []) {
  const res = await call(server, 'POST', `/coord/v1/streams/${p}`, {
    initialShardCount: shards,
    requestedBy: 'test',
  });
  expect(res.status).toBe(201);
  for (const g of groups) {
    expect(
      (await call(server, 'POST', `/coord/v1/streams/${p}/groups/${g}`, { requestedBy: 'test' })).status,
    ).toBe(201);
  }
}

/** A few heartbeats of one member, following the answers. */
async function heartbeats(server: RunningServer, p: string, g: string, memberId: string, n = 3) {
  let epoch = 0;
  let mv = 0;
  let owned: number[] = [];
  for (let i = 0; i < n; i++) {
    const res = await call(
      server,
      'POST',
      `/coord/v1/streams/${p}/groups/${g}/members/${memberId}/heartbeat`,
      heartbeatBody(memberId, p, { epoch, mv, owned }),
    );
    expect(res.status).toBe(200);
    epoch = res.json.memberEpoch;
    mv = res.json.metadataVersion;
    owned = res.json.assignment.assignedShards.map((s: { shardIndex: number }) => s.shardIndex);
  }
}

/** Adds `n` records to shard `i` of `p`; then `read` of them are delivered to group `g` and left unacknowledged. */
async function backlog(p: string, i: number, g: string, n: number, read: number) {
  for (let k = 0; k < n; k++) await redis.xadd(`${p}:${i}`, '*', 'payload', `r${k}`);
  if (read > 0) await redis.xreadgroup('GROUP', g, 'worker-1', 'COUNT', read, 'STREAMS', `${p}:${i}`, '>');
}

/** `XINFO GROUPS key` as name → { lag, pending }. */
async function xinfoGroups(key: string): Promise<Map<string, { lag: number; pending: number }>> {
  const reply = (await redis.xinfo('GROUPS', key)) as unknown[][];
  const out = new Map<string, { lag: number; pending: number }>();
  for (const row of reply) {
    const f = new Map<string, unknown>();
    for (let i = 0; i < row.length; i += 2) f.set(String(row[i]), row[i + 1]);
    out.set(String(f.get('name')), { lag: Number(f.get('lag')), pending: Number(f.get('pending')) });
  }
  return out;
}

describe('reference metrics > /actuator/prometheus', () => {
  it('serves every metric and label set of the reference dashboards and console after a scenario', async () => {
    const server = await start();
    const p = uniquePrefix('orders');
    await createStream(server, p, 3, ['audit']);
    // Label slots come from the scrape-time snapshot of the stored groups, never from requests:
    // the groups' requests and heartbeats carry their own labels from the first scrape after
    // they were created on.
    await scrape(server);
    await heartbeats(server, p, p, 'm1');
    await heartbeats(server, p, p, 'm2');
    await backlog(p, 0, p, 6, 2);
    await backlog(p, 1, 'audit', 3, 1);
    expect((await call(server, 'GET', `/coord/v1/monitoring/streams/${p}/groups/${p}/offsets`)).status).toBe(
      200,
    );

    const m = await scrape(server);
    expect(FIXTURE.metrics.length).toBeGreaterThanOrEqual(15);
    const missing: string[] = [];
    for (const { name, labels } of FIXTURE.metrics) {
      const hit = m.samples.find(
        (s) =>
          s.name === name &&
          labels.every((l) => (s.labels[l] ?? '') !== '') &&
          // Series about a group carry the scenario's stream, not only `none` or `_other`.
          (!labels.includes('stream') || s.labels.stream === p),
      );
      if (!hit) missing.push(`${name}{${labels.join(',')}}`);
    }
    expect(missing).toEqual([]);
    // Types as the reference's Micrometer registry exposes them.
    expect(m.types.get('redis_stream_coord_api_request_duration_seconds')).toBe('summary');
    expect(m.types.get('redis_stream_coord_api_request_duration_seconds_max')).toBe('gauge');
    expect(m.types.get('redis_stream_coord_heartbeat_total')).toBe('counter');
    expect(m.types.get('redis_stream_coord_shard_lag')).toBe('gauge');
    // `_total` on counters only (the reference's names keep their `_ms` gauges: they are its facts).
    const misnamed = [...m.types].filter(([name, type]) => (type === 'counter') !== name.endsWith('_total'));
    expect(misnamed).toEqual([]);
    expect(sampleSum(m, 'redis_stream_coord_heartbeat_total', { stream: p, group: p })).toBe(6);
    expect(sampleSum(m, 'redis_stream_coord_members', { stream: p, group: p, state: 'active' })).toBe(2);
    // Process and runtime metrics ride along.
    for (const name of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
    ]) {
      expect(m.samples.some((s) => s.name === name && s.value > 0)).toBe(true);
    }
    // Secrets never show up in the exposition.
    const text = (await call(server, 'GET', '/actuator/prometheus', undefined, READER)).text;
    for (const secret of Object.values(CREDENTIALS))
      expect(text).not.toContain(secret.split(':')[1] ?? secret);
  });

  it('needs READ unless COORDINATOR_PROMETHEUS_PUBLIC; COORDINATOR_METRICS_PUBLIC opens only /metrics', async () => {
    const server = await start();
    expect((await call(server, 'GET', '/actuator/prometheus', undefined, null)).status).toBe(401);
    // The old switch alone must not publish stream, group and member names anonymously.
    const metricsOnly = await start({ COORDINATOR_METRICS_PUBLIC: 'true' });
    expect((await call(metricsOnly, 'GET', '/actuator/prometheus', undefined, null)).status).toBe(401);
    expect((await call(metricsOnly, 'GET', '/metrics', undefined, null)).status).toBe(200);
    expect((await call(metricsOnly, 'GET', '/actuator/prometheus', undefined, READER)).status).toBe(200);
    const open = await start({ COORDINATOR_PROMETHEUS_PUBLIC: 'true' });
    expect((await call(open, 'GET', '/actuator/prometheus', undefined, null)).status).toBe(200);
    expect((await call(open, 'GET', '/metrics', undefined, null)).status).toBe(401);
  });
});

describe('reference metrics > lag and pending', () => {
  it('match XINFO GROUPS and XPENDING on a group with a known backlog, in the gauges and the lag route', async () => {
    const server = await start();
    const p = uniquePrefix('backlog');
    await createStream(server, p, 2, ['audit']);
    await backlog(p, 0, p, 10, 4); // lag 6, pending 4 for group p on shard 0
    await backlog(p, 1, p, 5, 0); // lag 5 on shard 1
    await redis.xreadgroup('GROUP', 'audit', 'w', 'COUNT', 15, 'STREAMS', `${p}:0`, '>');
    const before = Date.now();

    const m = await scrape(server);
    for (const shard of [0, 1]) {
      const info = await xinfoGroups(`${p}:${shard}`);
      for (const g of [p, 'audit']) {
        const labels = { stream: p, group: g, shard: String(shard) };
        expect(sampleSum(m, 'redis_stream_coord_shard_lag', labels), `${g} ${shard}`).toBe(info.get(g)!.lag);
        expect(sampleSum(m, 'redis_stream_coord_shard_pending', labels), `${g} ${shard}`).toBe(
          info.get(g)!.pending,
        );
      }
    }
    expect(sampleSum(m, 'redis_stream_coord_shard_lag', { stream: p, group: p })).toBe(11);
    expect(sampleSum(m, 'redis_stream_coord_shard_pending', { stream: p, group: p })).toBe(4);

    const res = await call(
      server,
      'GET',
      `/coord/v1/monitoring/streams/${p}/groups/${p}/lag`,
      undefined,
      READER,
    );
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ streamPrefix: p, consumerGroup: p, totalLag: 11, totalPending: 4 });
    const [count, oldestId] = (await redis.xpending(`${p}:0`, p)) as [number, string];
    expect(count).toBe(4);
    const shard0 = res.json.shards.find((s: { shardIndex: number }) => s.shardIndex === 0);
    expect(shard0).toMatchObject({ lag: 6, pending: 4, oldestPendingId: oldestId, streamLength: 10 });
    const oldestMs = Number(oldestId.split('-')[0]);
    expect(shard0.oldestPendingAgeMs).toBeGreaterThanOrEqual(0);
    expect(shard0.oldestPendingAgeMs).toBeLessThanOrEqual(Date.now() - oldestMs + 1);
    expect(res.json.oldestPendingAgeMs).toBe(shard0.oldestPendingAgeMs);
    const age = sampleSum(m, 'redis_stream_coord_shard_oldest_pending_age_seconds', {
      stream: p,
      group: p,
      shard: '0',
    });
    expect(age).toBeGreaterThanOrEqual(0);
    expect(age).toBeLessThanOrEqual((Date.now() - oldestMs) / 1000 + 0.001);
    expect(before).toBeGreaterThanOrEqual(oldestMs);
  });
});

describe('reference metrics > cardinality cap', () => {
  it('labels at most COORDINATOR_METRICS_MAX_GROUPS stream/group pairs and sums the rest under _other', async () => {
    const server = await start({ COORDINATOR_METRICS_MAX_GROUPS: '2' });
    const streams = [0, 1, 2, 3].map((i) => uniquePrefix(`cap${i}`));
    for (const s of streams) {
      await createStream(server, s, 1);
      await backlog(s, 0, s, 2, 0);
    }
    // A request naming a stream that does not exist never takes a slot.
    expect(
      (await call(server, 'GET', '/coord/v1/streams/ghost/groups/ghost', undefined, READER)).status,
    ).toBe(404);

    const m = await scrape(server);
    const pairs = new Set(
      m.samples
        .filter((s) => s.name.startsWith('redis_stream_coord_') && s.labels.stream !== undefined)
        .map((s) => `${s.labels.stream}/${s.labels.group}`),
    );
    // Labelled pairs: neither `_other` nor `none` (stream-wide requests of unlabelled streams are `_other/none`).
    const labelled = [...pairs].filter((x) => !x.includes('_other') && !x.endsWith('/none'));
    expect(labelled.length).toBe(2);
    expect(pairs.has('_other/_other')).toBe(true);
    for (const x of pairs)
      expect(labelled.includes(x) || x.startsWith('_other/') || x.endsWith('/none')).toBe(true);
    expect([...pairs].some((x) => x.startsWith('ghost'))).toBe(false);
    // Every stream's backlog is still counted: two labelled, the rest summed under _other.
    expect(sampleSum(m, 'redis_stream_coord_shard_lag')).toBe(8);
    expect(
      sampleSum(m, 'redis_stream_coord_shard_lag', { stream: '_other', group: '_other' }),
    ).toBeGreaterThanOrEqual(4);
    expect(sampleSum(m, 'redis_stream_coord_metrics_labelled_groups')).toBe(2);
  });
});

describe('reference metrics > label slots of groups that exist', () => {
  /** Stream/group pairs with their own labels in a scrape (neither `_other` nor stream-wide `none`). */
  const labelledPairs = (m: Exposition) =>
    new Set(
      m.samples
        .filter((s) => s.name.startsWith('redis_stream_coord_') && s.labels.stream !== undefined)
        .filter((s) => s.labels.stream !== '_other' && s.labels.group !== 'none')
        .map((s) => `${s.labels.stream}/${s.labels.group}`),
    );

  it('gives heartbeats to made-up streams and groups no slot; a group created afterwards has its own series', async () => {
    // Member authentication off: what an anonymous client can do (the default cap of 100 slots).
    const server = await start({ COORDINATOR_AUTHENTICATE_MEMBER_API: 'false' });
    const made = uniquePrefix('made');
    for (let i = 0; i < 100; i++) {
      const [p, g] = i % 2 === 0 ? [`${made}-${i}`, 'g'] : [made, `g${i}`];
      const res = await call(
        server,
        'POST',
        `/coord/v1/streams/${p}/groups/${g}/members/m/heartbeat`,
        heartbeatBody('m', p, { epoch: 0, mv: 0 }),
        null,
      );
      expect(res.status).toBe(200);
      expect(res.json.status).toBe('UNKNOWN_MEMBER_ID');
    }
    let m = await scrape(server);
    expect(sampleSum(m, 'redis_stream_coord_metrics_labelled_groups')).toBe(0);
    expect(labelledPairs(m)).toEqual(new Set());

    const p = uniquePrefix('real');
    await createStream(server, p, 2);
    m = await scrape(server);
    expect(sampleSum(m, 'redis_stream_coord_metrics_labelled_groups')).toBe(1);
    expect(sampleSum(m, 'redis_stream_coord_group_epoch', { stream: p, group: p })).toBeGreaterThan(0);
    await heartbeats(server, p, p, 'm1');
    m = await scrape(server);
    expect(sampleSum(m, 'redis_stream_coord_heartbeat_total', { stream: p, group: p })).toBe(3);
    expect(sampleSum(m, 'redis_stream_coord_members', { stream: p, group: p, state: 'active' })).toBe(1);
    expect(labelledPairs(m)).toEqual(new Set([`${p}/${p}`]));
    expect(m.samples.some((s) => (s.labels.stream ?? '').startsWith(made))).toBe(false);
    // The made-up heartbeats are still counted, under `_other`.
    expect(
      sampleSum(m, 'redis_stream_coord_heartbeat_total', { stream: '_other', status: 'UNKNOWN_MEMBER_ID' }),
    ).toBe(100);
  });

  it('releases the slot of a deleted stream, series and all, for the next group', async () => {
    const server = await start({ COORDINATOR_METRICS_MAX_GROUPS: '1' });
    const [a, b] = [uniquePrefix('gone'), uniquePrefix('next')];
    await createStream(server, a, 1);
    await scrape(server);
    await heartbeats(server, a, a, 'm1', 1);
    let m = await scrape(server);
    expect(labelledPairs(m)).toEqual(new Set([`${a}/${a}`]));
    expect(sampleSum(m, 'redis_stream_coord_heartbeat_total', { stream: a, group: a })).toBe(1);

    const body = { requestedBy: 'test', reason: 'slot', force: true };
    expect((await call(server, 'DELETE', `/coord/v1/streams/${a}`, body)).status).toBe(200);
    await createStream(server, b, 1);
    m = await scrape(server);
    expect(labelledPairs(m)).toEqual(new Set([`${b}/${b}`]));
    expect(m.samples.some((s) => s.labels.stream === a)).toBe(false);
    expect(sampleSum(m, 'redis_stream_coord_metrics_labelled_groups')).toBe(1);
  });
});
