/**
 * What running at the edge costs (docs/performance.md#cost): Worker requests and billed Redis
 * commands, counted where they happen, then priced at list prices (the constants below, with the
 * date they were checked) beside Cloudflare Queues. Offline and reproducible: the built Worker runs
 * in Miniflare over the Upstash REST bridge (test/support/upstash-bridge.ts) in front of a private
 * redis-server, and the bridge counts commands as Upstash bills them (every command of a pipeline,
 * a script call once). Counts do not depend on machine load; only the run time does.
 *
 * - Steady member-hour: 16 members of one group (16 shards) settled through the Worker, then
 *   ROUNDS rounds of single heartbeats and of one batch of 16, scaled to an hour at the default
 *   3 s interval.
 * - Idle stream-day: IDLE_STREAMS streams whose only member joined and left, their one-off
 *   housekeeping done; then the Worker's cron (`scheduled`, one run a minute) and the Node
 *   sweep loop (`Coordinator.sweep` over ioredis as node/server.ts builds it, one a second), run
 *   on a clock that advances as they would, with and without those streams.
 * - Messages: MESSAGES records published through the producer SDK's Upstash path
 *   (`upstashAdapter` over @upstash/redis, its own bridge) and consumed by the consumer SDK
 *   (ioredis only: it has no Upstash path) at batches of 1, 10 and 100, both against the Worker.
 *   The consumer's commands are counted at its ioredis clients (every command sent, a script
 *   call once, as Upstash would bill them over TCP); INFO commandstats would also count the
 *   commands scripts run inside, which Upstash does not bill.
 *
 * - Producer routing: what keeping one producer's routing fresh costs an hour, with revalidation
 *   off and at the default 3 s (bench/cost-routing.ts).
 *
 * Asserts nothing; prints one table per part. BENCH_COST_MESSAGES (default 10000) sets the
 * messages per batch size.
 */
import { Redis as UpstashRedis } from '@upstash/redis';
import { Redis } from 'ioredis';
import { createConsumer } from '../src/client/consumer.js';
import { createProducer, type PublishRecord } from '../src/client/producer.js';
import type { FetchLike } from '../src/client/transport.js';
import { upstashAdapter } from '../src/client/upstash-adapter.js';
import { parseConfig } from '../src/config.js';
import { Coordinator } from '../src/coordinator.js';
import { ioredisPort } from '../src/redis/ioredis-port.js';
import { RedisStore } from '../src/store/redis-store.js';
import { heartbeatBody } from '../test/support/stack.js';
import { startUpstashBridge, type UpstashBridge } from '../test/support/upstash-bridge.js';
import { type RunningWorker, startWorker } from '../test/support/worker.js';
import { type RoutingCostRow, routingCost } from './cost-routing.js';

// ---- List prices (USD), checked 2026-12-02 on the vendors' pricing pages ----------------------
/** When the prices below were last checked. */
const PRICES_CHECKED = '2026-12-02';
/** Workers Paid (Standard): requests beyond the included ones, per million. */
const WORKERS_PAID_USD_PER_MILLION_REQUESTS = 0.3;
/** Workers Paid: requests included per month. */
const WORKERS_PAID_INCLUDED_REQUESTS_PER_MONTH = 10_000_000;
/** Workers Free: requests per day. */
const WORKERS_FREE_REQUESTS_PER_DAY = 100_000;
/** Upstash Redis pay-as-you-go: per 100,000 commands. */
const UPSTASH_PAYG_USD_PER_100K_COMMANDS = 0.2;
/** Cloudflare Queues: per million operations (one per 64 KB written, read or deleted). */
const QUEUES_USD_PER_MILLION_OPERATIONS = 0.4;
/** Cloudflare Queues: operations per delivered message of up to 64 KB (write, read, delete). */
const QUEUES_OPERATIONS_PER_MESSAGE = 3;

// ---- Targets (docs/performance.md#cost) ---------------------------------------------------------
const TARGET_COMMANDS_PER_MESSAGE_AT_100 = 0.05;
const TARGET_COMMANDS_PER_BATCHED_INTERVAL = 1;

