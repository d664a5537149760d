/**
 * The one place that spawns `redis-server`: throw-away servers for `npm start` without a
 * configured Redis, `npm run dev:worker`, and the test suite (standalone and Cluster nodes).
 * Loopback only, no persistence, one directory per server (removed on stop), and servers left
 * behind by a run that died are reaped by the next one.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { delimiter, join } from 'node:path';
import { freeLoopbackPort } from './net.js';

/** A running throw-away Redis. */
export interface RedisServer {
  /** `redis://127.0.0.1:<port>` (no credentials). */
  url: string;
  port: number;
  pid: number;
  /** Working directory of this server (`<baseDir>/<owner pid>-<port>`). */
  dir: string;
  /** Stops the server (SIGTERM, then SIGKILL after 5 s) and removes its directory. */
  stop(): Promise<void>;
  /** Synchronous last resort for `process.on('exit')`: SIGKILL, no waiting. */
  killNow(): void;
}

/** Options of `startRedisServer`. */
export interface RedisServerOptions {
  /** Path of the `redis-server` executable. @default 'redis-server' (looked up on PATH) */
  binary?: string;
  /** Parent of the per-server directory, e.g. `<repo>/.data/redis`. */
  baseDir: string;
  /** More `redis-server` arguments (e.g. Cluster mode); relative paths are under the directory. @default none */
  args?: readonly string[];
  /**
   * Own process group, so a terminal Ctrl-C does not stop Redis while the coordinator still
   * drains requests that need it (the owner stops it afterwards). @default false
   */
  detached?: boolean;
  /** A fixed loopback port (no retry on another when it is taken). @default a free port */
  port?: number;
  /** How long to wait for the server to answer PING. @default 10000 */
  startTimeoutMs?: number;
}

/** The absolute path of `name` on PATH, or null when it is not there (or not executable). */
export function findOnPath(name: string, pathVar: string | undefined = process.env.PATH): string | null {
  for (const dir of (pathVar ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return null;
}

const PID_FILE = 'redis.pid';

/**
 * Stops private servers left behind by runs that died without cleaning up (their owner
 * process is gone) and removes their directories. Returns how many directories it removed.
 */
export function reapOrphans(baseDir: string): number {
  let reaped = 0;
  let entries: string[];
  try {
    entries = readdirSync(baseDir);
  } catch {
    return 0;
  }
  for (const name of entries) {
    const owner = Number(name.split('-')[0]);
    if (!Number.isInteger(owner) || owner <= 0) continue; // not ours
    if (pidAlive(owner)) continue; // a live run owns it
    const dir = join(baseDir, name);
    const redisPid = readPid(join(dir, PID_FILE));
    if (redisPid !== null && pidAlive(redisPid) && isRedisServer(redisPid)) {
      try {
        process.kill(redisPid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    rmSync(dir, { recursive: true, force: true });
    reaped++;
  }
  return reaped;
}

function readPid(file: string): number | null {
  try {
    const n = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(n) && n > 0 ? n : null;
  } catch {
    return null;
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// Pids get reused: only signal a process that still is a redis-server.
function isRedisServer(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('redis-server');
  } catch {
    return false;
  }
}

/** Starts a redis-server on `opts.port`, or a free loopback port (retried if taken meanwhile). */
export async function startRedisServer(opts: RedisServerOptions): Promise<RedisServer> {
  reapOrphans(opts.baseDir);
  if (opts.port !== undefined) return startOn(opts.port, opts);
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freeLoopbackPort();
    try {
      return await startOn(port, opts);
    } catch (err) {
      lastError = err;
    }
  }
  throw lastError;
}

async function startOn(port: number, opts: RedisServerOptions): Promise<RedisServer> {
  // The owner's pid is part of the name, so ownership is known from the moment the dir exists.
  const dir = join(opts.baseDir, `${process.pid}-${port}`);
  mkdirSync(dir, { recursive: true });
  // Persistence off: the data lives only as long as this run, as promised in the start log.
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--protected-mode', 'yes'];
  args.push('--dir', dir, '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--logfile', '');
  args.push(...(opts.args ?? []));
  const child = spawn(opts.binary ?? 'redis-server', args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: opts.detached ?? false,
  });
  // Lets a later run reap this server if we die without cleaning up.
  if (child.pid) writeFileSync(join(dir, PID_FILE), String(child.pid));
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const spawnError = new Promise<Error>((resolve) => child.once('error', resolve));

  const deadline = Date.now() + (opts.startTimeoutMs ?? 10_000);
  for (;;) {
    const failed = await Promise.race([
      exited.then(() => new Error(`redis-server exited during start-up: ${lastLines(output)}`)),
      spawnError,
      answersPing(port, 200).then((ok) => (ok ? null : undefined)),
    ]);
    if (failed === null) break;
    if (failed instanceof Error || Date.now() > deadline) {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      throw failed instanceof Error ? failed : new Error(`redis-server did not start within the timeout`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return handle(child, port, dir, exited);
}

function handle(child: ChildProcess, port: number, dir: string, exited: Promise<void>): RedisServer {
  const alive = () => child.exitCode === null && child.signalCode === null;
  let stopping: Promise<void> | undefined;
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pid: child.pid ?? -1,
    dir,
    stop() {
      stopping ??= (async () => {
        if (alive()) {
          child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
          await exited;
          clearTimeout(timer);
        }
        rmSync(dir, { recursive: true, force: true });
      })();
      return stopping;
    },
    killNow() {
      if (alive()) child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * True when 127.0.0.1:port answers `PING` with `+PONG` within `timeoutMs`: Redis is serving, and
 * it is ours to the extent that another program on a just-taken port would not say PONG.
 */
function answersPing(port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
    socket.once('error', () => done(false));
  });
}

function lastLines(text: string): string {
  return text.trim().split('\n').slice(-3).join(' | ') || '(no output)';
}
