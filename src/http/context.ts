/**
 * What the HTTP app is built from (`AppDeps`), its defaults, and the Hono environment the
 * routes share.
 */
import type { CoordinatorConfig } from '../config.js';
import type { CoordinatorApi } from '../coordinator-api.js';

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
}

/** `AppDeps` with every default filled in. */
export type ResolvedDeps = Required<AppDeps>;

/** Fills the defaults of `AppDeps`. */
export function resolveDeps(deps: AppDeps): ResolvedDeps {
  return {
    coordinator: deps.coordinator,
    config: deps.config,
    now: deps.now ?? Date.now,
    log: deps.log ?? (() => {}),
    terminating: deps.terminating ?? (() => false),
    version: deps.version ?? 'unknown',
  };
}

/** Hono environment of the app: per-request variables. */
export interface AppEnv {
  Variables: {
    /** The request's clock reading (epoch ms), taken once when it arrives. */
    now: number;
  };
}
