/**
 * Batched heartbeats: HTTP requests per heartbeat interval and coordinator CPU per
 * member heartbeat, with the consumer SDK's batching on and off, measured in the same run
 * against the same coordinator process (started as `npm start`, real HTTP on loopback, real
 * timers, default 3 s interval and 15 s lease). The load is 64 consumers ("processes") of
 * concurrency 16 — 1,024 members of one group over 64 shards — each `createConsumer` with its own
 * transport, as separate processes would have; they share one bench process (and one Redis
 * client) only to fit the machine. CPU is the coordinator process's user + system time from
 * /proc over the window, minus its idle rate measured before any load; each mode is measured
 * twice (single, batched, batched, single) and summed. Each phase is bounded:
 * it measures whatever state it reached after BENCH_HBB_SETTLE_MS. Asserts nothing.
 */
import { Redis } from 'ioredis';
import { type Consumer, createConsumer } from '../src/client/consumer.js';
import type { FetchLike } from '../src/client/transport.js';
import { cpuMs, startCoordinator } from './scale/coordinators.js';

const PROCESSES = Number(process.env.BENCH_HBB_PROCESSES ?? 64);
const MEMBERS = Number(process.env.BENCH_HBB_MEMBERS ?? 16);
const SHARDS = 64;
const INTERVAL_MS = 3000;
/** Longest wait for the group to settle before measuring anyway. */
const SETTLE_MS = Number(process.env.BENCH_HBB_SETTLE_MS ?? 60_000);
/** Measurement window: five intervals. */
const WINDOW_MS = Number(process.env.BENCH_HBB_WINDOW_MS ?? 5 * INTERVAL_MS);

/** What one phase measured. */
export interface BatchPhase {
  mode: 'single' | 'batched';
  settled: boolean;
  requests: number;
  memberHeartbeats: number;
  cpuMs: number;
  windowMs: number;
  non2xx: number;
}

function table(headers: string[], rows: Array<Array<string | number>>): string {
  const cells = rows.map((r) => r.map(String));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

/** Counts heartbeat requests and the member heartbeats they carry, on the real fetch. */
function countingFetch(counts: { requests: number; memberHeartbeats: number; non2xx: number }): FetchLike {
  return async (url, init) => {
    const res = await fetch(url, init);
    if (url.endsWith('/heartbeats')) {
      counts.requests++;
      counts.memberHeartbeats += (JSON.parse(String(init.body)).heartbeats as unknown[]).length;
    } else if (url.endsWith('/heartbeat')) {
      counts.requests++;
      counts.memberHeartbeats++;
    }
    if (!res.ok) counts.non2xx++;
    return res;
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function createStream(base: URL, prefix: string): Promise<void> {
  const res = await fetch(new URL(`/coord/v1/streams/${prefix}`, base), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ initialShardCount: SHARDS, requestedBy: 'bench' }),
  });
  if (res.status !== 201) throw new Error(`create stream: ${res.status} ${await res.text()}`);
}

/** Every member answered OK with a valid lease, and every shard is read by someone. */
function settled(consumers: Consumer[]): boolean {
  const all = consumers.flatMap((c) => c.status());
  if (!all.every((m) => m.lastStatus === 'OK' && m.leaseValid && m.pending.length === 0)) return false;
  return new Set(all.flatMap((m) => m.reading)).size === SHARDS;
}

async function phase(
  base: URL,
  pid: number,
  redis: Redis,
  mode: BatchPhase['mode'],
  idleRate: number,
): Promise<BatchPhase> {
  const prefix = `hbb-${mode}-${Date.now()}`;
  await createStream(base, prefix);
  const counts = { requests: 0, memberHeartbeats: 0, non2xx: 0 };
  const consumers = Array.from({ length: PROCESSES }, (_, i) =>
    createConsumer({
      coordinatorUrl: base.href,
      streamPrefix: prefix,
      redis,
      concurrency: MEMBERS,
      memberBase: `p${i}`,
      handler: () => 'ack',
      fetch: countingFetch(counts),
      batchHeartbeats: mode === 'batched',
    }),
  );
  try {
    for (const c of consumers) c.start();
    const until = Date.now() + SETTLE_MS;
    while (!settled(consumers) && Date.now() < until) await sleep(250);
    const ok = settled(consumers);
    // One more interval, so the joins' single heartbeats and the last moves are behind us.
    await sleep(INTERVAL_MS);
    const before = { ...counts };
    const c0 = await cpuMs(pid);
    const t0 = performance.now();
    await sleep(WINDOW_MS);
    const cpu = (await cpuMs(pid)) - c0;
    const windowMs = performance.now() - t0;
    return {
      mode,
      settled: ok,
      requests: counts.requests - before.requests,
      memberHeartbeats: counts.memberHeartbeats - before.memberHeartbeats,
      cpuMs: Math.max(0, cpu - idleRate * windowMs),
      windowMs,
      non2xx: counts.non2xx - before.non2xx,
    };
  } finally {
    await Promise.all(consumers.map((c) => c.close()));
  }
}