const INTERVAL_MS = 3000;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const MONTH_DAYS = 30;
const MEMBERS = 16;
const ROUNDS = 10;
const IDLE_STREAMS = 50;
const CRON_RUNS = 60;
/** The Worker's cron trigger runs once a minute (wrangler.jsonc). */
const CRON_RUNS_PER_DAY = 1440;
const NODE_SWEEPS = 300;
const MESSAGES = Number(process.env.BENCH_COST_MESSAGES ?? 10_000);
const BATCHES = [1, 10, 100];
const MESSAGE_SHARDS = 4;
const PAYLOAD = 'x'.repeat(100);

const upstashUsd = (commands: number) => (commands / 100_000) * UPSTASH_PAYG_USD_PER_100K_COMMANDS;
const workersUsd = (requests: number) => (requests / 1_000_000) * WORKERS_PAID_USD_PER_MILLION_REQUESTS;
const usd = (v: number) => (v === 0 ? '$0' : v < 0.01 ? `$${v.toFixed(4)}` : `$${v.toFixed(2)}`);
const num = (v: number, digits = 0) =>
  v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function table(headers: string[], rows: Array<Array<string | number>>): string {
  const cells = rows.map((r) => r.map(String));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

/** Commands sent by a set of ioredis clients (duplicates included), by name. */
interface CommandCount {
  total: number;
  byName: Map<string, number>;
}

/** Counts every command `client` (and every client duplicated from it) sends from now on. */
function countCommands(client: Redis, count: CommandCount): Redis {
  const send = client.sendCommand.bind(client);
  client.sendCommand = ((command: { name: string }, ...rest: unknown[]) => {
    count.total++;
    count.byName.set(command.name, (count.byName.get(command.name) ?? 0) + 1);
    return (send as (...a: unknown[]) => unknown)(command, ...rest);
  }) as Redis['sendCommand'];
  const duplicate = client.duplicate.bind(client);
  client.duplicate = ((override?: object) => countCommands(duplicate(override), count)) as Redis['duplicate'];
  return client;
}

const newCount = (): CommandCount => ({ total: 0, byName: new Map() });

/** `count` by command name, less what `before` had counted. */
function byName(count: CommandCount, before: ReadonlyMap<string, number> = new Map()): string {
  return [...count.byName.entries()]
    .map(([n, c]): [string, number] => [n, c - (before.get(n) ?? 0)])
    .filter(([, c]) => c > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([n, c]) => `${n} ${c}`)
    .join(', ');
}

/** The SDKs' fetch, answered by the Worker in Miniflare; counts the requests it makes. */
function workerFetch(worker: RunningWorker, counter: { requests: number }): FetchLike {
  return async (url, init) => {
    counter.requests++;
    const u = new URL(url);
    const { signal: _signal, ...rest } = init;
    return worker.fetch(`${u.pathname}${u.search}`, rest);
  };
}

interface Answer {
  status: string;
  memberEpoch: number;
  metadataVersion: number;
  assignment?: {
    assignedShards: Array<{ shardIndex: number }>;
    pendingShards: Array<{ shardIndex: number }>;
  };
}

async function post(worker: RunningWorker, path: string, body: unknown): Promise<unknown> {
  const res = await worker.fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

// ---- Part 1: the steady member-hour -------------------------------------------------------------

interface SteadyResult {
  singleCommandsPerHeartbeat: number;
  singleRequestsPerHeartbeat: number;
  batchCommandsPerBatch: number;
  batchRequestsPerBatch: number;
  settledRounds: number;
}

async function steady(worker: RunningWorker, bridge: UpstashBridge): Promise<SteadyResult> {
  const p = `cost-steady-${Date.now()}`;
  await post(worker, `/coord/v1/streams/${p}`, { requestedBy: 'bench', initialShardCount: MEMBERS });
  const ids = Array.from({ length: MEMBERS }, (_, i) => `m${i}`);
  const state = new Map(ids.map((m) => [m, { epoch: 0, mv: 0, owned: [] as number[] }]));
  const body = (m: string) => heartbeatBody(m, p, state.get(m)!);
  const absorb = (m: string, a: Answer): boolean => {
    const owned = (a.assignment?.assignedShards ?? []).map((s) => s.shardIndex).sort((x, y) => x - y);
    const before = state.get(m)!;
    const same =
      a.status === 'OK' &&
      (a.assignment?.pendingShards.length ?? 0) === 0 &&
      before.epoch === a.memberEpoch &&
      before.mv === a.metadataVersion &&
      owned.join() === before.owned.join();
    state.set(m, { epoch: a.memberEpoch, mv: a.metadataVersion, owned });
    return same;
  };
  const single = (m: string) =>
    post(worker, `/coord/v1/streams/${p}/groups/${p}/members/${m}/heartbeat`, body(m)) as Promise<Answer>;
  // Settle: rounds of single heartbeats until one round changes nothing for anyone.
  let settledRounds = 0;
  for (let round = 0; round < 40; round++) {
    let unchanged = true;
    for (const m of ids) if (!absorb(m, await single(m))) unchanged = false;
    settledRounds = round + 1;
    if (unchanged) break;
  }

  bridge.reset();
  for (let round = 0; round < ROUNDS; round++) for (const m of ids) absorb(m, await single(m));
  const singleCounts = bridge.counts;

  const batch = async () => {
    const answer = (await post(worker, `/coord/v1/streams/${p}/groups/${p}/heartbeats`, {
      heartbeats: ids.map(body),
    })) as { results: Array<{ memberId: string; heartbeat: Answer }> };
    for (const r of answer.results) absorb(r.memberId, r.heartbeat);
  };
  // The first batch loads its script into Redis (EVALSHA refused, then EVAL): once per Redis, not per interval.
  await batch();
  bridge.reset();
  for (let round = 0; round < ROUNDS; round++) await batch();
  const batchCounts = bridge.counts;
  return {
    singleCommandsPerHeartbeat: singleCounts.commands / (ROUNDS * MEMBERS),
    singleRequestsPerHeartbeat: 1,
    batchCommandsPerBatch: batchCounts.commands / ROUNDS,
    batchRequestsPerBatch: 1,
    settledRounds,
  };
}

function steadyTable(r: SteadyResult): string {
  const perHour = HOUR_MS / INTERVAL_MS;
  const rows = [
    {
      mode: 'single heartbeats',
      requests: perHour * r.singleRequestsPerHeartbeat,
      commands: perHour * r.singleCommandsPerHeartbeat,
      perInterval: MEMBERS * r.singleCommandsPerHeartbeat,
    },
    {
      mode: `batches of ${MEMBERS}`,
      requests: (perHour * r.batchRequestsPerBatch) / MEMBERS,
      commands: (perHour * r.batchCommandsPerBatch) / MEMBERS,
      perInterval: r.batchCommandsPerBatch,
    },
  ];
  return [
    `### Steady member-hour (the Worker in Miniflare over the Upstash bridge; ${MEMBERS} settled members of one group, ${ROUNDS} rounds each way, scaled to ${perHour} heartbeats an hour at the ${INTERVAL_MS / 1000} s default)`,
    table(
      [
        'heartbeats',
        'Worker requests/member-hour',
        'Upstash commands/member-hour',
        'Workers Paid $/member-month',
        'Upstash $/member-month',
        'members on Workers Free',
        `commands per interval, one process of ${MEMBERS} (target ≤ ${TARGET_COMMANDS_PER_BATCHED_INTERVAL} batched)`,
      ],
      rows.map((x) => [
        x.mode,
        num(x.requests),
        num(x.commands),
        usd(workersUsd(x.requests * 24 * MONTH_DAYS)),
        usd(upstashUsd(x.commands * 24 * MONTH_DAYS)),
        num(Math.floor((WORKERS_FREE_REQUESTS_PER_DAY - CRON_RUNS_PER_DAY) / (x.requests * 24))),
        `${num(x.perInterval, 2)}${x.mode.startsWith('batches') ? (x.perInterval <= TARGET_COMMANDS_PER_BATCHED_INTERVAL ? ' (met)' : ' (not met)') : ''}`,
      ]),
    ),
    `Settled after ${r.settledRounds} rounds. Workers Paid $ is the price of those requests beyond the ${num(WORKERS_PAID_INCLUDED_REQUESTS_PER_MONTH)} included a month (30-day month); Workers Free serves ${num(WORKERS_FREE_REQUESTS_PER_DAY)} requests a day, of which the cron takes 1,440.`,
  ].join('\n');
}

// ---- Part 2: the idle stream-day ----------------------------------------------------------------

interface IdleResult {
  cronPerRunEmpty: number;
  cronPerRunIdle: number;
  nodePerSweepEmpty: number;
  nodePerSweepIdle: number;
  nodeByName: string;
  /** Cron runs and commands until the departed members' housekeeping was done. */
  settleRuns: number;
  settleCommands: number;
}

/** Cron runs on the Worker from `t0`, a minute apart: commands per run. */
async function cronRuns(worker: RunningWorker, bridge: UpstashBridge, t0: number): Promise<number> {
  bridge.reset();
  for (let i = 0; i < CRON_RUNS; i++) await worker.scheduled(t0 + i * 60_000);
  return bridge.counts.commands / CRON_RUNS;
}

/** Node's sweep (node/server.ts's store and Coordinator over ioredis) from `t0`, a second apart. */
async function nodeSweeps(redisUrl: string, prefix: string, t0: number): Promise<[number, CommandCount]> {
  const count = newCount();
  const client = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  await client.ping();
  countCommands(client, count);
  const config = parseConfig({
    REDIS_URL: redisUrl,
    COORDINATOR_KEY_PREFIX: prefix,
    COORDINATOR_OPEN_MODE: 'true',
  });
  const store = new RedisStore(ioredisPort(client), { namespace: prefix });
  const coordinator = new Coordinator({ store, config, log: () => undefined });
  try {
    // The first sweep on a namespace seeds the due index from the stream list: not steady state.
    await coordinator.sweep(t0 - 1000);
    count.total = 0;
    count.byName.clear();
    for (let i = 0; i < NODE_SWEEPS; i++) await coordinator.sweep(t0 + i * 1000);
    return [count.total / NODE_SWEEPS, count];
  } finally {
    await coordinator.close();
    client.disconnect();
  }
}

async function idle(
  redisUrl: string,
  bridge: UpstashBridge,
  prefixes: [string, string],
): Promise<IdleResult> {
  const [emptyPrefix, idlePrefix] = prefixes;
  const open = {
    UPSTASH_REDIS_REST_URL: bridge.url,
    UPSTASH_REDIS_REST_TOKEN: bridge.token,
    COORDINATOR_OPEN_MODE: 'true',
  };
  const empty = await startWorker({ ...open, COORDINATOR_KEY_PREFIX: emptyPrefix });
  const busy = await startWorker({ ...open, COORDINATOR_KEY_PREFIX: idlePrefix });
  try {
    const now = Date.now();
    for (let s = 0; s < IDLE_STREAMS; s++) {
      const p = `idle-${s}`;
      await post(busy, `/coord/v1/streams/${p}`, { requestedBy: 'bench', initialShardCount: 4 });
      const hb = `/coord/v1/streams/${p}/groups/${p}/members/m0/heartbeat`;
      const join = (await post(busy, hb, heartbeatBody('m0', p, { epoch: 0, mv: 0 }))) as Answer;
      await post(busy, hb, heartbeatBody('m0', p, { epoch: -1, mv: join.metadataVersion }));
    }
    // Their one-off housekeeping (the departed member's record is kept for monitoring, then
    // pruned), a day later: cron runs until one costs what a run over an empty namespace costs.
    // Both namespaces' first runs also seed the due index from the stream list.
    const t0 = now + DAY_MS;
    const settle = async (w: RunningWorker): Promise<[number, number]> => {
      bridge.reset();
      let runs = 0;
      let last = Number.POSITIVE_INFINITY;
      while (runs < 200 && last > 1) {
        const before = bridge.counts.commands;
        await w.scheduled(t0 + runs++ * 60_000);
        last = bridge.counts.commands - before;
      }
      return [runs, bridge.counts.commands];
    };
    await settle(empty);
    const [settleRuns, settleCommands] = await settle(busy);
    // Past any settling above (at most 200 runs).
    const later = t0 + 4 * HOUR_MS;
    const cronPerRunEmpty = await cronRuns(empty, bridge, later);
    const cronPerRunIdle = await cronRuns(busy, bridge, later);
    const [nodePerSweepEmpty] = await nodeSweeps(redisUrl, emptyPrefix, later + 2 * HOUR_MS);
    const [nodePerSweepIdle, nodeCount] = await nodeSweeps(redisUrl, idlePrefix, later + 2 * HOUR_MS);
    return {
      cronPerRunEmpty,
      cronPerRunIdle,
      nodePerSweepEmpty,
      nodePerSweepIdle,
      nodeByName: byName(nodeCount),
      settleRuns,
      settleCommands,
    };
  } finally {
    await empty.close();
    await busy.close();
  }
}

function idleTable(r: IdleResult): string {
  const cronRunsPerDay = CRON_RUNS_PER_DAY;
  const sweepsPerDay = DAY_MS / 1000;
  const perStreamDay = (idle: number, empty: number, runs: number) => ((idle - empty) * runs) / IDLE_STREAMS;
  const rows = [
    [
      'Worker cron (1 run/min)',
      num(r.cronPerRunEmpty, 2),
      num(r.cronPerRunIdle, 2),
      num(r.cronPerRunEmpty * cronRunsPerDay),
      num(perStreamDay(r.cronPerRunIdle, r.cronPerRunEmpty, cronRunsPerDay), 2),
      usd(upstashUsd(r.cronPerRunEmpty * cronRunsPerDay * MONTH_DAYS)),
      `${num(cronRunsPerDay)} invocations`,
    ],
    [
      'Node sweep (1/s, per instance)',
      num(r.nodePerSweepEmpty, 2),
      num(r.nodePerSweepIdle, 2),
      num(r.nodePerSweepEmpty * sweepsPerDay),
      num(perStreamDay(r.nodePerSweepIdle, r.nodePerSweepEmpty, sweepsPerDay), 2),
      usd(upstashUsd(r.nodePerSweepEmpty * sweepsPerDay * MONTH_DAYS)),
      '—',
    ],
  ];
  return [
    `### Idle streams (${IDLE_STREAMS} streams whose only member left, one-off housekeeping done; ${CRON_RUNS} cron runs a minute apart, ${NODE_SWEEPS} Node sweeps a second apart)`,
    table(
      [
        'housekeeping',
        'commands/run, empty namespace',
        `commands/run, ${IDLE_STREAMS} idle streams`,
        'commands/day (fixed)',
        'commands per idle stream-day',
        'Upstash $/month (fixed)',
        'Worker requests/day',
      ],
      rows,
    ),
    `Node sweep commands: ${r.nodeByName || 'none'}. One-off, after the last member of each stream left: ${num(r.settleCommands)} commands over ${r.settleRuns} cron runs (${num(r.settleCommands / IDLE_STREAMS, 1)} per stream, the first run's seeding of the due index included) within the sweep budget of 50 subrequests a run.`,
  ].join('\n');
}

// ---- Part 3: a million messages -----------------------------------------------------------------

interface MessageRow {
  batch: number;
  produceCommands: number;
  produceRequests: number;
  produceWorkerRequests: number;
  consumeCommands: number;
  consumeByName: string;
  consumeWorkerRequests: number;
  consumeMs: number;
}

async function messages(
  worker: RunningWorker,
  redisUrl: string,
  producerBridge: UpstashBridge,
  batch: number,
): Promise<MessageRow> {
  const p = `cost-msg-${batch}-${Date.now()}`;
  await post(worker, `/coord/v1/streams/${p}`, { requestedBy: 'bench', initialShardCount: MESSAGE_SHARDS });
  // The consumer joins first, so its group exists before anything is published.
  const consumerRequests = { requests: 0 };
  const count = newCount();
  const redis = countCommands(new Redis(redisUrl, { maxRetriesPerRequest: 1 }), count);
  let handled = 0;
  // Held until everything is published, so reads meet a backlog and return full batches.
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const consumer = createConsumer({
    coordinatorUrl: 'http://worker.test',
    streamPrefix: p,
    redis,
    pollBatchSize: batch,
    fetch: workerFetch(worker, consumerRequests),
    handler: async () => {
      await gate;
      handled++;
      return 'ack' as const;
    },
  });
  const admin = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    consumer.start();
    for (let i = 0; i < 200 && consumer.status()[0]?.reading.length !== MESSAGE_SHARDS; i++) await sleep(100);

    const producerRequests = { requests: 0 };
    const client = new UpstashRedis({
      url: producerBridge.url,
      token: producerBridge.token,
      automaticDeserialization: false,
      enableTelemetry: false,
    });
    const producer = createProducer({
      coordinatorUrl: 'http://worker.test',
      streamPrefix: p,
      redis: upstashAdapter(client),
      fetch: workerFetch(worker, producerRequests),
    });
    await producer.routing();
    producerBridge.reset();
    producerRequests.requests = 0;
    const commandsBefore = count.total;
    const namesBefore = new Map(count.byName);
    const consumerRequestsBefore = consumerRequests.requests;
    const started = performance.now();
    const records: PublishRecord[] = Array.from({ length: MESSAGES }, (_, i) => ({
      partitionKey: `key-${i % 997}`,
      fields: { payload: PAYLOAD, seq: String(i) },
    }));
    if (batch === 1) {
      // 16 publishes in flight: the commands are the same as one after another, only faster.
      let next = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < records.length) await producer.publish(records[next++]!);
        }),
      );
    } else {
      for (let i = 0; i < records.length; i += batch) {
        const results = await producer.publishBatch(records.slice(i, i + batch));
        if (results.some((r) => !r.ok)) throw new Error('a publish failed');
      }
    }
    const produced = producerBridge.counts;
    const produceWorkerRequests = producerRequests.requests;
    open();
    // Consumed once every record was handled and acked (nothing pending in the group).
    const pending = async () => {
      let n = 0;
      for (let s = 0; s < MESSAGE_SHARDS; s++) {
        const summary = (await admin.xpending(`${p}:${s}`, p)) as [number, ...unknown[]];
        n += Number(summary[0]);
      }
      return n;
    };
    for (let i = 0; i < 1200 && (handled < MESSAGES || (await pending()) > 0); i++) await sleep(50);
    if (handled < MESSAGES) throw new Error(`consumed ${handled} of ${MESSAGES}`);
    const consumeMs = performance.now() - started;
    const consumeCommands = count.total - commandsBefore;
    const consumeByName = byName(count, namesBefore);
    return {
      batch,
      produceCommands: produced.commands,
      produceRequests: produced.requests,
      produceWorkerRequests,
      consumeCommands,
      consumeByName,
      consumeWorkerRequests: consumerRequests.requests - consumerRequestsBefore,
      consumeMs,
    };
  } finally {
    open();
    await consumer.close();
    admin.disconnect();
    redis.disconnect();
  }
}

