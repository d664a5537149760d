/**
 * A coordinator over a real Redis whose store can be told to lose a commit's reply (the commit
 * ran, the caller sees REDIS_UNAVAILABLE) or to send a commit twice (a client resend after a
 * reconnect), or to die (every later call hangs, as with a SIGKILLed process: no renewals, no
 * release). Used by the in-doubt commit and lock lease suites.
 */
import type { Cluster, Redis } from 'ioredis';
import { type CoordinatorConfig, parseConfig } from '../../src/config.js';
import { Coordinator } from '../../src/coordinator.js';
import { CoordinatorError } from '../../src/core/errors.js';
import { createApp } from '../../src/http/app.js';
import { IoredisInspector } from '../../src/store/ioredis-inspector.js';
import { IoredisStore } from '../../src/store/ioredis-store.js';
import type { Store, StreamPlan } from '../../src/store/store.js';
import { type Backend, uniquePrefix } from './redis.js';
import type { TestResponse } from './stack.js';

/** Faults armed on the next stream-wide commits (plans that write or delete the stream hash). */
export interface Faults {
  /** Commits that run and then fail as if their reply was lost. */
  loseReply: number;
  /** Commits sent twice, the second reply answered. */
  resend: number;
  /** Once set, every store call (commits, renewals, releases) hangs forever. */
  dead: boolean;
  /** Called on each store call before it runs (to kill the store at a chosen point). */
  onCall?: (method: string) => void;
}

/** One coordinator on a faulty store. */
export interface FaultyStack {
  config: CoordinatorConfig;
  faults: Faults;
  coordinator: Coordinator;
  store: IoredisStore;
  redis: Redis | Cluster;
  call: (method: string, path: string, body?: unknown) => Promise<TestResponse>;
  close: () => Promise<void>;
}

const never = new Promise<never>(() => undefined);

/** `inner` with the faults applied. */
export function faultyStore(inner: Store, faults: Faults): Store {
  return new Proxy(inner, {
    get(target, prop) {
      const v: unknown = Reflect.get(target, prop, target);
      if (typeof v !== 'function') return v;
      const method = v as (...a: unknown[]) => Promise<unknown>;
      return (...args: unknown[]) => {
        faults.onCall?.(String(prop));
        if (faults.dead && prop !== 'close') return never;
        if (prop !== 'commit') return method.apply(target, args);
        const plan = args[0] as StreamPlan;
        if (plan.stream === undefined) return method.apply(target, args);
        if (faults.loseReply > 0) {
          faults.loseReply--;
          return method.apply(target, args).then(() => {
            throw new CoordinatorError('REDIS_UNAVAILABLE', 'Redis is unavailable (reply lost)');
          });
        }
        if (faults.resend > 0) {
          faults.resend--;
          return method.apply(target, args).then(() => method.apply(target, args));
        }
        return method.apply(target, args);
      };
    },
  });
}

/** A coordinator (real clock) on `backend` whose store has `faults`. */
export function faultyStack(backend: Backend, env: Record<string, string> = {}): FaultyStack {
  const config = parseConfig({
    COORDINATOR_KEY_PREFIX: uniquePrefix('ns'),
    COORDINATOR_HEARTBEAT_INTERVAL_MS: '500',
    COORDINATOR_MEMBER_LEASE_TTL_MS: '3000',
    ...env,
  });
  const faults: Faults = { loseReply: 0, resend: 0, dead: false };
  const client = backend.make();
  const redis = backend.make();
  const store = new IoredisStore(client, { namespace: config.keyPrefix, ownsClient: true });
  const coordinator = new Coordinator({ store: faultyStore(store, faults), config });
  const app = createApp({ coordinator, config, inspector: new IoredisInspector(client) });
  const call = async (method: string, path: string, body?: unknown): Promise<TestResponse> => {
    const init: RequestInit = { method };
    if (body !== undefined) {
      init.headers = { 'content-type': 'application/json' };
      init.body = JSON.stringify(body);
    }
    const res = await app.request(path, init);
    const text = await res.text();
    return { status: res.status, body: text === '' ? null : JSON.parse(text) };
  };
  return {
    config,
    faults,
    coordinator,
    store,
    redis,
    call,
    close: async () => {
      await coordinator.close();
      await store.close();
      redis.disconnect();
    },
  };
}
