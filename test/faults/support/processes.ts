/**
 * The processes of a fault scenario: coordinators as `npm start` runs them (short timings),
 * and the consumer and producer children of this folder, each printing JSON lines.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { type CoordinatorProcess, repoRoot, startCoordinator } from '../../node/child.js';

/** Timings short enough for faults to play out within seconds. */
export const FAST_TIMINGS = {
  COORDINATOR_HEARTBEAT_INTERVAL_MS: '300',
  COORDINATOR_MEMBER_LEASE_TTL_MS: '1500',
  COORDINATOR_REBALANCE_TIMEOUT_MS: '3000',
  COORDINATOR_SWEEP_INTERVAL_MS: '100',
} as const;

/** A coordinator child with its base URL. */
export interface Coordinator extends CoordinatorProcess {
  url: string;
  kill(): Promise<void>;
}

/** Starts `node/start.ts` on REDIS_URL `redisUrl` and waits for its `listening` line. */
export async function startFaultCoordinator(
  redisUrl: string,
  keyPrefix: string,
  extra: Record<string, string> = {},
): Promise<Coordinator> {
  const c = startCoordinator({
    REDIS_URL: redisUrl,
    PORT: '0',
    HOST: '127.0.0.1',
    COORDINATOR_KEY_PREFIX: keyPrefix,
    ...FAST_TIMINGS,
    ...extra,
  });
  const line = await c.waitForLine((l) => l.msg === 'listening', 30_000);
  return { ...c, url: String(line.url), kill: () => killChild(c.proc) };
}

/** SIGKILLs a child (and its SIGSTOP, if any) and waits for it to be gone. */
export async function killChild(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const gone = new Promise<void>((r) => proc.once('exit', () => r()));
  proc.kill('SIGKILL');
  await gone;
}

/** One JSON line of a consumer or producer child. */
// biome-ignore lint/suspicious/noExplicitAny: child lines are indexed freely by the checkers.
export type ChildLine = Record<string, any> & { t: string };

/** A running child of this folder. */
export interface JsonChild {
  name: string;
  proc: ChildProcess;
  lines: ChildLine[];
  stderr(): string;
  /** Resolves with the first line (seen or future) matching `pred`. */
  waitFor(pred: (l: ChildLine) => boolean, timeoutMs?: number): Promise<ChildLine>;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
  kill(): Promise<void>;
}

const SCRIPTS = {
  consumer: new URL('./consumer-child.ts', import.meta.url).pathname,
  producer: new URL('./producer-child.ts', import.meta.url).pathname,
};

/** Starts `consumer-child.ts` or `producer-child.ts` with `env` (plus PATH/HOME). */
export function startJsonChild(
  name: string,
  script: keyof typeof SCRIPTS,
  env: Record<string, string>,
): JsonChild {
  const proc = spawn(process.execPath, ['--import', 'tsx', SCRIPTS[script]], {
    cwd: repoRoot,
    env: { HOME: process.env.HOME ?? '/tmp', PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: ChildLine[] = [];
  const waiters: Array<{ pred: (l: ChildLine) => boolean; resolve: (l: ChildLine) => void }> = [];
  let buf = '';
  let err = '';
  proc.stdout?.on('data', (chunk: Buffer) => {
    buf += chunk.toString();
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const raw = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      let line: ChildLine;
      try {
        line = JSON.parse(raw);
      } catch {
        line = { t: 'raw', raw };
      }
      lines.push(line);
      for (const w of waiters.filter((x) => x.pred(line))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  });
  proc.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  return {
    name,
    proc,
    lines,
    stderr: () => err,
    waitFor(pred, timeoutMs = 20_000) {
      const seen = lines.find(pred);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(new Error(`${name}: no matching line in ${timeoutMs} ms\nstderr: ${err.slice(-2000)}`)),
          timeoutMs,
        );
        waiters.push({
          pred,
          resolve: (l) => {
            clearTimeout(timer);
            resolve(l);
          },
        });
      });
    },
    async stop(graceMs = 8000) {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
    kill: () => killChild(proc),
  };
}

/** Starts a consumer child: `concurrency` members `<base>-m<i>` on `coordinatorUrl`. */
export function startConsumer(
  base: string,
  o: { coordinatorUrl: string; redisUrl: string; prefix: string; concurrency?: number },
): JsonChild {
  return startJsonChild(base, 'consumer', {
    COORDINATOR_URL: o.coordinatorUrl,
    REDIS_URL: o.redisUrl,
    STREAM_PREFIX: o.prefix,
    MEMBER_BASE: base,
    CONCURRENCY: String(o.concurrency ?? 2),
  });
}

/** Starts a producer child publishing `count` records at `rate` a second. */
export function startProducer(o: {
  coordinatorUrl: string;
  redisUrl: string;
  prefix: string;
  count: number;
  rate: number;
}): JsonChild {
  return startJsonChild('producer', 'producer', {
    COORDINATOR_URL: o.coordinatorUrl,
    REDIS_URL: o.redisUrl,
    STREAM_PREFIX: o.prefix,
    COUNT: String(o.count),
    RATE: String(o.rate),
  });
}
