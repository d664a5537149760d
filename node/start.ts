/**
 * `npm start`: parse env, run a private Redis if none is configured, serve, and on SIGTERM/SIGINT
 * drain and exit 0. Exit 2 = invalid configuration, 1 = could not start.
 */
import { join } from 'node:path';
import { ConfigError, type CoordinatorConfig, parseConfig } from '../src/config.js';
import { ensureLocalRedis, RedisMissingError } from './local-redis.js';
import { createLogger, type LogFn } from './logger.js';
import { assertOpenModeBindable } from './open-mode.js';
import { redactUrl } from './redact.js';
import type { RedisServer } from './redis-server.js';
import { type RunningServer, startServer } from './server.js';

// Until the configuration (LOG_LEVEL included) is read, log at info.
let log: LogFn = createLogger({ level: 'info' });
const SHUTDOWN_LIMIT_MS = 20_000;
// The private development Redis lives under the working directory (the repository for `npm
// start`), never inside an installed package.
const DATA_DIR = join(process.cwd(), '.data', 'redis');

let privateRedis: RedisServer | null = null;
let server: RunningServer | null = null;
let stopping = false;

// If anything ends the process abruptly, do not leave an orphaned redis-server behind.
process.on('exit', () => privateRedis?.killNow());

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) {
      log('warn', `second ${signal}: exiting without waiting`);
      process.exit(1);
    }
    void shutdown(signal);
  });
}

async function main(): Promise<void> {
  let config: CoordinatorConfig;
  try {
    config = parseConfig(process.env);
    log = createLogger({ level: config.logLevel });
    // Refuse a public bind before starting anything (a private Redis included).
    assertOpenModeBindable(config);
  } catch (err) {
    return fail(err instanceof ConfigError ? 2 : 1, err);
  }
  try {
    const local = await ensureLocalRedis(config, { dataDir: DATA_DIR, log });
    privateRedis = local.privateRedis;
    if (!stopping) server = await startServer({ config: local.config, log });
    // A signal that arrived while we were starting found nothing to stop yet: stop it here.
    if (stopping) {
      await server?.close();
      await privateRedis?.stop();
    }
  } catch (err) {
    await privateRedis?.stop();
    return fail(err instanceof ConfigError ? 2 : 1, err);
  }
}

async function shutdown(signal: string): Promise<void> {
  stopping = true;
  log('info', 'shutdown requested', { signal });
  // The drain is bounded (10 s); this only catches a close that hangs (e.g. on a dead Redis).
  setTimeout(() => {
    log('error', 'shutdown did not finish in time; exiting');
    process.exit(1);
  }, SHUTDOWN_LIMIT_MS).unref();
  let code = 0;
  try {
    await server?.close();
  } catch (err) {
    log('error', 'shutdown failed', { err });
    code = 1;
  }
  await privateRedis?.stop();
  exit(code);
}

function fail(code: number, err: unknown): void {
  const plain = err instanceof ConfigError || err instanceof RedisMissingError;
  // Configuration mistakes get a plain, human message on stderr; anything else a structured line.
  if (plain) process.stderr.write(`${redactUrl((err as Error).message)}\n`);
  else log('error', 'start failed', { err });
  exit(code);
}

function exit(code: number): void {
  process.exitCode = code;
  // Let stdout flush and handles close on their own; force it if something lingers.
  setTimeout(() => process.exit(code), 2000).unref();
}

void main();
