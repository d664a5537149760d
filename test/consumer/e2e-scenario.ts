/**
 * The end-to-end scenario: a real coordinator (`startServer`, heartbeat 500 ms, lease 3 s,
 * sweep 200 ms), a producer publishing unique ids without pause, three consumer processes
 * (concurrency 2 each), a scale through the given shard counts while running (each step waited
 * to DEPRECATED), one consumer SIGKILLed and one SIGSTOPped beyond its lease then SIGCONTed,
 * production stopped before the final scale to 0. It returns what the logs show; the suites
 * assert on it.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Cluster, Redis } from 'ioredis';
import { type RunningServer, startServer } from '../../node/server.js';
import { ioredisAdapter } from '../../src/client/ioredis-adapter.js';
import { createProducer } from '../../src/client/producer.js';
import { parseConfig } from '../../src/config.js';
import { uniquePrefix } from '../support/redis.js';

/** Where the scenario runs. */
export interface ScenarioOptions {
  redis: Redis | Cluster;
  /** `REDIS_URL` or `REDIS_CLUSTER_NODES` for the coordinator and the consumer processes. */
  redisEnv: { REDIS_URL: string } | { REDIS_CLUSTER_NODES: string };
  /** Shard counts: the first at creation, then each scale target; must end with 0. */
  plan: number[];
  /** Production between steps, ms. */
  produceMs: number;
}

/** An ownership interval after the scenario's clipping rules. */
export interface Interval {
  member: string;
  shard: number;
  start: number;
  end: number;
}

/** What the scenario observed. */
export interface ScenarioResult {
  /** Members of the SIGSTOPped process (their leases must have lapsed). */
  stoppedMembers?: string[];
  published: number;
  publishFailures: number;
  missing: string[];
  duplicates: number;
  handledTotal: number;
  /** Pairs of intervals of different members on one shard that overlap. */
  overlaps: Array<[Interval, Interval]>;
  /** Handled records whose start lies outside every interval of their member on their shard. */
  outsideIntervals: string[];
  intervals: number;
  /** Members that reported a lapsed local lease. */
  leaseLost: string[];
  /** Revokes by reason. */
  revokes: Record<string, number>;
  /** Acks refused by the fence (a member that had lost the shard acking late). */
  refusedAcks: number;
  /** Of those, acks an earlier send of which (reply lost) may have been applied before the takeover. */
  refusedInDoubt: number;
  /**
   * Refused acks (not in doubt) whose record was never handled again: had a zombie ack been
   * applied it would have left the new owner's PEL and never come back, so this stays empty.
   */
  refusedNotRedelivered: string[];
  elapsedMs: number;
  log: string[];
}

