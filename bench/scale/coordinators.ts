/**
 * Coordinator processes for the scale bench, started exactly as `npm start` runs one
 * (`node --import tsx node/start.ts`) against an explicit Redis, plus the probes the bench reads
 * from outside: process CPU time from /proc and Redis network bytes from INFO.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { freePort } from '../../test/support/redis-server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** One running coordinator process. */
export interface CoordinatorProcess {
  url: URL;
  pid: number;
  stop(): Promise<void>;
}

/** Coordinator processes still running: killed if the bench itself exits or is interrupted. */
const running = new Set<ChildProcess>();
let reaperInstalled = false;

function reapOnExit(): void {
  if (reaperInstalled) return;
  reaperInstalled = true;
  process.once('exit', () => {
    for (const c of running) c.kill('SIGKILL');
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      for (const c of running) c.kill('SIGKILL');
      process.exit(130);
    });
  }
}

/** Starts a coordinator on a free loopback port and waits until it answers. */
export async function startCoordinator(
  redisUrl: string,
  env: Record<string, string> = {},
): Promise<CoordinatorProcess> {
  const port = await freePort();
  // BENCH_NODE_OPTIONS (e.g. --cpu-prof) reaches the coordinator processes only.
  const extra = process.env.BENCH_NODE_OPTIONS?.split(' ').filter(Boolean) ?? [];
  const child: ChildProcess = spawn(process.execPath, [...extra, '--import', 'tsx', 'node/start.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      REDIS_URL: redisUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      COORDINATOR_MAX_SHARD_COUNT: '1024',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  reapOnExit();
  running.add(child);
  child.once('exit', () => running.delete(child));
  const url = new URL(`http://127.0.0.1:${port}`);
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`coordinator exited with ${child.exitCode}`);
    try {
      const res = await fetch(new URL('/actuator/info', url));
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('coordinator did not start within 30 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    pid: child.pid ?? 0,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
        child.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

/** User + system CPU time of a process so far, in milliseconds (Linux /proc). */
export async function cpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / CLOCK_TICKS;
}

/** Linux USER_HZ (100 on every distribution this runs on). */
const CLOCK_TICKS = 100;

/** Bytes Redis has received plus sent so far, minus the INFO reply that reads it. */
export async function redisNetBytes(info: Redis): Promise<number> {
  const text = await info.info('stats');
  const get = (k: string) => Number(new RegExp(`${k}:(\\d+)`).exec(text)?.[1] ?? 0);
  return get('total_net_input_bytes') + get('total_net_output_bytes') - text.length;
}
