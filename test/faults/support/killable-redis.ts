/**
 * A redis-server a test may crash: AOF on with fsync on every write (an acknowledged write
 * survives SIGKILL), its own temporary directory and a fixed loopback port, so it can be
 * SIGKILLed and restarted from its AOF on the same address, or SIGSTOPped and SIGCONTed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../support/redis-server.js';

/** A crashable Redis. */
export interface KillableRedis {
  port: number;
  url: string;
  /** SIGKILL; resolves once the process is gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port and directory; resolves when it answers PONG (AOF loaded). */
  restart(): Promise<void>;
  /** SIGSTOP: the socket stays open, nothing answers. */
  pause(): void;
  /** SIGCONT. */
  resume(): void;
  /** Kills it and removes its directory. */
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** True when the server on `port` answers PING with PONG (not LOADING) within 500 ms. */
export function pingRedis(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    let buf = '';
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), 500);
    s.on('connect', () => s.write('PING\r\n'));
    s.on('data', (d) => {
      buf += d.toString();
      if (buf.includes('\r\n')) {
        clearTimeout(timer);
        done(buf.startsWith('+PONG'));
      }
    });
    s.on('error', () => {
      clearTimeout(timer);
      done(false);
    });
  });
}

/** Starts an AOF redis-server on a free loopback port. */
export async function startKillableRedis(): Promise<KillableRedis> {
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), `rsc-fault-redis-${port}-`));
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    'yes',
    '--appendfsync',
    'always',
  ];
  let child: ChildProcess | null = null;
  let stderr = '';

  const spawnIt = async () => {
    const c = spawn('redis-server', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    c.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child = c;
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      if (c.exitCode !== null) throw new Error(`redis-server on ${port} exited: ${stderr}`);
      if (await pingRedis(port)) return;
      await sleep(25);
    }
    throw new Error(`redis-server on ${port} did not answer PONG within 15 s`);
  };
  const kill = async () => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const gone = new Promise<void>((r) => c.once('exit', () => r()));
    c.kill('SIGKILL');
    await gone;
  };

  await spawnIt();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    kill,
    restart: spawnIt,
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
    async close() {
      child?.kill('SIGCONT');
      await kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
