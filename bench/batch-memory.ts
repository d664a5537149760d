/**
 * Batched heartbeats against a small heap: one coordinator process started as `npm start` with
 * `--max-old-space-size=192` (the heap the Kubernetes example's 256 Mi limit implies), hit by
 * BENCH_BM_CONCURRENCY (default 120) clients each sending maximal batches back to back for
 * BENCH_BM_SECONDS (default 10), while one legitimate member heartbeats alone every 50 ms. Two
 * loads, each on a fresh process:
 *
 * - `old maximal`: the largest batch the earlier bounds admitted — 1 MiB (16 ×
 *   COORDINATOR_MAX_BODY_BYTES), 64 unknown members listing ~52,000 shards in all;
 * - `new maximal`: the costliest batch the present bounds admit — just under
 *   COORDINATOR_MAX_BATCH_BODY_BYTES, 64 unknown members listing 3 × COORDINATOR_MAX_SHARD_COUNT
 *   shards in all, padded with as many empty objects and then zeros as the nesting bound lets
 *   through (what costs the parser the most memory per byte).
 *
 * The clients run in a worker thread, so the legitimate heartbeat is timed on an event loop of
 * its own (the machine's CPUs are still shared). Prints whether the process survived, its peak
 * RSS (VmHWM), how the batches were answered, and the legitimate heartbeat's latency before and
 * during the load. Asserts nothing.
 */
import { readFile } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { startCoordinator } from './scale/coordinators.js';

