/**
 * Starts private redis-server processes for tests: one standalone server and one 6-node Cluster,
 * each on free loopback ports with its own temporary directory.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** A running standalone Redis. */
export interface StandaloneRedis {
  port: number;
  url: string;
  stop(): Promise<void>;
}

/** A running 6-node Redis Cluster (3 masters, 3 replicas). */
export interface ClusterRedis {
  nodes: Array<{ host: string; port: number }>;
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';

/** Asks the kernel for a free loopback port by binding port 0. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, HOST, () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Fails with a clear message when the redis binaries are not installed. */
export async function assertRedisInstalled(): Promise<void> {
  for (const bin of ['redis-server', 'redis-cli']) {
    try {
      await execFileAsync(bin, ['--version']);
    } catch {
      throw new Error(
        `${bin} is not installed or not on PATH; the test suite needs a local Redis 7 (apt-get install redis-server)`,
      );
    }
  }
}

async function cli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await execFileAsync('redis-cli', ['-h', HOST, '-p', String(port), ...args]);
  return stdout;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if (await check()) return;
    } catch {
      // not ready yet; keep polling until the deadline
    }
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

interface Proc {
  port: number;
  child: ChildProcess;
  dir: string;
}

async function spawnServer(extra: string[] = []): Promise<Proc> {
  // Another process may grab the probed port before redis-server binds it; retry on a new port.
  for (let attempt = 1; ; attempt++) {
    try {
      return await spawnOnce(await freePort(), extra);
    } catch (err) {
      if (attempt >= 3) throw err;
    }
  }
}

async function spawnOnce(port: number, extra: string[]): Promise<Proc> {
  const dir = await mkdtemp(join(tmpdir(), `rsc-redis-${port}-`));
  const args = [
    '--save',
    '',
    '--appendonly',
    'no',
    '--bind',
    HOST,
    '--port',
    String(port),
    '--dir',
    dir,
    ...extra,
  ];
  const child = spawn('redis-server', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  let exited = false;
  child.on('exit', () => {
    exited = true;
  });
  await waitFor(`redis-server on port ${port} to answer PING`, async () => {
    if (exited) throw new Error(`redis-server exited early: ${stderr}`);
    return (await cli(port, 'PING')).trim() === 'PONG';
  }).catch((err) => {
    child.kill('SIGKILL');
    void rm(dir, { recursive: true, force: true });
    throw exited ? new Error(`redis-server on port ${port} exited: ${stderr.trim()}`) : err;
  });
  return { port, child, dir };
}

async function stopServer(p: Proc): Promise<void> {
  if (p.child.exitCode === null && p.child.signalCode === null) {
    const gone = new Promise<void>((r) => p.child.once('exit', () => r()));
    p.child.kill('SIGKILL');
    await gone;
  }
  await rm(p.dir, { recursive: true, force: true });
}

/** Starts one standalone redis-server on a free loopback port. */
export async function startStandalone(): Promise<StandaloneRedis> {
  const p = await spawnServer();
  return { port: p.port, url: `redis://${HOST}:${p.port}`, stop: () => stopServer(p) };
}

/** Starts a 6-node Cluster (3 masters + 1 replica each) and waits until every node sees it healthy. */
export async function startCluster(): Promise<ClusterRedis> {
  const procs: Proc[] = [];
  const stop = async () => {
    await Promise.all(procs.map(stopServer));
  };
  try {
    for (let i = 0; i < 6; i++) {
      procs.push(
        await spawnServer([
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          'nodes.conf',
          '--cluster-node-timeout',
          '5000',
        ]),
      );
    }
    const addrs = procs.map((p) => `${HOST}:${p.port}`);
    await execFileAsync('redis-cli', [
      '--cluster',
      'create',
      ...addrs,
      '--cluster-replicas',
      '1',
      '--cluster-yes',
    ]);
    await waitFor(
      'cluster_state:ok and known slots/roles on every node',
      async () => {
        for (const p of procs) {
          const info = await cli(p.port, 'CLUSTER', 'INFO');
          if (!info.includes('cluster_state:ok')) return false;
          if (!info.includes('cluster_slots_assigned:16384')) return false;
          if (!info.includes('cluster_known_nodes:6')) return false;
          // Every node must know each replica's role, or clients may get a partial slot map.
          const nodes = (await cli(p.port, 'CLUSTER', 'NODES')).trim().split('\n');
          if (nodes.filter((l) => l.includes('slave')).length !== 3) return false;
          if ((await cli(p.port, 'ROLE')).startsWith('slave')) {
            if (!(await cli(p.port, 'INFO', 'replication')).includes('master_link_status:up')) return false;
          }
        }
        return true;
      },
      30_000,
    );
    return { nodes: procs.map((p) => ({ host: HOST, port: p.port })), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
