/**
 * Background work at fleet scale (`npm run bench`, BENCH_ONLY=fleet): what housekeeping costs
 * when a deployment serves many streams, most of them idle. Coordinator processes run exactly as
 * `npm start` does, against a private redis-server; streams are created over HTTP, one group each.
 *
 * Per row (streams × instances): the Redis commands per second the coordinators spend with
 * nothing to do (INFO commandstats, by difference over windows after a warm-up, per instance),
 * their CPU, how long after its lease ran out a silent member in one of the streams is expired in
 * Redis, and how long `GET /coord/v1/monitoring/groups` takes. Per stream count (on one
 * instance): the p50/p99 of heartbeats of 100 members on their own 3 s timers in one more stream
 * (do idle streams slow the members of a busy one?), and how long a scale-in 4 → 2 of a stream
 * without consumers takes from the request to its migration finishing (drain evidence read,
 * both removed shards retired). Options (env): BENCH_STREAMS (default "10,10000"),
 * BENCH_FLEET_INSTANCES (default "1,3").
 */
import { readFile } from 'node:fs/promises';
import { Redis } from 'ioredis';
import { groupKeys } from '../src/store/keys.js';
import { decodeMember } from '../src/store/records.js';
import { heartbeatBody } from '../test/support/stack.js';
import { type CoordinatorProcess, cpuMs, startCoordinator } from './scale/coordinators.js';
import { RealMember, Tally } from './scale/member.js';

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
  /** Heartbeats of 100 members of one stream beside the idle ones: p50 and p99 ms (first row of a stream count only). */
  heartbeatP50Ms: number | null;
  heartbeatP99Ms: number | null;
  /** Milliseconds from a scale-in request of a consumer-less stream to its migration finishing (null: not within 30 s). */
  scaleInMs: number | null;
}

const LEASE_MS = 6_000;
/** The coordinators' key namespace (the Worker rows run on the same streams). */
export const FLEET_NAMESPACE = 'rsc';
const NS = FLEET_NAMESPACE;
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

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};

/**
 * 100 members heartbeating on their own timers in stream `p` (16 shards): after 10 s to settle,
 * the latencies of the next 15 s.
 */
async function busyStreamLatency(base: URL, p: string): Promise<[number, number]> {
  const created = await post(base, `/coord/v1/streams/${p}`, { requestedBy: 'bench', initialShardCount: 16 });
  if (created.status !== 201) throw new Error(`creating ${p}: ${created.status}`);
  const tally = new Tally();
  const members = Array.from({ length: 100 }, (_, i) => new RealMember(`hb${i}`, base, p, tally));
  for (const m of members) m.start(Math.random() * 1000);
  try {
    await sleep(10_000);
    const from = tally.latencies.length;
    await sleep(15_000);
    const window = tally.latencies.slice(from);
    return [percentile(window, 50), percentile(window, 99)];
  } finally {
    await Promise.all(members.map((m) => m.leave()));
  }
}

/** Scales consumer-less stream `p` (4 shards, one record each) to 2; ms until its migration finished. */
async function scaleInMs(base: URL, redis: Redis, p: string): Promise<number | null> {
  const created = await post(base, `/coord/v1/streams/${p}`, { requestedBy: 'bench', initialShardCount: 4 });
  if (created.status !== 201) throw new Error(`creating ${p}: ${created.status}`);
  for (let s = 0; s < 4; s++) await redis.xadd(`${p}:${s}`, '*', 'k', 'v');
  // Consumed and acknowledged, as a drained group's shards are (the group has no members).
  for (let s = 0; s < 4; s++) {
    await redis.xreadgroup('GROUP', p, 'bench', 'COUNT', 10, 'STREAMS', `${p}:${s}`, '>');
    const ids = (await redis.xrange(`${p}:${s}`, '-', '+')).map(([id]) => id);
    if (ids.length > 0) await redis.xack(`${p}:${s}`, p, ...ids);
  }
  const t0 = performance.now();
  const res = await post(base, `/coord/v1/streams/${p}/scale`, {
    targetShardCount: 2,
    requestedBy: 'bench',
    reason: 'fleet bench scale-in',
  });
  if (res.status !== 202) throw new Error(`scale-in ${p}: ${res.status} ${JSON.stringify(res.json)}`);
  const url = new URL(`/coord/v1/monitoring/streams/${p}/groups/${p}/migrations`, base);
  while (performance.now() - t0 < 30_000) {
    const m = (await (await fetch(url)).json()) as { migrations: Array<{ state: string }> };
    if (m.migrations.at(-1)?.state === 'DEPRECATED') return performance.now() - t0;
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
  // Room for the busy stream and the scale-in beside the idle ones (the default cap is 10,000).
  const env = {
    COORDINATOR_MEMBER_LEASE_TTL_MS: String(LEASE_MS),
    COORDINATOR_KEY_PREFIX: NS,
    COORDINATOR_MAX_STREAMS: String(streams + 10),
  };
  const coordinators: CoordinatorProcess[] = [];
  const rows: FleetRow[] = [];
  try {
    await redis.flushall();
    coordinators.push(await startCoordinator(redisUrl, env));
    const base = coordinators[0]!.url;
    const names = await createStreams(base, streams);
    // On one instance, before the idle windows: the busy stream's members leave when measured.
    const [hbP50, hbP99] = await busyStreamLatency(base, 'fleet-busy');
    const scaleIn = await scaleInMs(base, redis, 'fleet-scalein');
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
        heartbeatP50Ms: rows.length === 0 ? hbP50 : null,
        heartbeatP99Ms: rows.length === 0 ? hbP99 : null,
        scaleInMs: rows.length === 0 ? scaleIn : null,
      });
      console.error(`fleet bench: ${streams} streams on ${count} instance(s) done`);
    }
  } finally {
    await Promise.all(coordinators.map((c) => c.stop()));
    redis.disconnect();
  }
  return rows;
}