const CONCURRENCY = Number(process.env.BENCH_BM_CONCURRENCY ?? 120);
const SECONDS = Number(process.env.BENCH_BM_SECONDS ?? 10);
const HEAP_MB = Number(process.env.BENCH_BM_HEAP_MB ?? 192);
/** As bench/scale/coordinators.ts starts every coordinator. */
const MAX_SHARD_COUNT = 1024;
const BATCH_BODY_BYTES = 256 * 1024;
const OLD_BODY_BYTES = 16 * 64 * 1024;
const ITEMS = 64;
const SHARDS = 8;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], q: number) =>
  xs.length === 0
    ? Number.NaN
    : [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;

/** The heartbeat body of a member that does not exist (answered UNKNOWN_MEMBER_ID). */
function unknownMember(
  prefix: string,
  i: number,
  lists: { owned: number; revoking?: number; progress?: number },
) {
  return {
    protocolVersion: 1,
    requestId: `storm-${i}`,
    memberId: `ghost-${i}`,
    memberEpoch: 7,
    metadataVersion: 1,
    runtimeConsumerCapacity: { runtimeMaxConcurrency: 16, availableConcurrency: 16 },
    ownedShards: Array.from({ length: lists.owned }, (_, k) => ({ shardIndex: k })),
    revokingShards: Array.from({ length: lists.revoking ?? 0 }, (_, k) => ({
      shard: { shardIndex: k },
      state: 'DRAINING',
      inFlight: 0,
      ackedAt: null,
    })),
    shardProgress: Array.from({ length: lists.progress ?? 0 }, (_, k) => ({
      shard: { shardIndex: k },
      streamKey: `${prefix}:${k}`,
      lastDeliveredId: '1700000000000-0',
      lastAckedId: '1700000000000-0',
      pendingCount: 0,
      updatedAt: null,
    })),
  };
}

/** What the earlier bounds admitted: 1 MiB of shard ids over 64 items. */
function oldMaximal(prefix: string): string {
  const perItem = Math.floor((OLD_BODY_BYTES - 4096) / ITEMS / '{"shardIndex":16383},'.length);
  const items = Array.from({ length: ITEMS }, (_, i) => unknownMember(prefix, i, { owned: 0 }));
  for (const it of items)
    it.ownedShards = Array.from({ length: perItem }, (_, k) => ({ shardIndex: 16383 - k }));
  return JSON.stringify({ heartbeats: items });
}

/** The costliest body the present bounds admit (see the file comment). */
function newMaximal(prefix: string): string {
  // Shard ids are the cheapest entries, so the most of the body is left for padding.
  const items = Array.from({ length: ITEMS }, (_, i) =>
    unknownMember(prefix, i, { owned: (3 * MAX_SHARD_COUNT) / ITEMS }),
  );
  const valid = JSON.stringify({ heartbeats: items });
  // Containers the bound allows (2 + 9 × 64 + 6 × max shard count) less those the items and the
  // padding's own array use.
  const used = (valid.match(/[{[]/g) ?? []).length + 1;
  const objects = 2 + 9 * ITEMS + 6 * MAX_SHARD_COUNT - used;
  const head = `${valid.slice(0, -1)},"x":[${Array(objects).fill('{}').join(',')}`;
  const zeros = Math.max(0, Math.floor((BATCH_BODY_BYTES - head.length - 2) / 2));
  return `${head}${',0'.repeat(zeros)}]}`;
}

/** The clients: `concurrency` loops posting `body` to `url` until `until`, answering their statuses. */
const CLIENTS = `
const { parentPort, workerData: w } = require('node:worker_threads');
const answers = {};
const count = (k) => { answers[k] = (answers[k] ?? 0) + 1; };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function client() {
  while (Date.now() < w.until) {
    try {
      const res = await fetch(w.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: w.body,
        signal: AbortSignal.timeout(30000),
      });
      await res.arrayBuffer();
      count(String(res.status));
    } catch {
      count('error');
      await sleep(50);
    }
  }
}
Promise.all(Array.from({ length: w.concurrency }, client)).then(() => parentPort.postMessage(answers));
`;

function clients(url: string, body: string, until: number): Promise<Record<string, number>> {
  const worker = new Worker(CLIENTS, {
    eval: true,
    workerData: { url, body, until, concurrency: CONCURRENCY },
  });
  return new Promise((resolve, reject) => {
    worker.once('message', (answers: Record<string, number>) => {
      void worker.terminate();
      resolve(answers);
    });
    worker.once('error', reject);
  });
}

async function peakRssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN) / 1024;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A member that follows its answers: epoch, metadata version and the shards it was granted. */
interface Legit {
  epoch: number;
  mv: number;
  owned: number[];
}

/** One legitimate heartbeat of `member`; its latency in ms, or null when it failed. */
async function heartbeat(api: string, p: string, member: Legit): Promise<number | null> {
  const t0 = performance.now();
  try {
    const res = await fetch(`${api}/streams/${p}/groups/${p}/members/legit/heartbeat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        ...unknownMember(p, 0, { owned: 0 }),
        requestId: `legit-${Date.now()}`,
        memberId: 'legit',
        memberEpoch: member.epoch,
        metadataVersion: member.mv,
        ownedShards: member.owned.map((shardIndex) => ({ shardIndex })),
      }),
      signal: AbortSignal.timeout(30_000),
    });
    const body = (await res.json()) as {
      memberEpoch?: number;
      metadataVersion?: number;
      assignment?: { assignedShards: Array<{ shardIndex: number }> } | null;
    };
    if (!res.ok) return null;
    member.epoch = body.memberEpoch ?? member.epoch;
    member.mv = body.metadataVersion ?? member.mv;
    if (body.assignment) member.owned = body.assignment.assignedShards.map((s) => s.shardIndex);
    return performance.now() - t0;
  } catch {
    return null;
  }
}

interface Row {
  load: string;
  bodyKb: number;
  survived: boolean;
  peakRssMb: number;
  answers: string;
  quietP50: number;
  stormP50: number;
  stormP99: number;
  stormMax: number;
  failed: number;
}

async function run(redisUrl: string, name: string, build: (p: string) => string): Promise<Row> {
  const saved = process.env.BENCH_NODE_OPTIONS;
  process.env.BENCH_NODE_OPTIONS = `${saved ?? ''} --max-old-space-size=${HEAP_MB}`;
  const coordinator = await startCoordinator(redisUrl, { COORDINATOR_KEY_PREFIX: `bm-${Date.now()}` });
  process.env.BENCH_NODE_OPTIONS = saved;
  if (saved === undefined) delete process.env.BENCH_NODE_OPTIONS;
  const api = new URL('/coord/v1', coordinator.url).href;
  const p = `bm-${Date.now()}`;
  try {
    const created = await fetch(`${api}/streams/${p}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ initialShardCount: SHARDS, requestedBy: 'bench' }),
    });
    if (created.status !== 201) throw new Error(`create stream: ${created.status}`);
    const member: Legit = { epoch: 0, mv: 0, owned: [] };
    const quiet: number[] = [];
    for (let i = 0; i < 40; i++) {
      const ms = await heartbeat(api, p, member);
      if (ms !== null) quiet.push(ms);
      await sleep(50);
    }
    const body = build(p);
    const until = Date.now() + SECONDS * 1000;
    const load = clients(`${api}/streams/${p}/groups/${p}/heartbeats`, body, until);
    const storm: number[] = [];
    let failed = 0;
    while (Date.now() < until && alive(coordinator.pid)) {
      const ms = await heartbeat(api, p, member);
      if (ms === null) failed++;
      else storm.push(ms);
      await sleep(50);
    }
    const answers = await load;
    await sleep(500);
    return {
      load: name,
      bodyKb: body.length / 1024,
      survived: alive(coordinator.pid),
      peakRssMb: await peakRssMb(coordinator.pid),
      answers: Object.entries(answers)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([s, n]) => `${s}×${n}`)
        .join(' '),
      quietP50: pct(quiet, 0.5),
      stormP50: pct(storm, 0.5),
      stormP99: pct(storm, 0.99),
      stormMax: storm.length === 0 ? Number.NaN : Math.max(...storm),
      failed,
    };
  } finally {
    await coordinator.stop();
  }
}

/** The table of `npm run bench` (BENCH_ONLY=batch-memory). */
export async function benchBatchMemory(redisUrl: string): Promise<string> {
  const rows = [
    await run(redisUrl, 'old maximal', oldMaximal),
    await run(redisUrl, 'new maximal', newMaximal),
  ];
  return [
    `### Batched heartbeats against a ${HEAP_MB} MB heap (${CONCURRENCY} clients sending maximal batches back to back for ${SECONDS} s, one legitimate heartbeat every 50 ms)`,
    '| load | body KiB | coordinator survived | peak RSS MB | batch answers | legit heartbeat p50 quiet ms | p50 under load ms | p99 under load ms | max under load ms | legit failed |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${r.load} | ${r.bodyKb.toFixed(0)} | ${r.survived ? 'yes' : '**no**'} | ${r.peakRssMb.toFixed(0)} | ${r.answers} | ${r.quietP50.toFixed(1)} | ${r.stormP50.toFixed(1)} | ${r.stormP99.toFixed(1)} | ${r.stormMax.toFixed(1)} | ${r.failed} |`,
    ),
  ].join('\n');
}
