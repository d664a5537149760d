/**
 * The quick start's Redis: with neither REDIS_URL nor REDIS_CLUSTER_NODES set, `npm start` runs a
 * private, throw-away redis-server for this run. An explicit URL is never substituted, even when
 * nothing answers there: a silent empty Redis next to a sibling serving the real one is a split
 * brain. The coordinator then starts not-ready and keeps reconnecting.
 */
import { ConfigError, type CoordinatorConfig } from '../src/config.js';
import type { LogFn } from './logger.js';
import { findOnPath, type RedisServer, startRedisServer } from './redis-server.js';

/** Raised when a private Redis is needed but `redis-server` is not installed. */
export class RedisMissingError extends Error {
  constructor() {
    super(
      'no Redis is configured and redis-server is not on PATH. Set REDIS_URL to a running Redis ' +
        '(or REDIS_CLUSTER_NODES), or install redis-server (Debian/Ubuntu: apt-get install redis-server) ' +
        'to let the coordinator run a private one for development.',
    );
    this.name = 'RedisMissingError';
  }
}

/** The configuration to run with, and the private Redis started for it (if any). */
export interface LocalRedis {
  config: CoordinatorConfig;
  privateRedis: RedisServer | null;
}

/** The log line that announces a private Redis (tests and operators look for it). */
export const PRIVATE_REDIS_WARNING =
  'no REDIS_URL or REDIS_CLUSTER_NODES set: started a private redis-server for this run; its data is gone when the coordinator stops (set REDIS_URL for real use, COORDINATOR_DEV_REDIS=false to refuse)';

/** The shell line that points SDKs and the CLI at the private Redis at `url`. */
function privateRedisExport(url: string): string {
  return `export REDIS_URL=${url}   # the private Redis of this run: paste into the shell of your producer, consumer or CLI`;
}

/**
 * Returns `config` unchanged when Redis is configured; otherwise starts a private Redis under
 * `dataDir` (or refuses, with COORDINATOR_DEV_REDIS=false) and returns a config pointing at it.
 */
export async function ensureLocalRedis(
  config: CoordinatorConfig,
  opts: { dataDir: string; log: LogFn; pathVar?: string },
): Promise<LocalRedis> {
  if (config.redisExplicit) return { config, privateRedis: null };
  if (!config.devRedis) {
    throw new ConfigError(
      'invalid configuration: REDIS_URL: not set (nor REDIS_CLUSTER_NODES), and COORDINATOR_DEV_REDIS=false forbids a private development Redis',
    );
  }
  const binary = findOnPath('redis-server', opts.pathVar);
  if (!binary) throw new RedisMissingError();
  // Detached: a terminal Ctrl-C reaches the coordinator only, which drains, then stops Redis.
  const privateRedis = await startRedisServer({
    binary,
    baseDir: opts.dataDir,
    detached: true,
    ...(config.devRedisPort > 0 ? { port: config.devRedisPort } : {}),
  });
  opts.log('warn', PRIVATE_REDIS_WARNING, {
    url: privateRedis.url,
    pid: privateRedis.pid,
    dir: privateRedis.dir,
  });
  // For people, on stderr (stdout carries the JSON log): the line to paste into the shell that
  // runs a producer, a consumer or the CLI against this Redis.
  process.stderr.write(`${privateRedisExport(privateRedis.url)}\n`);
  return { config: { ...config, redisUrl: privateRedis.url }, privateRedis };
}
