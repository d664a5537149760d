/**
 * `npm run dev:worker`: the Worker locally, end to end on real Redis. Starts a private
 * redis-server (loopback, no persistence), the Upstash REST bridge in front of it, and
 * `wrangler dev --ip 127.0.0.1 --test-scheduled` with the bridge's URL and token as vars.
 * Ctrl-C stops all three.
 *
 * Credentials: every COORDINATOR_* variable of this shell is passed on as a var; when none of
 * the credential variables is set, COORDINATOR_OPEN_MODE=true is passed (the Worker is only
 * reachable on 127.0.0.1). The vars travel in an owner-only env file outside the working tree
 * (`--env-file`), removed on exit, never as `--var` arguments. Port: PORT (default 8787).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { findOnPath, type RedisServer, startRedisServer } from '../node/redis-server.js';
import { startUpstashBridge, type UpstashBridge } from '../test/support/upstash-bridge.js';
import { type DevVarsFile, workerVars, wranglerDevArgs, writeDevVars } from './dev-worker-vars.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const port = process.env.PORT ?? '8787';

let redis: RedisServer | null = null;
let bridge: UpstashBridge | null = null;
let wrangler: ChildProcess | null = null;
let varsFile: DevVarsFile | null = null;
let stopping = false;

function say(line: string): void {
  process.stdout.write(`[dev:worker] ${line}\n`);
}

async function stop(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  // wrangler dev runs workerd in its own process group: signal the whole group.
  if (wrangler?.pid && wrangler.exitCode === null) {
    try {
      process.kill(-wrangler.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  await varsFile?.remove().catch(() => undefined);
  await bridge?.close().catch(() => undefined);
  await redis?.stop().catch(() => undefined);
  process.exit(code);
}

async function main(): Promise<void> {
  const binary = findOnPath('redis-server');
  if (!binary) throw new Error('redis-server is not on PATH (apt-get install redis-server)');
  redis = await startRedisServer({ binary, baseDir: `${ROOT}.data/redis`, detached: true });
  say(`private redis-server on ${redis.url} (pid ${redis.pid}, data discarded on exit)`);
  bridge = await startUpstashBridge({ redisUrl: redis.url });
  say(`Upstash REST bridge on ${bridge.url}`);

  const { vars, openMode } = workerVars(process.env, bridge);
  if (openMode) say('no credentials in the environment: COORDINATOR_OPEN_MODE=true (loopback only)');
  varsFile = await writeDevVars(vars);
  const args = wranglerDevArgs({ port, envFile: varsFile.path });
  wrangler = spawn(`${ROOT}node_modules/.bin/wrangler`, args, {
    cwd: ROOT,
    stdio: 'inherit',
    detached: true,
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
  });
  wrangler.once('exit', (code) => {
    if (!stopping) say(`wrangler exited (${code}); stopping`);
    void stop(code ?? 1);
  });
  say(
    `Worker on http://127.0.0.1:${port}  —  cron: curl "http://127.0.0.1:${port}/__scheduled?cron=*+*+*+*+*"`,
  );
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void stop(0));
// However the process ends, the env file with the credentials goes with it.
process.on('exit', () => varsFile?.removeNow());
main().catch((err) => {
  process.stderr.write(`[dev:worker] ${err instanceof Error ? err.message : String(err)}\n`);
  void stop(1);
});