/** Two phases of one mode as one longer window. */
function sum(ps: BatchPhase[]): BatchPhase {
  return ps.reduce((a, b) => ({
    mode: a.mode,
    settled: a.settled && b.settled,
    requests: a.requests + b.requests,
    memberHeartbeats: a.memberHeartbeats + b.memberHeartbeats,
    cpuMs: a.cpuMs + b.cpuMs,
    windowMs: a.windowMs + b.windowMs,
    non2xx: a.non2xx + b.non2xx,
  }));
}

/** Runs both phases against one coordinator process on `redisUrl`; returns the printed tables. */
export async function benchHeartbeatBatch(redisUrl: string): Promise<string> {
  const coordinator = await startCoordinator(redisUrl, { COORDINATOR_KEY_PREFIX: `hbb-${Date.now()}` });
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    const i0 = await cpuMs(coordinator.pid);
    const w0 = performance.now();
    await sleep(3000);
    const idleRate = ((await cpuMs(coordinator.pid)) - i0) / (performance.now() - w0);
    // Order single, batched, batched, single: neither mode gets the colder coordinator alone.
    const phases: BatchPhase[] = [];
    for (const mode of ['single', 'batched', 'batched', 'single'] as const) {
      phases.push(await phase(coordinator.url, coordinator.pid, redis, mode, idleRate));
      console.error(`heartbeat-batch bench: ${mode} done`);
    }
    const rows = (['single', 'batched'] as const).map((mode) => sum(phases.filter((p) => p.mode === mode)));
    const per = (r: BatchPhase) => ({
      reqPerInterval: (r.requests * INTERVAL_MS) / r.windowMs,
      beatsPerInterval: (r.memberHeartbeats * INTERVAL_MS) / r.windowMs,
      cpuPerBeat: r.cpuMs / Math.max(1, r.memberHeartbeats),
      cpuPerInterval: (r.cpuMs * INTERVAL_MS) / r.windowMs,
    });
    const [single, batched] = rows.map(per) as [ReturnType<typeof per>, ReturnType<typeof per>];
    const body = rows.map((r) => {
      const p = per(r);
      return [
        r.mode,
        `${PROCESSES} × ${MEMBERS}`,
        p.reqPerInterval.toFixed(0),
        p.beatsPerInterval.toFixed(0),
        (p.beatsPerInterval / Math.max(1, p.reqPerInterval)).toFixed(1),
        p.cpuPerBeat.toFixed(3),
        p.cpuPerInterval.toFixed(0),
        r.non2xx,
        r.settled ? 'yes' : `no (after ${SETTLE_MS / 1000} s)`,
      ];
    });
    body.push([
      'batched / single',
      '',
      `${(batched.reqPerInterval / single.reqPerInterval).toFixed(3)}×`,
      `${(batched.beatsPerInterval / single.beatsPerInterval).toFixed(2)}×`,
      '',
      `${(batched.cpuPerBeat / single.cpuPerBeat).toFixed(2)}×`,
      `${(batched.cpuPerInterval / single.cpuPerInterval).toFixed(2)}×`,
      '',
      '',
    ]);
    return [
      `### Batched heartbeats (one coordinator process as \`npm start\`, real HTTP on loopback, ${INTERVAL_MS / 1000} s interval, ${PROCESSES} consumers × concurrency ${MEMBERS} over ${SHARDS} shards, 2 × ${(WINDOW_MS / 1000).toFixed(0)} s window per mode in the order single, batched, batched, single, same run)`,
      table(
        [
          'mode',
          'processes × members',
          'requests/interval',
          'member heartbeats/interval',
          'heartbeats/request',
          'coordinator CPU ms/member heartbeat',
          'coordinator CPU ms/interval',
          'non-2xx',
          'settled',
        ],
        body,
      ),
    ].join('\n');
  } finally {
    redis.disconnect();
    await coordinator.stop();
  }
}
