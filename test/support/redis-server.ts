/**
 * Private redis-server processes for tests: one standalone server and one 6-node Cluster, each
 * on free loopback ports with its own directory, spawned by the Node adapter's one helper
 * (node/redis-server.ts) — the same code that runs `npm start`'s throw-away Redis.
 */
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type RedisServer, startRedisServer } from '../../node/redis-server.js';

const execFileAsync = promisify(execFile);

/** Asks the kernel for a free loopback port by binding port 0. */
export { freeLoopbackPort as freePort } from '../../node/net.js';

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
/** Shared by concurrent runs: each server's directory is named after its owner's pid. */
const BASE_DIR = join(tmpdir(), 'rsc-test-redis');

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

/** Starts one standalone redis-server on a free loopback port. */
export async function startStandalone(): Promise<StandaloneRedis> {
  const s = await startRedisServer({ baseDir: BASE_DIR, startTimeoutMs: 20_000 });
  return { port: s.port, url: s.url, stop: () => s.stop() };
}

/** Starts a 6-node Cluster (3 masters + 1 replica each) and waits until every node sees it healthy. */
export async function startCluster(): Promise<ClusterRedis> {
  const servers: RedisServer[] = [];
  const stop = async () => {
    await Promise.all(servers.map((s) => s.stop()));
  };
  try {
    for (let i = 0; i < 6; i++) {
      servers.push(
        await startRedisServer({
          baseDir: BASE_DIR,
          startTimeoutMs: 20_000,
          args: [
            '--cluster-enabled',
            'yes',
            '--cluster-config-file',
            'nodes.conf',
            '--cluster-node-timeout',
            '5000',
          ],
        }),
      );
    }
    const addrs = servers.map((s) => `${HOST}:${s.port}`);
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
        for (const s of servers) {
          const info = await cli(s.port, 'CLUSTER', 'INFO');
          if (!info.includes('cluster_state:ok')) return false;
          if (!info.includes('cluster_slots_assigned:16384')) return false;
          if (!info.includes('cluster_known_nodes:6')) return false;
          // Every node must know each replica's role, or clients may get a partial slot map.
          const nodes = (await cli(s.port, 'CLUSTER', 'NODES')).trim().split('\n');
          if (nodes.filter((l) => l.includes('slave')).length !== 3) return false;
          if ((await cli(s.port, 'ROLE')).startsWith('slave')) {
            if (!(await cli(s.port, 'INFO', 'replication')).includes('master_link_status:up')) return false;
          }
        }
        return true;
      },
      30_000,
    );
    return { nodes: servers.map((s) => ({ host: HOST, port: s.port })), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
