/**
 * What the HTTP app is built from (`AppDeps`), its defaults, and the Hono environment the
 * routes share.
 */
import type { Context } from 'hono';
import type { CoordinatorConfig } from '../config.js';
import type { CoordinatorApi } from '../coordinator-api.js';
import type { HttpMetrics } from '../metrics/http-metrics.js';
import type { StreamInspector } from '../store/inspector.js';
import type { Principal } from './auth/authenticator.js';
import type { OpenModeHosts } from './open-mode-guard.js';

/** Log levels of the one-line structured logger. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** One-line structured logger. */
export type Logger = (level: LogLevel, msg: string, fields?: Record<string, unknown>) => void;

/** Everything `createApp` needs; no globals. */
export interface AppDeps {
  coordinator: CoordinatorApi;
  config: CoordinatorConfig;
  /** Epoch-ms clock, read once per request. @default Date.now */
  now?: () => number;
  /** One-line structured logger. @default no-op */
  log?: Logger;
  /** When it returns true, mutating requests answer 503 COORDINATOR_TERMINATING. @default () => false */
  terminating?: () => boolean;
  /** Build info for /actuator/info. @default 'unknown' */
  version?: string;
  /** Read-only Redis access for offsets/messages/Grafana; without it those routes answer 503 REDIS_NOT_CONFIGURED. @default none */
  inspector?: StreamInspector;
  /** Request metrics and `GET /metrics` (Node); without it neither is served. @default none */
  metrics?: HttpMetrics;
  /** Serve `GET /metrics` without credentials (Node: COORDINATOR_METRICS_PUBLIC). @default false */
  metricsPublic?: boolean;
  /**
   * Serve `GET /actuator/prometheus` without credentials (Node: COORDINATOR_PROMETHEUS_PUBLIC);
   * its series name streams, groups and members, so `metricsPublic` does not open it. @default false
   */
  prometheusPublic?: boolean;
  /**
   * Host values served in open mode: loopback names only, or any (the Worker, whose open mode is
   * public on purpose). Cross-origin mutations are refused in open mode either way. @default 'loopback'
   */
  openModeHosts?: OpenModeHosts;
  /**
   * The caller's network address, for the failed-login throttle (Node: the socket's remote
   * address; Worker: `CF-Connecting-IP`). @default unknown (only the per-username budget applies)
   */
  clientAddress?: (c: Context<AppEnv>) => string | null;
}

/** `AppDeps` with every default filled in. */
export type ResolvedDeps = Required<Omit<AppDeps, 'inspector' | 'metrics'>> & {
  inspector: StreamInspector | null;
  metrics: HttpMetrics | null;
};

/** Fills the defaults of `AppDeps`. */
export function resolveDeps(deps: AppDeps): ResolvedDeps {
  return {
    coordinator: deps.coordinator,
    config: deps.config,
    now: deps.now ?? Date.now,
    log: deps.log ?? (() => {}),
    terminating: deps.terminating ?? (() => false),
    version: deps.version ?? 'unknown',
    inspector: deps.inspector ?? null,
    metrics: deps.metrics ?? null,
    metricsPublic: deps.metricsPublic ?? false,
    prometheusPublic: deps.prometheusPublic ?? false,
    openModeHosts: deps.openModeHosts ?? 'loopback',
    clientAddress: deps.clientAddress ?? (() => null),
  };
}

/** Hono environment of the app: per-request variables. */
export interface AppEnv {
  Variables: {
    /** The request's clock reading (epoch ms), taken once when it arrives. */
    now: number;
    /** Who the request acts as; null in open mode and on routes that need no role. */
    principal: Principal | null;
    /** The request's id (the client's `X-Request-Id` when well-formed, else a new UUID), echoed in that header. */
    requestId: string;
  };
}

/**
 * The name of who the request authenticated as, for audit lines: the Basic username or the
 * bearer token's subject; null when the coordinator runs without credentials (open mode). Never
 * anything from the credentials themselves.
 */
export function principalName(c: Context<AppEnv>): string | null {
  return c.get('principal')?.username ?? null;
}
