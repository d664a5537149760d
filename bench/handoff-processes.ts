/**
 * The moving parts of the hand-off bench (bench/handoff.ts): consumer member processes
 * (bench/handoff-member.ts) whose stdout lines become records, and a producer publishing one
 * record to every shard at a steady period through the producer SDK.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { ioredisAdapter } from '../src/client/ioredis-adapter.js';
import { createProducer } from '../src/client/producer.js';
import { routeV1 } from '../src/routing/route-v1.js';
import type { Handled } from './handoff-gaps.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MEMBER = fileURLToPath(new URL('./handoff-member.ts', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A member started (`A`) or stopped (`R`) reading a shard, and when. */
export interface ShardEvent {
  kind: 'A' | 'R';
  member: string;
  shard: number;
  at: number;
}

/** One consumer process with one member. */
export interface MemberProcess {
  memberId: string;
  child: ChildProcess;
  /** Resolves once the consumer has started. */
  started: Promise<void>;
  /** Resolves when the process has exited. */
  exited: Promise<void>;
  /** When its `close()` resolved (after a SIGTERM), epoch ms. */
  closedAt(): number | null;
  /** The end of its stderr, for failure messages. */
  stderrTail(): string;
}

/** Member processes still running: killed if the bench itself exits or is interrupted. */
const running = new Set<ChildProcess>();
let reaperInstalled = false;

/** Starts a consumer process; its records and shard events are pushed to `records` and `shardEvents`. */
export function spawnMember(o: {
  memberBase: string;
  coordinatorUrl: string;
  redisUrl: string;
  prefix: string;
  records: Handled[];
  shardEvents: ShardEvent[];
}): MemberProcess {
  if (!reaperInstalled) {
    reaperInstalled = true;
    process.once('exit', () => {
      for (const c of running) c.kill('SIGKILL');
    });
  }
  const memberId = `${o.memberBase}-m0`;
  const child = spawn(process.execPath, ['--import', 'tsx', MEMBER], {
    cwd: ROOT,
    env: {
      ...process.env,
      COORDINATOR_URL: o.coordinatorUrl,
      REDIS_URL: o.redisUrl,
      STREAM_PREFIX: o.prefix,
      MEMBER_BASE: o.memberBase,
    },
    // stdin stays open: the member exits when it closes (the bench died without reaping it).
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  running.add(child);
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      running.delete(child);
      resolve();
    }),
  );
  const stderr: string[] = [];
  child.stderr?.on('data', (d) => {
    stderr.push(String(d));
    if (stderr.length > 50) stderr.shift();
  });
  let closedAt: number | null = null;
  const started = new Promise<void>((resolve, reject) => {
    void exited.then(() => reject(new Error(`member ${memberId} exited early: ${stderr.join('')}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const f = line.split(' ');
      if (f[0] === 'H') o.records.push({ member: memberId, shard: Number(f[1]), at: Number(f[3]) });
      else if (f[0] === 'A' || f[0] === 'R')
        o.shardEvents.push({ kind: f[0], member: memberId, shard: Number(f[1]), at: Number(f.at(-1)) });
      else if (f[0] === 'C') closedAt = Number(f[1]);
      else if (f[0] === 'S') resolve();
    });
  });
  started.catch(() => {});
  return {
    memberId,
    child,
    started,
    exited,
    closedAt: () => closedAt,
    stderrTail: () => stderr.join('').slice(-2000),
  };
}

/** A running producer. */
export interface SteadyProducer {
  /** When each batch was acknowledged by Redis, epoch ms. */
  readonly batchesAt: number[];
  /** Stops publishing; resolves with the records published and the failed ones. */
  stop(): Promise<{ published: number; failed: number }>;
}

/** Publishes one record to every shard each `periodMs` (slots missed while behind are skipped). */
export function startSteadyProducer(o: {
  coordinatorUrl: string;
  prefix: string;
  redis: Redis;
  shards: number;
  periodMs: number;
}): SteadyProducer {
  const producer = createProducer({
    coordinatorUrl: o.coordinatorUrl,
    streamPrefix: o.prefix,
    redis: ioredisAdapter(o.redis),
  });
  const keys = keysPerShard(o.shards);
  const batchesAt: number[] = [];
  let published = 0;
  let failed = 0;
  let producing = true;
  const loop = (async () => {
    const t0 = performance.now();
    let slot = 0;
    while (producing) {
      const due = t0 + slot * o.periodMs;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      slot = Math.max(slot + 1, Math.floor((performance.now() - t0) / o.periodMs));
      const results = await producer.publishBatch(
        keys.map((key) => ({ partitionKey: key, fields: { slot: String(slot) } })),
      );
      batchesAt.push(Date.now());
      for (const r of results) {
        if (r.ok) published++;
        else failed++;
      }
    }
  })();
  return {
    batchesAt,
    async stop() {
      producing = false;
      await loop;
      return { published, failed };
    },
  };
}

/** One partition key per shard, so every batch puts exactly one record on every shard. */
function keysPerShard(shards: number): string[] {
  const keys: Array<string | undefined> = new Array(shards);
  let found = 0;
  for (let i = 0; found < shards; i++) {
    const key = `k${i}`;
    const shard = routeV1(key, shards);
    if (keys[shard] === undefined) {
      keys[shard] = key;
      found++;
    }
  }
  return keys as string[];
}
