/**
 * Background work at fleet scale (`npm run bench`, BENCH_ONLY=fleet): what housekeeping costs
 * when a deployment serves many streams, most of them idle. Coordinator processes run exactly as
 * `npm start` does, against a private redis-server; streams are created over HTTP, one group each.
 *
 * Per row (streams × instances): the Redis commands per second the coordinators spend with
 * nothing to do (INFO commandstats, by difference over windows after a warm-up, per instance),
 * their CPU, how long after its lease ran out a silent member in one of the streams is expired in
 * Redis, and how long `GET /coord/v1/monitoring/groups` takes. Options (env): BENCH_STREAMS
 * (default "10,10000"), BENCH_FLEET_INSTANCES (default "1,3").
 */
import { readFile } from 'node:fs/promises';
import { Redis } from 'ioredis';
import { groupKeys } from '../src/store/keys.js';
import { decodeMember } from '../src/store/records.js';
import { heartbeatBody } from '../test/support/stack.js';
import { type CoordinatorProcess, cpuMs, startCoordinator } from './scale/coordinators.js';

/** One row of the fleet table. */
export interface FleetRow {
  streams: number;
  instances: number;
  /** Redis commands per second per instance while every stream is idle (median of the windows). */
  idleCommandsPerSec: number;
  /** Coordinator CPU while idle, percent of one core per instance (median). */
  idleCpuPercent: number;
  /** Milliseconds from a silent member's lease end until Redis records it EXPIRED (null: not within 30 s). */
  expiryLagMs: number | null;
  /** Milliseconds `GET /monitoring/groups` took without parameters (first page, up to 1,000 groups; median of 3). */
  listGroupsMs: number;
  /** Milliseconds `GET /monitoring/groups?limit=100` took (the console's first page; median of 3). */
  firstPageMs: number;
  /** The serving instance's RSS after the three first pages less before them, in MB. */
  firstPageRssDeltaMb: number;
  /** The same over the three lists without parameters that follow, in MB. */
  listRssDeltaMb: number;
}

const LEASE_MS = 6_000;
const NS = 'rsc';
const WARMUP_MS = 25_000;
const WINDOW_MS = 5_000;
const WINDOWS = 3;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** Commands Redis has executed so far, less the INFO calls that read it. */
async function commandsSoFar(redis: Redis): Promise<number> {
  const text = await redis.info('commandstats');
  let total = 0;
  for (const m of text.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)) if (m[1] !== 'info') total += Number(m[2]);
  return total;
}

async function post(base: URL, path: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const res = await fetch(new URL(path, base), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json().catch(() => null) };
}

/** Creates `n` streams of one shard (and a group of the same name) over HTTP, 32 at a time. */
async function createStreams(base: URL, n: number): Promise<string[]> {
  const names = Array.from({ length: n }, (_, i) => `fleet-${String(i).padStart(5, '0')}`);
  let next = 0;
  const worker = async () => {
    while (next < names.length) {
      const p = names[next++]!;
      const r = await post(base, `/coord/v1/streams/${p}`, { requestedBy: 'bench', initialShardCount: 1 });
      if (r.status !== 201) throw new Error(`creating ${p}: ${r.status} ${JSON.stringify(r.json)}`);
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  return names;
}

/** The stored state of member `m` of `p`'s group `p` (what the sweep wrote). */
async function storedState(redis: Redis, p: string, m: string): Promise<string | null> {
  const text = await redis.hget(groupKeys(NS, p, p).members, m);
  return text === null ? null : decodeMember(p, p, m, text).record.state;
}

async function idleCost(redis: Redis, coordinators: CoordinatorProcess[]): Promise<[number, number]> {
  const rates: number[] = [];
  const cpus: number[] = [];
  for (let w = 0; w < WINDOWS; w++) {
    const c0 = await commandsSoFar(redis);
    const cpu0 = await Promise.all(coordinators.map((c) => cpuMs(c.pid)));
    const t0 = performance.now();
    await sleep(WINDOW_MS);
    const secs = (performance.now() - t0) / 1000;
    const c1 = await commandsSoFar(redis);
    const cpu1 = await Promise.all(coordinators.map((c) => cpuMs(c.pid)));
    rates.push((c1 - c0) / secs / coordinators.length);
    const spent = cpu1.reduce((a, v, i) => a + v - cpu0[i]!, 0);
    cpus.push((spent / (secs * 1000) / coordinators.length) * 100);
  }
  return [median(rates), median(cpus)];
}

/** Joins one member to `p`, lets it fall silent, and measures how late the sweep expires it. */
async function expiryLag(redis: Redis, base: URL, p: string): Promise<number | null> {
  const hb = `/coord/v1/streams/${p}/groups/${p}/members/silent/heartbeat`;
  const joined = await post(base, hb, heartbeatBody('silent', p, { epoch: 0, mv: 0 }));
  if (joined.status !== 200) throw new Error(`join: ${joined.status}`);
  const leaseEnd = Date.now() + LEASE_MS;
  const deadline = leaseEnd + 30_000;
  while (Date.now() < deadline) {
    if ((await storedState(redis, p, 'silent')) === 'EXPIRED') return Math.max(0, Date.now() - leaseEnd);
    await sleep(50);
  }
  return null;
}

/** Resident set size of process `pid`, in bytes. */
async function rssBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024;
}

/** Median milliseconds of 3 `GET /monitoring/groups{query}`. */
async function listGroupsMs(base: URL, query = ''): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    const res = await fetch(new URL(`/coord/v1/monitoring/groups${query}`, base));
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`GET /monitoring/groups${query}: ${res.status}`);
    times.push(performance.now() - t0);
  }
  return median(times);
}

/** The fleet rows for `streams` streams, on each instance count of `instanceCounts` (ascending). */
export async function benchFleet(
  redisUrl: string,
  streams: number,
  instanceCounts: readonly number[],
): Promise<FleetRow[]> {
  const redis = new Redis(redisUrl);
  const env = { COORDINATOR_MEMBER_LEASE_TTL_MS: String(LEASE_MS), COORDINATOR_KEY_PREFIX: NS };
  const coordinators: CoordinatorProcess[] = [];
  const rows: FleetRow[] = [];
  try {
    await redis.flushall();
    coordinators.push(await startCoordinator(redisUrl, env));
    const base = coordinators[0]!.url;
    const names = await createStreams(base, streams);
    for (const count of instanceCounts) {
      while (coordinators.length < count) coordinators.push(await startCoordinator(redisUrl, env));
      await sleep(WARMUP_MS);
      const [rate, cpu] = await idleCost(redis, coordinators);
      const lag = await expiryLag(redis, base, names[Math.floor(names.length / 2)]!);
      const rss0 = await rssBytes(coordinators[0]!.pid);
      const firstPageMs = await listGroupsMs(base, '?limit=100');
      const rss1 = await rssBytes(coordinators[0]!.pid);
      const listMs = await listGroupsMs(base);
      const rss2 = await rssBytes(coordinators[0]!.pid);
      rows.push({
        streams,
        instances: count,
        idleCommandsPerSec: rate,
        idleCpuPercent: cpu,
        expiryLagMs: lag,
        listGroupsMs: listMs,
        firstPageMs,
        firstPageRssDeltaMb: (rss1 - rss0) / 2 ** 20,
        listRssDeltaMb: (rss2 - rss1) / 2 ** 20,
      });
      console.error(`fleet bench: ${streams} streams on ${count} instance(s) done`);
    }
  } finally {
    await Promise.all(coordinators.map((c) => c.stop()));
    redis.disconnect();
  }
  return rows;
}