function messageTable(rows: MessageRow[]): string {
  const perMillion = (v: number) => (v / MESSAGES) * 1_000_000;
  const queuesUsd = QUEUES_OPERATIONS_PER_MESSAGE * QUEUES_USD_PER_MILLION_OPERATIONS;
  return [
    `### A million messages (${num(MESSAGES)} measured per batch size over ${MESSAGE_SHARDS} shards, 100-byte payload; producer over the Upstash bridge, consumer SDK on ioredis, both against the Worker; scaled to 1,000,000)`,
    table(
      [
        'batch',
        'produce cmds/msg',
        'consume cmds/msg',
        `total cmds/msg (target ≤ ${TARGET_COMMANDS_PER_MESSAGE_AT_100} at 100)`,
        'Upstash commands per million',
        'Upstash $ per million',
        'Worker requests in the run',
        `Cloudflare Queues $ per million (${QUEUES_OPERATIONS_PER_MESSAGE} ops/msg)`,
      ],
      rows.map((r) => {
        const total = (r.produceCommands + r.consumeCommands) / MESSAGES;
        const target =
          r.batch === 100 ? (total <= TARGET_COMMANDS_PER_MESSAGE_AT_100 ? ' (met)' : ' (not met)') : '';
        return [
          r.batch,
          num(r.produceCommands / MESSAGES, 3),
          num(r.consumeCommands / MESSAGES, 3),
          `${num(total, 3)}${target}`,
          num(perMillion(r.produceCommands + r.consumeCommands)),
          usd(upstashUsd(perMillion(r.produceCommands + r.consumeCommands))),
          `${r.produceWorkerRequests} producer, ${r.consumeWorkerRequests} consumer`,
          usd(queuesUsd),
        ];
      }),
    ),
    ...rows.map(
      (r) =>
        `batch ${r.batch}: producer ${num(r.produceCommands)} commands in ${num(r.produceRequests)} REST requests; consumer ${num(r.consumeCommands)} commands (${r.consumeByName}) over ${(r.consumeMs / 1000).toFixed(1)} s, its heartbeats included (time-based, not per message).`,
    ),
  ].join('\n');
}

