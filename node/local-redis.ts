/**
 * `npm start` convenience: when nothing answers at a loopback REDIS_URL, run a private
 * redis-server for this run instead of failing (never for remote URLs or Cluster mode, where a
 * silent substitute would hide an outage).
 */
import type { CoordinatorConfig } from '../src/config.js';
import type { LogFn } from './logger.js';
import { canConnect, isLoopbackHost, redisAddress } from './net.js';
import { findOnPath, type PrivateRedis, startPrivateRedis } from './private-redis.js';

/** Raised when a private Redis is needed but `redis-server` is not installed. */
export class RedisMissingError extends Error {
  constructor(url: string) {
    super(
      `nothing answers at ${url} and redis-server is not on PATH. Install one ` +
        '(Debian/Ubuntu: apt-get install redis-server) or set REDIS_URL to a running Redis.',
    );
    this.name = 'RedisMissingError';
  }
}

/** The configuration to run with, and the private Redis started for it (if any). */
export interface LocalRedis {
  config: CoordinatorConfig;
  privateRedis: PrivateRedis | null;
}

/**
 * Returns `config` unchanged when Redis answers (or is remote / Cluster); otherwise starts a
 * private Redis under `dataDir` and returns a config pointing at it.
 */
export async function ensureLocalRedis(
  config: CoordinatorConfig,
  opts: { dataDir: string; log: LogFn; pathVar?: string },
): Promise<LocalRedis> {
  if (config.redisClusterNodes.length > 0) return { config, privateRedis: null };
  const addr = redisAddress(config.redisUrl);
  if (!addr || !isLoopbackHost(addr.host) || (await canConnect(addr.host, addr.port, 500))) {
    return { config, privateRedis: null };
  }
  const binary = findOnPath('redis-server', opts.pathVar);
  if (!binary) throw new RedisMissingError(config.redisUrl);
  const privateRedis = await startPrivateRedis({ binary, baseDir: opts.dataDir });
  // Keep the logical database of the configured URL; the private server has no password.
  const db = new URL(config.redisUrl).pathname.match(/^\/(\d+)$/)?.[1];
  const redisUrl = db ? `${privateRedis.url}/${db}` : privateRedis.url;
  opts.log('info', `nothing answers at ${config.redisUrl}: started a private redis-server for this run`, {
    url: redisUrl,
    pid: privateRedis.pid,
    dir: privateRedis.dir,
  });
  return { config: { ...config, redisUrl }, privateRedis };
}
