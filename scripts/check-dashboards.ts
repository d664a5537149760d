/**
 * `REFERENCE_REPO=<fetched copy> npm run check:dashboards`: do the reference's Grafana dashboards
 * show data against our coordinator? Starts a private redis-server, a coordinator and a real
 * Prometheus (Debian's `prometheus`, on PATH or PROMETHEUS_BIN) — all on loopback, free ports —
 * runs a small workload (members heartbeating, records produced, part of them consumed, a
 * backlog), lets Prometheus scrape `/actuator/prometheus` every second, then evaluates every
 * PromQL expression of the four dashboards (template variables substituted) through
 * Prometheus's HTTP API and prints how many return data. Exits 0 only when every one does.
 * Bounded in time (about 40 s; hard stop at 120 s); stops everything it started.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { silentLogger } from '../node/logger.js';
import { freeLoopbackPort } from '../node/net.js';
import { type RedisServer, startRedisServer } from '../node/redis-server.js';
import { type RunningServer, startServer } from '../node/server.js';
import { parseConfig } from '../src/config.js';
import { type DashboardQuery, dashboardQueries, referenceRepo } from './reference-dashboards.js';

const STREAM = 'create-order';
const GROUP = 'demo-workers';
const SHARDS = 4;
const WORKLOAD_MS = 20_000;
const HARD_STOP_MS = 120_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Grafana's template variables as a dashboard user would pick them: our stream and group, every shard and route. */
export function substitute(expr: string): string {
  const vars: Record<string, string> = {
    streamPrefix: STREAM,
    consumerGroup: GROUP,
    shardIndex: '.*',
    apiRoute: '.*',
    __range: '5m',
    __rate_interval: '1m',
    __interval: '15s',
  };
  return expr.replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (whole, name: string) => vars[name] ?? whole);
}

const repo = referenceRepo();
const queries = dashboardQueries(repo);
const workDir = mkdtempSync(join(tmpdir(), 'rsc-check-dashboards-'));
let redisServer: RedisServer | null = null;
let coordinator: RunningServer | null = null;
let prometheus: ChildProcess | null = null;
const clients: Redis[] = [];
let stopping = false;

async function stopAll(): Promise<void> {
  stopping = true;
  if (prometheus && prometheus.exitCode === null) {
    prometheus.kill('SIGTERM');
    await new Promise((r) => {
      const t = setTimeout(() => {
        prometheus?.kill('SIGKILL');
        r(null);
      }, 5000);
      prometheus!.once('exit', () => {
        clearTimeout(t);
        r(null);
      });
    });
  }
  for (const c of clients) c.disconnect();
  await coordinator?.close().catch(() => undefined);
  await redisServer?.stop().catch(() => undefined);
  rmSync(workDir, { recursive: true, force: true });
}

const hardStop = setTimeout(() => {
  console.error(`check:dashboards: still running after ${HARD_STOP_MS / 1000} s, stopping`);
  void stopAll().finally(() => process.exit(1));
}, HARD_STOP_MS);
hardStop.unref();
process.once('SIGINT', () => void stopAll().finally(() => process.exit(130)));

/** A JSON answer as the workload reads it. */
interface Answer {
  status: number;
  json: {
    memberEpoch: number;
    metadataVersion: number;
    assignment: { assignedShards: Array<{ shardIndex: number }> };
  } | null;
}

async function api(method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${coordinator!.url}/coord/v1${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text.startsWith('{') ? JSON.parse(text) : null };
}

/** One member's heartbeat loop, following the coordinator's answers, until the workload ends. */
async function member(memberId: string, until: number): Promise<void> {
  let epoch = 0;
  let mv = 0;
  let owned: number[] = [];
  while (!stopping && Date.now() < until) {
    const res = await api('POST', `/streams/${STREAM}/groups/${GROUP}/members/${memberId}/heartbeat`, {
      protocolVersion: 1,
      requestId: `${memberId}-${Date.now()}`,
      memberId,
      memberName: memberId,
      memberEpoch: epoch,
      metadataVersion: mv,
      runtimeConsumerCapacity: { runtimeMaxConcurrency: 2, availableConcurrency: 2 },
      ownedShards: owned.map((shardIndex) => ({ shardIndex })),
      revokingShards: [],
      shardProgress: [],
    });
    if (res.status === 200 && res.json) {
      epoch = res.json.memberEpoch;
      mv = res.json.metadataVersion;
      owned = res.json.assignment.assignedShards.map((s) => s.shardIndex);
    }
    await sleep(300);
  }
}

