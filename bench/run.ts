/**
 * `npm run bench`: starts a private redis-server, runs every benchmark and prints tables of
 * ratios against baselines measured in the same run. Not part of `npm test`.
 *
 * Options (env): BENCH_SIZES (members per group; default "100,1000" for the heartbeat cost bench and
 * "10,100,1000,5000" for the real-time scale bench, where sizes of 3,000 and more run on two
 * coordinator instances), BENCH_TRIALS (default 3), BENCH_ONLY (comma-separated subset of
 * scale,fleet,heartbeat,heartbeat-batch,producer,consumer,handoff,login,batch-memory,cost; default all), BENCH_STREAMS and
 * BENCH_FLEET_INSTANCES (the fleet bench: streams per row, default "10,10000"; instances,
 * default "1,3"), BENCH_BM_CONCURRENCY, BENCH_BM_SECONDS and BENCH_BM_HEAP_MB (the batch-memory
 * bench: clients, seconds of load and coordinator heap; default 120, 10 and 192), BENCH_PROTOCOL_ONLY=1
 * (the scale bench's members only follow `heartbeatIntervalMs`, as the reference Python client),
 * BENCH_INTERVAL_MS (the scale bench's steady heartbeat interval, lease 5×; default 3000),
 * BENCH_FLEET_BUDGETS (the fleet bench's Worker cron subrequest budgets; default "50,1000", "0" skips).
 */

import { startStandalone } from '../test/support/redis-server.js';
import { benchBatchMemory } from './batch-memory.js';
import { benchConsumer } from './consumer.js';
import { benchCost } from './cost.js';
import { benchFleet, FLEET_NAMESPACE, type FleetRow } from './fleet.js';
import { benchFleetWorker, type FleetWorkerRow } from './fleet-worker.js';
import { benchHandoff } from './handoff.js';
import { benchHeartbeats, type HeartbeatBenchRow } from './heartbeat.js';
import { benchHeartbeatBatch } from './heartbeat-batch.js';
import { benchLoginStorm } from './login-storm.js';
import { benchProducer } from './producer.js';
import { PROTOCOL_ONLY } from './scale/member.js';
import { benchScale, INTERVAL_MS, type ScaleRow } from './scale/scale.js';

const selected = process.env.BENCH_ONLY?.split(',').map((s) => s.trim());
const only = (name: string) => !selected || selected.includes(name);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