const LEASE_MS = 3000;
const WORKER = new URL('./e2e-worker.ts', import.meta.url).pathname;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs the scenario end to end and cleans up its processes and server. */
export async function runScenario(o: ScenarioOptions): Promise<ScenarioResult> {
  const t0 = Date.now();
  const log: string[] = [];
  const note = (msg: string) => log.push(`${((Date.now() - t0) / 1000).toFixed(1)}s ${msg}`);
  const dir = mkdtempSync(join(tmpdir(), 'rsc-e2e-'));
  const p = uniquePrefix('e2e');
  const server = await startServer({
    config: parseConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      ...o.redisEnv,
      COORDINATOR_KEY_PREFIX: uniquePrefix('ns'),
      COORDINATOR_HEARTBEAT_INTERVAL_MS: '500',
      COORDINATOR_MEMBER_LEASE_TTL_MS: String(LEASE_MS),
      COORDINATOR_REBALANCE_TIMEOUT_MS: '10000',
      COORDINATOR_SWEEP_INTERVAL_MS: '200',
    }),
    log: () => {},
  });
  const workers: Array<{ name: string; child: ChildProcess; out: string; stderr: string[] }> = [];
  let producing = false;
  let producer: Promise<void> = Promise.resolve();
  try {
    await api(server, 'POST', `/streams/${p}`, { initialShardCount: o.plan[0], requestedBy: 'e2e' }, 201);
    for (const name of ['a', 'b', 'c']) workers.push(spawnWorker(name, dir, server.url, p, o.redisEnv));
    await Promise.all(workers.map((w) => started(w.child)));
    await waitFor('six members, stable', async () => {
      const g = await api(server, 'GET', `/streams/${p}/groups/${p}`);
      return g.state === 'STABLE' && Object.keys(g.targetAssignmentSummary).length === 6;
    });
    note('6 members stable');

    const published = new Set<string>();
    let publishFailures = 0;
    producing = true;
    producer = (async () => {
      const prod = createProducer({
        coordinatorUrl: server.url,
        streamPrefix: p,
        redis: ioredisAdapter(o.redis),
        routingLeaseMs: 1000,
        refreshAheadMs: 200,
        retryBackoffMs: 20,
      });
      let n = 0;
      while (producing) {
        const batch = Array.from({ length: 10 }, () => {
          const uid = `u${n++}`;
          return { partitionKey: uid, fields: { uid } };
        });
        const results = await prod.publishBatch(batch);
        results.forEach((r, i) => {
          if (r.ok) published.add(batch[i]!.fields.uid);
          else publishFailures++;
        });
        await sleep(20);
      }
    })();

    const [a, b] = workers;
    const steps = o.plan.slice(1);
    let killAt = 0;
    let stopClip = 0;
    for (let i = 0; i < steps.length; i++) {
      const target = steps[i]!;
      if (target === 0) {
        await sleep(o.produceMs);
        producing = false;
        await producer;
        note(`producer stopped after ${published.size} records`);
      } else {
        await sleep(o.produceMs);
      }
      await scaleTo(server, p, target);
      note(`scaled to ${target} (DEPRECATED)`);
      if (i === 0) {
        a!.child.kill('SIGKILL');
        killAt = Date.now();
        note('worker a SIGKILLed');
        await sleep(1000);
        process.kill(b!.child.pid!, 'SIGSTOP');
        // The process is surely stopped by now: nothing it logs can be later than this.
        await sleep(20);
        stopClip = Date.now();
        note('worker b SIGSTOPped');
        await sleep(LEASE_MS + 1500);
        process.kill(b!.child.pid!, 'SIGCONT');
        note('worker b SIGCONTed');
      }
    }

    for (const w of workers.slice(1)) w.child.kill('SIGTERM');
    await Promise.all(workers.slice(1).map((w) => exited(w.child, 10_000)));
    note('workers closed');
    const result = analyse({
      published,
      publishFailures,
      files: workers.map((w) => w.out),
      killed: { base: `${p}-a`, at: killAt },
      stopped: { base: `${p}-b`, at: stopClip },
      t0,
      log,
    });
    return { ...result, stoppedMembers: [`${p}-b-m0`, `${p}-b-m1`] };
  } catch (err) {
    const tail = workers.map((w) => `${w.name}: ${w.stderr.join('').slice(-2000)}`).join('\n');
    throw new Error(`${err instanceof Error ? err.message : err}\n${log.join('\n')}\n${tail}`);
  } finally {
    producing = false;
    await producer.catch(() => {});
    for (const w of workers)
      if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
    await server.close();
  }

  function spawnWorker(
    name: string,
    dir: string,
    url: string,
    prefix: string,
    redisEnv: ScenarioOptions['redisEnv'],
  ) {
    const out = join(dir, `${name}.log`);
    writeFileSync(out, '');
    const child = fork(WORKER, [], {
      execArgv: ['--import', 'tsx'],
      env: {
        ...process.env,
        ...redisEnv,
        COORDINATOR_URL: url,
        STREAM_PREFIX: prefix,
        MEMBER_BASE: `${prefix}-${name}`,
        OUT_FILE: out,
      },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    const stderr: string[] = [];
    child.stderr?.on('data', (d) => stderr.push(String(d)));
    return { name, child, out, stderr };
  }
}

async function api(
  server: RunningServer,
  method: string,
  path: string,
  body?: unknown,
  expectStatus = method === 'GET' ? 200 : 202,
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers are indexed freely here.
): Promise<any> {
  const init: RequestInit = { method };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { 'content-type': 'application/json' };
  }
  const res = await fetch(`${server.url}/coord/v1${path}`, init);
  const text = await res.text();
  if (res.status !== expectStatus) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
  return text ? JSON.parse(text) : null;
}

async function scaleTo(server: RunningServer, p: string, target: number): Promise<void> {
  const res = await api(server, 'POST', `/streams/${p}/scale`, {
    targetShardCount: target,
    requestedBy: 'e2e',
    reason: `scale to ${target}`,
  });
  const id = res.migrations[0].reshardingId;
  await waitFor(`migration to ${target} DEPRECATED`, async () => {
    const m = await api(server, 'GET', `/streams/${p}/groups/${p}/migrations/${id}`);
    return m.state === 'DEPRECATED';
  });
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

function started(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`consumer process exited early (${code})`)));
  });
}