// ---- Part 4: producer routing ------------------------------------------------------------------

function routingTable(rows: readonly RoutingCostRow[]): string {
  const perDay = (r: RoutingCostRow) => r.requests * 24;
  return [
    '### Producer routing per producer-hour (the Worker in Miniflare over the Upstash bridge; a producer asking for its routing once a simulated second for 10 minutes, scaled to an hour)',
    table(
      [
        'routing freshness',
        'Worker requests/producer-hour',
        'answered 304',
        'Upstash commands/producer-hour',
        'response body bytes/producer-hour',
        'Workers Paid $/producer-month',
        'Upstash $/producer-month',
        'producers on Workers Free',
      ],
      rows.map((r) => [
        r.mode,
        num(r.requests),
        num(r.notModified),
        `${num(r.commands)} (${r.commandNames})`,
        num(r.bodyBytes),
        usd(workersUsd(r.requests * 24 * MONTH_DAYS)),
        usd(upstashUsd(r.commands * 24 * MONTH_DAYS)),
        num(Math.floor((WORKERS_FREE_REQUESTS_PER_DAY - CRON_RUNS_PER_DAY) / perDay(r))),
      ]),
    ),
    `A 304 costs the Worker request and the routing read (one script call) but no body; a full answer is ${rows[0]?.fullAnswerBytes ?? 0} bytes for 4 shards. An idle producer asks nothing: revalidation runs only while it publishes. Before revalidation the lease refresh asked unconditionally: the first row's requests, each a full answer.`,
  ].join('\n');
}