function table(headers: string[], rows: Array<Array<string | number>>): string {
  const cells = rows.map((r) => r.map(String));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

function heartbeatTables(rows: HeartbeatBenchRow[]): string {
  const base = rows[0]!;
  const cost = table(
    [
      'members × shards',
      'round trips/hb',
      'Redis cmds/hb',
      'bytes/hb',
      'bytes vs smallest',
      'fast-path share',
    ],
    rows.map((r) => [
      `${r.members} × 1024`,
      r.roundTripsPerBeat.toFixed(2),
      r.commandsPerBeat.toFixed(2),
      r.bytesPerBeat.toFixed(0),
      `${(r.bytesPerBeat / base.bytesPerBeat).toFixed(2)}×`,
      `${(r.fastPathShare * 100).toFixed(0)}%`,
    ]),
  );
  const tput = table(
    [
      'members × shards',
      'heartbeats/s (median)',
      'bare Hono+EVALSHA/s (median)',
      'ratio',
      'bare Hono+steady script/s (median)',
      'its ratio',
      'p99 ms',
      'trials',
    ],
    rows.map((r) => [
      `${r.members} × 1024`,
      median(r.rps).toFixed(0),
      median(r.baselineRps).toFixed(0),
      (median(r.rps) / median(r.baselineRps)).toFixed(2),
      median(r.scriptBaselineRps).toFixed(0),
      (median(r.scriptBaselineRps) / median(r.baselineRps)).toFixed(2),
      r.p99Ms.toFixed(1),
      r.rps.length,
    ]),
  );
  return [
    '### Steady-state heartbeat cost (INFO commandstats / net bytes; round trips counted at the client)',
    cost,
    '',
    '### Heartbeat throughput over HTTP (load from a separate process, 16 connections, 3 s per trial)',
    '(the steady-script server runs the script of one steady heartbeat and nothing else: the ceiling the Redis side leaves)',
    tput,
  ].join('\n');
}

function scaleTable(rows: ScaleRow[]): string {
  const secs = (ms: number | null) =>
    ms === null ? 'not converged' : `${(ms / 1000).toFixed(1)} s (${(ms / INTERVAL_MS).toFixed(2)} iv)`;
  const num = (v: number | null, digits: number) => (v === null ? '-' : v.toFixed(digits));
  const codes = (r: ScaleRow) => {
    const list = Object.entries(r.non2xx).map(([s, n]) => `${s}: ${n}`);
    if (r.errors > 0) list.push(`transport: ${r.errors}`);
    return list.length === 0 ? '0' : `${list.join(', ')} of ${r.heartbeats}`;
  };
  return [
    `### Real-time scale (coordinator processes as \`npm start\`, real HTTP, members on their own ${INTERVAL_MS / 1000} s timers, ${(5 * INTERVAL_MS) / 1000} s lease, 1,024 shards; ${PROTOCOL_ONLY ? 'protocol-only members: they follow heartbeatIntervalMs and nothing else' : 'members behave as our SDK: up to a tenth early, at once after a revoke'})`,
    table(
      [
        'members (instances)',
        'cold start → converged',
        'one join',
        'one leave',
        'non-2xx',
        'p50 ms',
        'p99 ms (after cold start)',
        'CPU ms full / fast',
        'Redis bytes full / fast',
      ],
      rows.map((r) => [
        `${r.members} (${r.instances})`,
        secs(r.coldStartMs),
        secs(r.joinMs),
        secs(r.leaveMs),
        codes(r),
        r.p50Ms.toFixed(1),
        `${r.p99Ms.toFixed(1)} (${r.p99AfterColdMs.toFixed(1)})`,
        `${num(r.cpuFullMs, 2)} / ${num(r.cpuFastMs, 2)}`,
        `${num(r.bytesFull, 0)} / ${num(r.bytesFast, 0)}`,
      ]),
    ),
  ].join('\n');
}

function fleetTable(rows: FleetRow[]): string {
  return [
    '### Background work at fleet scale (coordinator processes as `npm start`, one group per stream, no members but one silent one, 6 s lease, 1 s sweep interval; the members of the busy stream and the scale-in run first, on one instance)',
    table(
      [
        'streams (instances)',
        'idle Redis cmds/s per instance',
        'idle CPU % per instance',
        'silent member expired after lease +',
        'GET /monitoring/groups?limit=100 (first page; RSS Δ over 3)',
        'GET /monitoring/groups (≤ 1,000; RSS Δ over 3)',
        'heartbeat p50 / p99 ms, 100 members of one more stream',
        'scale-in 4 → 2 without consumers, request → finished',
      ],
      rows.map((r) => [
        `${r.streams} (${r.instances})`,
        r.idleCommandsPerSec.toFixed(1),
        r.idleCpuPercent.toFixed(1),
        r.expiryLagMs === null ? 'not within 30 s' : `${(r.expiryLagMs / 1000).toFixed(2)} s`,
        `${r.firstPageMs.toFixed(0)} ms (${r.firstPageRssDeltaMb.toFixed(1)} MB)`,
        `${r.listGroupsMs.toFixed(0)} ms (${r.listRssDeltaMb.toFixed(1)} MB)`,
        r.heartbeatP99Ms === null ? '—' : `${r.heartbeatP50Ms?.toFixed(1)} / ${r.heartbeatP99Ms.toFixed(1)}`,
        r.scaleInMs === null
          ? r.heartbeatP99Ms === null
            ? '—'
            : 'not within 30 s'
          : `${(r.scaleInMs / 1000).toFixed(2)} s`,
      ]),
    ),
  ].join('\n');
}

function fleetWorkerTable(rows: FleetWorkerRow[]): string {
  const runs = (n: number | null) => (n === null ? 'not within 10 runs' : `${n} run${n === 1 ? '' : 's'}`);
  return [
    "### The Worker's cron at fleet scale (the built Worker in Miniflare over the Upstash REST bridge, on the streams above; runs triggered a simulated minute apart; 6 s lease)",
    table(
      [
        'streams',
        'subrequest budget',
        'Upstash commands per run, nothing due',
        'silent member expired, runs after its lease',
        'scale-in 4 → 2 without consumers, runs to finished',
      ],
      rows.map((r) => [
        String(r.streams),
        String(r.budget),
        String(r.idleCommandsPerRun),
        runs(r.expiryRuns),
        runs(r.scaleInRuns),
      ]),
    ),
  ].join('\n');
}

async function main(): Promise<void> {
  const sizesEnv = process.env.BENCH_SIZES;
  const scaleSizes = (sizesEnv ?? '10,100,1000,5000').split(',').map(Number);
  console.log(
    `# redis-stream-coordinator benchmarks (${new Date().toISOString()}, node ${process.version})\n`,
  );
  if (only('scale')) {
    const redis = await startStandalone();
    const rows: ScaleRow[] = [];
    try {
      for (const n of scaleSizes) {
        rows.push(await benchScale(redis.url, n, n >= 3000 ? 2 : 1));
        console.error(`scale bench: ${n} members done`);
      }
    } finally {
      await redis.stop();
    }
    console.log(scaleTable(rows));
  }
  if (only('fleet')) {
    const counts = (process.env.BENCH_STREAMS ?? '10,10000').split(',').map(Number);
    const instances = (process.env.BENCH_FLEET_INSTANCES ?? '1,3').split(',').map(Number);
    const redis = await startStandalone();
    const budgets = (process.env.BENCH_FLEET_BUDGETS ?? '50,1000').split(',').map(Number);
    const rows: FleetRow[] = [];
    const workerRows: FleetWorkerRow[] = [];
    try {
      for (const n of counts) {
        rows.push(...(await benchFleet(redis.url, n, instances)));
        if (budgets.length > 0 && budgets[0]! > 0)
          workerRows.push(...(await benchFleetWorker(redis.url, FLEET_NAMESPACE, n, budgets)));
      }
    } finally {
      await redis.stop();
    }
    console.log(`\n${fleetTable(rows)}`);
    if (workerRows.length > 0) console.log(`\n${fleetWorkerTable(workerRows)}`);
  }
  const sizes = (sizesEnv ?? '100,1000').split(',').map(Number);
  const trials = Number(process.env.BENCH_TRIALS ?? 3);
  const redis = await startStandalone();
  try {
    const rows = only('heartbeat') ? await benchHeartbeats(redis.url, sizes, trials) : [];
    if (rows.length > 0) console.log(heartbeatTables(rows));
    if (only('heartbeat-batch')) console.log(`\n${await benchHeartbeatBatch(redis.url)}`);
    if (only('producer')) console.log(`\n${await benchProducer(redis.url)}`);
    if (only('consumer')) console.log(`\n${await benchConsumer(redis.url)}`);
    if (only('handoff')) console.log(`\n${await benchHandoff(redis.url)}`);
    if (only('login')) console.log(`\n${await benchLoginStorm(redis.url)}`);
    if (only('batch-memory')) console.log(`\n${await benchBatchMemory(redis.url)}`);
    if (only('cost')) console.log(`\n${await benchCost(redis.url)}`);
  } finally {
    await redis.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