function exited(child: ChildProcess, timeoutMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve();
    }, timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

interface AnalyseInput {
  published: Set<string>;
  publishFailures: number;
  files: string[];
  /** Member-id base of the SIGKILLed process and when it was killed. */
  killed: { base: string; at: number };
  /** Member-id base of the SIGSTOPped process and a time at which it was surely stopped. */
  stopped: { base: string; at: number };
  t0: number;
  log: string[];
}

/** Reads the consumer logs and checks delivery and exclusivity. */
export function analyse(i: AnalyseInput): ScenarioResult {
  const handled = new Map<string, number>();
  const records: Array<{ member: string; shard: number; uid: string; at: number }> = [];
  const open = new Map<string, Interval>();
  const intervals: Interval[] = [];
  const leaseLost = new Set<string>();
  const revokes: Record<string, number> = {};
  const refused: string[] = [];
  for (const file of i.files) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const f = line.split(' ');
      if (f[0] === 'H' && f.length === 5) {
        handled.set(f[3]!, (handled.get(f[3]!) ?? 0) + 1);
        records.push({ member: f[1]!, shard: Number(f[2]), uid: f[3]!, at: Number(f[4]) });
      } else if (f[0] === 'L') {
        leaseLost.add(f[1]!);
      } else if (f[0] === 'F' && f.length === 4) {
        if (f[3] !== '-') refused.push(...f[3]!.split(','));
      } else if (f[0] === 'R') {
        revokes[f[3]!] = (revokes[f[3]!] ?? 0) + 1;
      } else if (f[0] === 'O' && f.length === 5) {
        const key = `${f[1]} ${f[2]} ${f[3]}`;
        if (f[4] === '-')
          open.set(key, { member: f[1]!, shard: Number(f[2]), start: Number(f[3]), end: Number.NaN });
        else {
          open.delete(key);
          intervals.push({ member: f[1]!, shard: Number(f[2]), start: Number(f[3]), end: Number(f[4]) });
        }
      }
    }
  }
  // Still open: only the killed process may leave intervals open; they ended when it died.
  for (const iv of open.values())
    intervals.push({ ...iv, end: iv.member.startsWith(`${i.killed.base}-m`) ? i.killed.at : Date.now() });
  // The stopped process did nothing while stopped; what it logged afterwards on an interval
  // that was open when it stopped is the stale lease it must not have used.
  for (const iv of intervals) {
    if (iv.member.startsWith(`${i.stopped.base}-m`) && iv.start < i.stopped.at && iv.end > i.stopped.at)
      iv.end = i.stopped.at;
  }
  const overlaps: Array<[Interval, Interval]> = [];
  const byShard = new Map<number, Interval[]>();
  for (const iv of intervals) byShard.set(iv.shard, [...(byShard.get(iv.shard) ?? []), iv]);
  for (const list of byShard.values()) {
    list.sort((x, y) => x.start - y.start);
    for (let a = 0; a < list.length; a++) {
      for (let b = a + 1; b < list.length && list[b]!.start < list[a]!.end; b++) {
        if (list[a]!.member !== list[b]!.member) overlaps.push([list[a]!, list[b]!]);
      }
    }
  }
  const outsideIntervals = records
    .filter(
      (r) =>
        !intervals.some(
          (iv) => iv.member === r.member && iv.shard === r.shard && iv.start <= r.at && r.at <= iv.end,
        ),
    )
    .map((r) => `${r.member} shard ${r.shard} ${r.uid} at ${r.at}`);
  const missing = [...i.published].filter((uid) => !handled.has(uid));
  let duplicates = 0;
  for (const n of handled.values()) duplicates += n - 1;
  return {
    published: i.published.size,
    publishFailures: i.publishFailures,
    missing,
    duplicates,
    handledTotal: records.length,
    overlaps,
    outsideIntervals,
    intervals: intervals.length,
    leaseLost: [...leaseLost].sort(),
    revokes,
    refusedAcks: refused.length,
    refusedInDoubt: refused.filter((u) => u.startsWith('?')).length,
    refusedNotRedelivered: refused.filter((u) => !u.startsWith('?') && (handled.get(u) ?? 0) < 2),
    elapsedMs: Date.now() - i.t0,
    log: i.log,
  };
}