// ---- Entry --------------------------------------------------------------------------------------

/** Runs the four parts against the Redis at `redisUrl`; returns the printed tables. */
export async function benchCost(redisUrl: string): Promise<string> {
  const stamp = Date.now().toString(36);
  const coordinatorBridge = await startUpstashBridge({ redisUrl });
  const producerBridge = await startUpstashBridge({ redisUrl });
  const worker = await startWorker({
    UPSTASH_REDIS_REST_URL: coordinatorBridge.url,
    UPSTASH_REDIS_REST_TOKEN: coordinatorBridge.token,
    COORDINATOR_OPEN_MODE: 'true',
    COORDINATOR_KEY_PREFIX: `cost-${stamp}`,
  });
  try {
    const parts: string[] = [];
    parts.push(steadyTable(await steady(worker, coordinatorBridge)));
    console.error('cost bench: steady member-hour done');
    parts.push(
      idleTable(await idle(redisUrl, coordinatorBridge, [`cost-empty-${stamp}`, `cost-idle-${stamp}`])),
    );
    console.error('cost bench: idle streams done');
    const rows: MessageRow[] = [];
    for (const batch of BATCHES) {
      rows.push(await messages(worker, redisUrl, producerBridge, batch));
      console.error(`cost bench: messages at batch ${batch} done`);
    }
    parts.push(messageTable(rows));
    const routingStream = `cost-routing-${stamp}`;
    await post(worker, `/coord/v1/streams/${routingStream}`, { requestedBy: 'bench', initialShardCount: 4 });
    const routingRedis = upstashAdapter(
      new UpstashRedis({
        url: producerBridge.url,
        token: producerBridge.token,
        automaticDeserialization: false,
        enableTelemetry: false,
      }),
    );
    parts.push(routingTable(await routingCost(worker, coordinatorBridge, routingRedis, routingStream)));
    console.error('cost bench: producer routing done');
    parts.push(
      `List prices checked ${PRICES_CHECKED}: Workers Paid $${WORKERS_PAID_USD_PER_MILLION_REQUESTS} per million requests beyond ${num(WORKERS_PAID_INCLUDED_REQUESTS_PER_MONTH)} a month (subrequests not billed), Workers Free ${num(WORKERS_FREE_REQUESTS_PER_DAY)} requests a day; Upstash pay-as-you-go $${UPSTASH_PAYG_USD_PER_100K_COMMANDS} per 100,000 commands; Cloudflare Queues $${QUEUES_USD_PER_MILLION_OPERATIONS} per million operations, ${QUEUES_OPERATIONS_PER_MESSAGE} per message. Free allowances are left out.`,
    );
    return parts.join('\n\n');
  } finally {
    await worker.close();
    await producerBridge.close();
    await coordinatorBridge.close();
  }
}