/** Produces to every shard; a consumer reads about half and acknowledges half of that (backlog and pending stay). */
async function traffic(redis: Redis, until: number): Promise<void> {
  let n = 0;
  while (!stopping && Date.now() < until) {
    for (let s = 0; s < SHARDS; s++) await redis.xadd(`${STREAM}:${s}`, '*', 'payload', `order-${n++}`);
    if (n % 8 === 0) {
      for (let s = 0; s < SHARDS; s++) {
        const got = (await redis.xreadgroup(
          'GROUP',
          GROUP,
          'worker',
          'COUNT',
          1,
          'STREAMS',
          `${STREAM}:${s}`,
          '>',
        )) as Array<[string, Array<[string, string[]]>]> | null;
        const ids = got?.[0]?.[1].map(([id]) => id) ?? [];
        if (ids.length > 0 && n % 16 === 0) await redis.xack(`${STREAM}:${s}`, GROUP, ...ids);
      }
    }
    await api('GET', `/streams/${STREAM}/groups/${GROUP}`);
    await sleep(150);
  }
}

async function waitFor(what: string, ok: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await ok().catch(() => false)) return;
    await sleep(250);
  }
  throw new Error(`${what} not ready after ${timeoutMs} ms`);
}

async function evaluate(promUrl: string, q: DashboardQuery): Promise<{ ok: boolean; detail: string }> {
  const expr = substitute(q.expr);
  const res = await fetch(`${promUrl}/api/v1/query?${new URLSearchParams({ query: expr })}`);
  const body = (await res.json()) as {
    status: string;
    error?: string;
    data?: { resultType: string; result: unknown };
  };
  if (body.status !== 'success') return { ok: false, detail: `error: ${body.error ?? res.status}` };
  const r = body.data!.result;
  const n = Array.isArray(r) ? r.length : r === null || r === undefined ? 0 : 1;
  return { ok: n > 0, detail: `${n} series` };
}

async function main(): Promise<number> {
  const prometheusBin = process.env.PROMETHEUS_BIN ?? 'prometheus';
  redisServer = await startRedisServer({ baseDir: join(workDir, 'redis') });
  coordinator = await startServer({
    config: parseConfig({
      HOST: '127.0.0.1',
      PORT: '0',
      REDIS_URL: redisServer.url,
      COORDINATOR_HEARTBEAT_INTERVAL_MS: '300',
      COORDINATOR_MEMBER_LEASE_TTL_MS: '3000',
      COORDINATOR_SWEEP_INTERVAL_MS: '200',
      COORDINATOR_METRICS_LAG_REFRESH_MS: '1000',
      LOG_LEVEL: 'warn',
    }),
    log: silentLogger,
  });
  const target = new URL(coordinator.url).host;
  const promPort = await freeLoopbackPort();
  const promUrl = `http://127.0.0.1:${promPort}`;
  const configFile = join(workDir, 'prometheus.yml');
  writeFileSync(
    configFile,
    [
      'global: { scrape_interval: 1s, scrape_timeout: 1s, evaluation_interval: 1s }',
      'scrape_configs:',
      '  - job_name: redis-stream-coordinator',
      '    metrics_path: /actuator/prometheus',
      `    static_configs: [{ targets: ['${target}'] }]`,
      '',
    ].join('\n'),
  );
  prometheus = spawn(
    prometheusBin,
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${join(workDir, 'tsdb')}`,
      `--web.listen-address=127.0.0.1:${promPort}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let promLog = '';
  prometheus.stderr?.on('data', (d: Buffer) => {
    promLog = (promLog + d.toString()).slice(-4000);
  });
  prometheus.once('error', (err) => console.error(`prometheus: ${err.message}`));
  await waitFor('prometheus', async () => (await fetch(`${promUrl}/-/ready`)).ok, 20_000).catch((err) => {
    console.error(promLog);
    throw err;
  });

  const created = await api('POST', `/streams/${STREAM}`, {
    initialShardCount: SHARDS,
    consumerGroup: GROUP,
    requestedBy: 'check-dashboards',
  });
  if (created.status !== 201) throw new Error(`create stream: HTTP ${created.status}`);
  const redis = new Redis(redisServer.url);
  clients.push(redis);
  const until = Date.now() + WORKLOAD_MS;
  console.log(
    `coordinator ${coordinator.url}, prometheus ${promUrl}; workload ${WORKLOAD_MS / 1000} s on ${STREAM}/${GROUP}`,
  );
  await Promise.all([member('member-a', until), member('member-b', until), traffic(redis, until)]);

  let ok = 0;
  for (const q of queries) {
    const r = await evaluate(promUrl, q);
    if (r.ok) ok++;
    console.log(`${r.ok ? 'data   ' : 'NO DATA'}  ${q.dashboard} / ${q.where}: ${r.detail}`);
  }
  console.log(`\n${ok} of ${queries.length} dashboard queries return data`);
  return ok === queries.length ? 0 : 1;
}

let code = 1;
try {
  code = await main();
} catch (err) {
  console.error(`check:dashboards failed: ${err instanceof Error ? err.message : String(err)}`);
} finally {
  await stopAll();
}
process.exit(code);
