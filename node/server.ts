/**
 * The Node adapter: Redis store + Coordinator + Hono app served by @hono/node-server, the
 * interval sweep, and a graceful close (terminating mode → drain → close the store).
 */
import { readFileSync } from 'node:fs';
import type { Server, ServerOptions } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { CoordinatorConfig } from '../src/config.js';
import { Coordinator } from '../src/coordinator.js';
import { createApp } from '../src/http/app.js';
import { CoordinatorMetrics } from '../src/metrics/coordinator-metrics.js';
import { LagCache } from '../src/metrics/lag-cache.js';
import { createIoredisClient, ioredisPort, onConnectionErrors } from '../src/redis/ioredis-port.js';
import { RedisInspector } from '../src/store/redis-inspector.js';
import { RedisStore } from '../src/store/redis-store.js';
import { requestCounter } from '../src/store/request-counter.js';
import { createLogger, type LogFn } from './logger.js';
import { enforceOpenMode } from './open-mode.js';
import { registerProcessMetrics } from './process-metrics.js';
import { redisEndpoint } from './redact.js';
import { startSweepLoop } from './sweep-loop.js';

/** Options of `startServer`. */
export interface StartServerOptions {
  /** Validated configuration (`parseConfig(process.env)`); `port: 0` picks a free port. */
  config: CoordinatorConfig;
  /** @default a JSON-lines logger on stdout */
  log?: LogFn;
  /** Longest wait for in-flight requests when closing, ms. @default 10000 */
  drainTimeoutMs?: number;
}

/** A running coordinator HTTP server. */
export interface RunningServer {
  /** Base URL with the real port, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** True once `close()` has begun (mutating requests then answer 503 COORDINATOR_TERMINATING). */
  terminating(): boolean;
  /** Requests received and not yet answered. */
  inFlight(): number;
  /** Terminating mode, stop the sweep, let in-flight requests finish, close the store. Idempotent. */
  close(): Promise<void>;
}

/** Builds store, Coordinator and app, listens on `config.host:config.port`, and starts the sweep. */
export async function startServer(opts: StartServerOptions): Promise<RunningServer> {
  const { config } = opts;
  const log = opts.log ?? createLogger();
  // Refuse a public bind before touching Redis or the network.
  enforceOpenMode(config, log);
  const publicMetrics = config.metricsPublic;

  const client = createIoredisClient({
    ...(config.redisClusterNodes.length > 0
      ? { clusterNodes: config.redisClusterNodes }
      : { url: config.redisUrl }),
    commandTimeoutMs: config.redisCommandTimeoutMs,
  });
  // Without a listener ioredis prints every connection error's stack to stderr, on every retry.
  onConnectionErrors(client, redisErrorLogger(log));
  // Metrics subscribe to the coordinator's events (heartbeats, commits, mutex attempts, sweeps).
  const metrics = new CoordinatorMetrics({
    version: VERSION,
    reference: { coordinatorId: config.coordinatorId, maxGroups: config.metricsMaxGroups },
    // A public /metrics names no stream (docs/security.md#metrics-exposure).
    streamLabels: !publicMetrics,
  });
  // One event-loop monitor behind both scrape endpoints; stopped on close.
  const processMetrics = registerProcessMetrics(
    metrics.reference ? [metrics.registry, metrics.reference.registry] : [metrics.registry],
  );
  // Counted so a sweep can report (and, given maxCalls, budget) its Redis round trips.
  const requests = requestCounter();
  const store = new RedisStore(ioredisPort(client, { onRequest: requests.onRequest }), {
    namespace: config.keyPrefix,
    ownsClient: true,
  });
  const coordinator = new Coordinator({
    store,
    config,
    log,
    onEvent: (e) => metrics.observeEvent(e),
    requestCount: requests.count,
  });
  let terminating = false;
  // Its own port: monitoring reads are not counted as the sweep's round trips.
  const inspector = new RedisInspector(ioredisPort(client));
  // One lag cache behind both scrape endpoints: scraping both reads the shards once per refresh.
  const lag = new LagCache({
    inspector,
    refreshMs: config.metricsLagRefreshMs,
    maxShards: config.metricsLagMaxShards,
  });
  metrics.watchGroups(() => coordinator.listGroups(), lag);
  metrics.watchReference(() => coordinator.listGroups(), lag);
  const app = createApp({
    coordinator,
    config,
    log,
    terminating: () => terminating,
    version: VERSION,
    inspector,
    metrics,
    metricsPublic: publicMetrics,
    prometheusPublic: config.prometheusPublic,
    // The socket's peer, never a forwarded header: behind a proxy every client shares its address.
    clientAddress: (c) => getConnInfo(c).remote.address ?? null,
  });

  const inFlight = new InFlight();
  const server = createAdaptorServer({
    hostname: config.host,
    fetch: (req, env) => inFlight.track(() => app.fetch(req, env)),
    serverOptions: httpTimeouts(config.requestTimeoutMs, config.heartbeatIntervalMs),
  }) as Server;
  try {
    await listen(server, config.port, config.host);
  } catch (err) {
    processMetrics.stop();
    await closeQuietly('coordinator', () => coordinator.close(), log);
    await closeQuietly('store', () => store.close(), log);
    throw err;
  }
  const url = baseUrl(server.address() as AddressInfo);
  log('info', 'listening', { url, redis: redisTarget(config), keyPrefix: config.keyPrefix });

  // Probes Redis in the background too, so its state changes are logged (once each) even when
  // nothing polls readiness; readiness requests share the same cached probe.
  const watch = setInterval(() => void coordinator.redisReadiness(), REDIS_WATCH_MS);
  watch.unref();
  void coordinator.redisReadiness();

  const sweep = startSweepLoop({
    sweep: (now) => coordinator.sweep(now),
    intervalMs: config.sweepIntervalMs,
    log,
  });
  const drainTimeoutMs = opts.drainTimeoutMs ?? 10_000;
  let closing: Promise<void> | undefined;

  const close = async (): Promise<void> => {
    terminating = true;
    log('info', 'terminating: refusing new mutations, draining in-flight requests');
    clearInterval(watch);
    await sweep.stop();
    if (!(await inFlight.drained(drainTimeoutMs))) {
      log('warn', 'drain timed out; closing with requests still in flight', { inFlight: inFlight.count });
    }
    await closeHttp(server);
    await closeQuietly('coordinator', () => coordinator.close(), log);
    await closeQuietly('store', () => store.close(), log);
    processMetrics.stop();
    log('info', 'stopped');
  };

  return {
    url,
    terminating: () => terminating,
    inFlight: () => inFlight.count,
    close: () => {
      closing ??= close();
      return closing;
    },
  };
}

