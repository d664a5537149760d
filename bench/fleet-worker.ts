/**
 * The fleet bench's Worker rows (`BENCH_ONLY=fleet`): the built Worker in Miniflare over the
 * Upstash REST bridge, on the namespace the Node rows just filled with idle streams, its cron
 * (`scheduled`) triggered by hand a minute of simulated time apart, with the subrequest budgets
 * of Workers Free (50) and Paid (1,000). Per budget: what a cron run costs with nothing due, how
 * many runs after its lease a silent member is expired, and how many runs a scale-in of a stream
 * without consumers takes to finish — each counted in cron runs, since a run is a minute.
 */
import { Redis } from 'ioredis';
import { groupKeys } from '../src/store/keys.js';
import { decodeMember } from '../src/store/records.js';
import { heartbeatBody } from '../test/support/stack.js';
import { startUpstashBridge } from '../test/support/upstash-bridge.js';
import { type RunningWorker, startWorker } from '../test/support/worker.js';

/** One Worker row of the fleet table. */
export interface FleetWorkerRow {
  streams: number;
  budget: number;
  /** Upstash commands of one cron run with nothing due (median of 5). */
  idleCommandsPerRun: number;
  /** Cron runs after its lease ended until a silent member was expired (null: not within 10). */
  expiryRuns: number | null;
  /** Cron runs from a scale-in 4 → 2 of a consumer-less stream to its finished migration (null: not within 10). */
  scaleInRuns: number | null;
}

const LEASE_MS = 6_000;
const CRON_MS = 60_000;
const MAX_RUNS = 10;

async function call(worker: RunningWorker, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await worker.fetch(path, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

/** Cron runs (one a minute from `t0`) until `done()`; null when not within MAX_RUNS. */
async function runsUntil(
  worker: RunningWorker,
  t0: number,
  done: () => Promise<boolean>,
): Promise<number | null> {
  for (let run = 1; run <= MAX_RUNS; run++) {
    await worker.scheduled(t0 + run * CRON_MS);
    if (await done()) return run;
  }
  return null;
}

/** The Worker rows for the `streams` idle streams of namespace `ns` in the Redis at `redisUrl`. */
export async function benchFleetWorker(
  redisUrl: string,
  ns: string,
  streams: number,
  budgets: readonly number[],
): Promise<FleetWorkerRow[]> {
  const redis = new Redis(redisUrl);
  const bridge = await startUpstashBridge({ redisUrl });
  const rows: FleetWorkerRow[] = [];
  try {
    for (const budget of budgets) {
      const worker = await startWorker({
        UPSTASH_REDIS_REST_URL: bridge.url,
        UPSTASH_REDIS_REST_TOKEN: bridge.token,
        COORDINATOR_OPEN_MODE: 'true',
        COORDINATOR_KEY_PREFIX: ns,
        COORDINATOR_MEMBER_LEASE_TTL_MS: String(LEASE_MS),
        COORDINATOR_MAX_STREAMS: String(streams + 100),
        COORDINATOR_SWEEP_SUBREQUESTS: String(budget),
      });
      try {
        // Nothing due: what a run costs (after one run that may still find leftovers).
        let t0 = Date.now();
        await worker.scheduled(t0);
        const costs: number[] = [];
        for (let i = 1; i <= 5; i++) {
          bridge.reset();
          await worker.scheduled(t0 + i * CRON_MS);
          costs.push(bridge.counts.commands);
        }
        costs.sort((a, b) => a - b);

        // A silent member in a stream of its own among the idle ones.
        const p = `fleet-w${budget}`;
        await call(worker, 'POST', `/coord/v1/streams/${p}`, { requestedBy: 'bench', initialShardCount: 4 });
        await call(
          worker,
          'POST',
          `/coord/v1/streams/${p}/groups/${p}/members/silent/heartbeat`,
          heartbeatBody('silent', p, { epoch: 0, mv: 0 }),
        );
        const leaseEnd = Date.now() + LEASE_MS;
        const state = async () => {
          const text = await redis.hget(groupKeys(ns, p, p).members, 'silent');
          return text === null ? null : decodeMember(p, p, 'silent', text).record.state;
        };
        // The first run after the lease ends comes at most a minute later: counted from leaseEnd - a minute + 1 ms.
        const expiryRuns = await runsUntil(
          worker,
          leaseEnd + 1 - CRON_MS,
          async () => (await state()) === 'EXPIRED',
        );

        // Scale-in of the (now consumer-less) stream: its records consumed and acknowledged first.
        for (let s = 0; s < 4; s++) {
          await redis.xadd(`${p}:${s}`, '*', 'k', 'v');
          await redis.xreadgroup('GROUP', p, 'bench', 'COUNT', 10, 'STREAMS', `${p}:${s}`, '>');
          const ids = (await redis.xrange(`${p}:${s}`, '-', '+')).map(([id]) => id);
          await redis.xack(`${p}:${s}`, p, ...ids);
        }
        await call(worker, 'POST', `/coord/v1/streams/${p}/scale`, {
          targetShardCount: 2,
          requestedBy: 'bench',
          reason: 'fleet bench scale-in',
        });
        t0 = Math.max(Date.now(), leaseEnd + (expiryRuns ?? MAX_RUNS) * CRON_MS);
        const migrations = `/coord/v1/monitoring/streams/${p}/groups/${p}/migrations`;
        const scaleInRuns = await runsUntil(worker, t0, async () => {
          const m = (await call(worker, 'GET', migrations)) as { migrations: Array<{ state: string }> };
          return m.migrations.at(-1)?.state === 'DEPRECATED';
        });
        rows.push({
          streams,
          budget,
          idleCommandsPerRun: costs[2] ?? 0,
          expiryRuns,
          scaleInRuns,
        });
        console.error(`fleet bench: the Worker's cron over ${streams} streams at budget ${budget} done`);
      } finally {
        await worker.close();
      }
    }
  } finally {
    await bridge.close();
    redis.disconnect();
  }
  return rows;
}
