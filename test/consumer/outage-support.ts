/**
 * A private redis-server a test can take away from the consumer: killed (SIGKILL: connections
 * refused, in-flight commands lost) or frozen (SIGSTOP: sockets stay open, nothing answers),
 * then brought back on the same port. The coordinator keeps its own Redis, so it can still
 * answer (or be told to answer 503, as it would on a shared Redis).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '../support/redis-server.js';
import type { Stack } from '../support/stack.js';

const HOST = '127.0.0.1';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A redis-server the test controls. */
export interface OutageRedis {
  readonly url: string;
  /** SIGKILL: the server is gone (connections reset, new ones refused). */
  kill(): Promise<void>;
  /** SIGSTOP: the server stops answering; its sockets stay open. */
  freeze(): void;
  /** SIGCONT after `freeze()`. */
  thaw(): void;
  /** Starts a fresh (empty) server on the same port after `kill()`. */
  restart(): Promise<void>;
  /** Stops the server for good and removes its directory. */
  stop(): Promise<void>;
}

/** Starts a private redis-server on a free loopback port. */
export async function startOutageRedis(): Promise<OutageRedis> {
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), `rsc-outage-${port}-`));
  let child: ChildProcess | null = null;
  const launch = async () => {
    const args = ['--save', '', '--appendonly', 'no', '--bind', HOST, '--port', String(port), '--dir', dir];
    const proc = spawn('redis-server', args, { stdio: 'ignore' });
    child = proc;
    const probe = new Redis({
      host: HOST,
      port,
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    probe.on('error', () => {});
    try {
      for (let i = 0; ; i++) {
        if (proc.exitCode !== null) throw new Error(`redis-server on port ${port} exited`);
        try {
          if (probe.status !== 'ready') await probe.connect();
          if ((await probe.ping()) === 'PONG') return;
        } catch {
          if (i > 200) throw new Error(`redis-server on port ${port} did not start`);
          probe.disconnect();
          await sleep(25);
        }
      }
    } finally {
      probe.disconnect();
    }
  };
  const kill = async () => {
    const proc = child;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const gone = new Promise<void>((r) => proc.once('exit', () => r()));
    proc.kill('SIGKILL');
    await gone;
  };
  await launch();
  return {
    url: `redis://${HOST}:${port}`,
    kill,
    freeze: () => child?.kill('SIGSTOP'),
    thaw: () => child?.kill('SIGCONT'),
    restart: launch,
    stop: async () => {
      await kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Creates consumer group `group` at the tail of shards `0…shards-1` of `prefix`. */
export async function createGroups(
  url: string,
  prefix: string,
  shards: number,
  group = prefix,
): Promise<void> {
  const r = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    for (let s = 0; s < shards; s++) await r.xgroup('CREATE', `${prefix}:${s}`, group, '$', 'MKSTREAM');
  } finally {
    r.disconnect();
  }
}

/** Polls the member's rebalance deadline on the coordinator until stopped; keeps the first one set. */
export function watchDeadline(
  stack: Pick<Stack, 'call'>,
  p: string,
  memberId: string,
): { first: () => number | null; stop: () => void } {
  let first: number | null = null;
  let on = true;
  void (async () => {
    while (on) {
      const res = await stack.call('GET', `/coord/v1/monitoring/streams/${p}/groups/${p}/members`);
      const m = (res.body?.members ?? []).find((x: { memberId: string }) => x.memberId === memberId);
      if (first === null && m?.rebalanceDeadlineAt) first = Date.parse(m.rebalanceDeadlineAt);
      await sleep(20);
    }
  })();
  return { first: () => first, stop: () => (on = false) };
}
