/**
 * Everything the Worker builds from its bindings, once per isolate and per bindings object:
 * the shared config (same zod schema as Node), the Worker-only settings, the Upstash client,
 * the Coordinator and the Hono app — or the reasons it must refuse to serve.
 */
import type { Hono } from 'hono';
// A named import: the bundler keeps only this field of package.json.
import { version } from '../package.json';
import { ConfigError, type CoordinatorConfig, parseConfig } from '../src/config.js';
import { Coordinator } from '../src/coordinator.js';
import { type AppEnv, createApp, type Logger } from '../src/http/app.js';
import { createUpstashClient, type UpstashCommands } from '../src/store/upstash-client.js';
import { UpstashInspector } from '../src/store/upstash-inspector.js';
import { UpstashStore } from '../src/store/upstash-store.js';
import {
  keyLockingOf,
  parseWorkerSettings,
  stringBindings,
  type WorkerEnv,
  type WorkerSettings,
} from './env.js';
import { createWorkerLogger } from './logger.js';
import { NO_CREDENTIALS } from './refusal.js';

/** A configuration good enough to run: the cron sweep runs, and `fetch` unless refused. */
interface ReadyRuntime {
  config: CoordinatorConfig;
  settings: WorkerSettings;
  client: UpstashCommands;
  /** Scripts run under Upstash's per-key locks (docs/workers.md#upstash-key-locking). */
  keyLocking: boolean;
  log: Logger;
  app: Hono<AppEnv>;
}

/** What one bindings object yields. */
export interface WorkerRuntime {
  /** Why `fetch` refuses to serve (answered as 503); empty when it serves. */
  refusal: string[];
  /** Null when the configuration is unusable (then the sweep cannot run either). */
  ready: ReadyRuntime | null;
}

/** Builds the runtime for `env` (no caching; see `runtimeFor`). */
function buildRuntime(env: WorkerEnv): WorkerRuntime {
  const raw = stringBindings(env);
  const problems: string[] = [];
  let config: CoordinatorConfig | null = null;
  try {
    config = parseConfig(raw);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    problems.push(err.message);
  }
  const parsed = parseWorkerSettings(raw);
  if (!parsed.ok) problems.push(...parsed.problems);
  const log = createWorkerLogger(parsed.ok ? parsed.settings.LOG_LEVEL : 'info');
  if (!config || !parsed.ok) {
    log('error', 'invalid Worker configuration; answering 503 until it is fixed', { problems });
    return { refusal: problems, ready: null };
  }

  const settings = parsed.settings;
  const client = createUpstashClient({
    url: settings.UPSTASH_REDIS_REST_URL,
    token: settings.UPSTASH_REDIS_REST_TOKEN,
  });
  const keyLocking = keyLockingOf(settings);
  const store = new UpstashStore(client, { namespace: config.keyPrefix, keyLocking });
  const coordinator = new Coordinator({ store, config, log });
  const inspector = new UpstashInspector(client, { keyLocking });
  // An open Worker is public on purpose (COORDINATOR_OPEN_MODE): any Host; cross-origin mutations stay refused.
  const app = createApp({
    coordinator,
    config,
    log,
    version,
    inspector,
    openModeHosts: 'any',
    // Set by Cloudflare's edge for every request (a client cannot forge it there).
    clientAddress: (c) => c.req.header('cf-connecting-ip') ?? null,
  });
  const refusal = config.auth === null && !config.explicitOpenMode ? [NO_CREDENTIALS] : [];
  if (refusal.length > 0) log('error', 'refusing to serve', { problems: refusal });
  else if (config.auth === null)
    log('warn', 'open mode: serving without authentication (COORDINATOR_OPEN_MODE)');
  return { refusal, ready: { config, settings, client, keyLocking, log, app } };
}

// Isolates are reused across requests; bindings objects are stable within one isolate.
const cache = new WeakMap<object, WorkerRuntime>();

/** The runtime for `env`, built on first use in this isolate. */
export function runtimeFor(env: WorkerEnv): WorkerRuntime {
  let rt = cache.get(env);
  if (!rt) {
    rt = buildRuntime(env);
    cache.set(env, rt);
  }
  return rt;
}