/** Counts requests between arrival and response so close() can wait for them. */
class InFlight {
  count = 0;
  private waiters: Array<() => void> = [];

  async track<T>(fn: () => T | Promise<T>): Promise<T> {
    this.count++;
    try {
      return await fn();
    } finally {
      this.count--;
      if (this.count === 0) for (const w of this.waiters.splice(0)) w();
    }
  }

  /** Resolves true once nothing is in flight, false after `timeoutMs`. */
  drained(timeoutMs: number): Promise<boolean> {
    if (this.count === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
}

/** How often the server probes Redis on its own, ms. */
const REDIS_WATCH_MS = 1000;
/** After the first ioredis error, at most one more is logged per this many ms. */
export const REDIS_ERROR_LOG_INTERVAL_MS = 10_000;

/**
 * An ioredis 'error' listener logging through `log`: the first error at once, then at most one
 * per interval with the count of those suppressed since (a reconnect loop errs every 500 ms).
 * Name, code and message only: the stack says nothing about a refused connection.
 */
export function redisErrorLogger(
  log: LogFn,
  now: () => number = Date.now,
  intervalMs = REDIS_ERROR_LOG_INTERVAL_MS,
): (err: unknown) => void {
  let last = Number.NEGATIVE_INFINITY;
  let suppressed = 0;
  return (err) => {
    const t = now();
    if (t - last < intervalMs) {
      suppressed++;
      return;
    }
    const e = err instanceof Error ? err : new Error(String(err));
    const code = (e as { code?: unknown }).code;
    log('warn', 'Redis connection error', {
      error: { name: e.name, message: e.message, ...(typeof code === 'string' ? { code } : {}) },
      ...(suppressed > 0 ? { suppressed } : {}),
    });
    last = t;
    suppressed = 0;
  };
}

/**
 * Node's request timeouts for COORDINATOR_REQUEST_TIMEOUT_MS. Node checks them only every
 * `connectionsCheckingInterval` (30 s by default, which alone let stalled bodies live for minutes),
 * so the check runs four times per timeout, at most once a second. Headers get the same limit
 * (Node refuses a headers timeout above the request timeout). Idle keep-alive connections close
 * after Node's usual 5 s, or 2 s past the heartbeat interval when that is longer: a member's
 * connection then stays open between its heartbeats. (With a 6 s interval and the 5 s close, a
 * member's heartbeat raced the server closing its idle connection: 101 of 7,427 heartbeats failed
 * with a reset in the scale bench.)
 */
export function httpTimeouts(requestTimeoutMs: number, heartbeatIntervalMs = 0): ServerOptions {
  return {
    requestTimeout: requestTimeoutMs,
    headersTimeout: requestTimeoutMs,
    keepAliveTimeout: Math.max(5000, heartbeatIntervalMs + 2000),
    connectionsCheckingInterval: Math.min(1000, Math.max(100, Math.floor(requestTimeoutMs / 4))),
  };
}

/** Pending connections the kernel keeps for us (capped by net.core.somaxconn). */
const LISTEN_BACKLOG = 4096;

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    // A deep accept queue: a fleet of consumers (re)starting at once connects within a second,
    // and a full queue drops connection attempts that the kernel retries only after 1 s, 3 s, …
    server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Stops listening, gives finishing responses a moment, then cuts what is left (idle keep-alives). */
async function closeHttp(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const timer = setTimeout(() => server.closeAllConnections(), 1000);
  await closed;
  clearTimeout(timer);
}

async function closeQuietly(what: string, fn: () => Promise<void>, log: LogFn): Promise<void> {
  try {
    await fn();
  } catch (err) {
    log('warn', `closing the ${what} failed`, { err });
  }
}

function baseUrl(addr: AddressInfo): string {
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return `http://${host}:${addr.port}`;
}

/** Where the store points, for the start-up log: scheme, host and port only. */
function redisTarget(config: CoordinatorConfig): string {
  return config.redisClusterNodes.length > 0
    ? `cluster ${config.redisClusterNodes.join(',')}`
    : redisEndpoint(config.redisUrl);
}

/** This package's version, reported by `/actuator/info`. */
const VERSION: string = (() => {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
})();
