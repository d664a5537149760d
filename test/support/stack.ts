/**
 * The whole coordinator (store → use-cases → Hono app) on a private Redis, driven through
 * `app.request()` with a controllable clock. Each stack gets its own key namespace.
 */
import type { Cluster, Redis } from 'ioredis';
import { afterEach } from 'vitest';
import { type CoordinatorConfig, parseConfig } from '../../src/config.js';
import { Coordinator, type CoordinatorEvent } from '../../src/coordinator.js';
import { createApp } from '../../src/http/app.js';
import { IoredisInspector } from '../../src/store/ioredis-inspector.js';
import { IoredisStore } from '../../src/store/ioredis-store.js';
import { requestCounter } from '../../src/store/request-counter.js';
import { type Backend, uniquePrefix } from './redis.js';

/** A manual clock starting at a fixed instant. */
export interface TestClock {
  now: () => number;
  advance: (ms: number) => void;
  set: (ms: number) => void;
}

/** A clock tests move by hand. */
export function manualClock(start = Date.parse('2026-05-24T00:00:00Z')): TestClock {
  let t = start;
  return {
    now: () => t,
    advance: (ms) => {
      t += ms;
    },
    set: (ms) => {
      t = ms;
    },
  };
}

/** A response as tests look at it. */
export interface TestResponse {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests index JSON bodies freely.
  body: any;
}

/** One coordinator instance wired to a backend. */
export interface Stack {
  config: CoordinatorConfig;
  clock: TestClock;
  coordinator: Coordinator;
  store: IoredisStore;
  /** A raw client on the same backend, for arranging and checking Redis state. */
  redis: Redis | Cluster;
  call: (method: string, path: string, body?: unknown) => Promise<TestResponse>;
  close: () => Promise<void>;
}

/** Options of `makeStack`. */
export interface StackOptions {
  config?: Record<string, string>;
  clock?: TestClock;
  /** Share another stack's namespace (two instances on one state). */
  namespace?: string;
  /** Receives every event the coordinator reports. */
  onEvent?: (event: CoordinatorEvent) => void;
  /** The coordinator's monotonic clock (what it measures its own work with). @default performance.now */
  monotonic?: () => number;
}

/** Builds a coordinator on `backend` with test timings unless overridden. */
export function makeStack(backend: Backend, opts: StackOptions = {}): Stack {
  const config = parseConfig({
    COORDINATOR_KEY_PREFIX: opts.namespace ?? uniquePrefix('ns'),
    COORDINATOR_HEARTBEAT_INTERVAL_MS: '500',
    COORDINATOR_MEMBER_LEASE_TTL_MS: '3000',
    COORDINATOR_REBALANCE_TIMEOUT_MS: '10000',
    ...opts.config,
  });
  const clock = opts.clock ?? manualClock();
  const client = backend.make();
  const redis = backend.make();
  const requests = requestCounter();
  const store = new IoredisStore(client, {
    namespace: config.keyPrefix,
    ownsClient: true,
    onRequest: requests.onRequest,
  });
  const coordinator = new Coordinator({
    store,
    config,
    now: clock.now,
    requestCount: requests.count,
    ...(opts.onEvent ? { onEvent: opts.onEvent } : {}),
    ...(opts.monotonic ? { monotonic: opts.monotonic } : {}),
  });
  const app = createApp({ coordinator, config, now: clock.now, inspector: new IoredisInspector(client) });
  const call = async (method: string, path: string, body?: unknown): Promise<TestResponse> => {
    const init: RequestInit = { method };
    if (body !== undefined) {
      init.headers = { 'content-type': 'application/json' };
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
    }
    const res = await app.request(path, init);
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      // keep text
    }
    return { status: res.status, body: parsed };
  };
  return {
    config,
    clock,
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

/** Fields of a heartbeat body that tests vary. */
export interface HeartbeatArgs {
  epoch: number;
  mv: number;
  owned?: number[];
  revoking?: Array<{ shard: number; state: 'REVOKING' | 'DRAINING' | 'REVOKED'; inFlight?: number }>;
  progress?: Array<{ shard: number; lastDeliveredId?: string | null; lastAckedId?: string | null }>;
  memberId?: string;
  protocolVersion?: number;
}

/** A valid heartbeat body in the reference clients' shape. */
export function heartbeatBody(memberId: string, prefix: string, a: HeartbeatArgs): Record<string, unknown> {
  return {
    protocolVersion: a.protocolVersion ?? 1,
    requestId: `req-${Math.random().toString(36).slice(2)}`,
    memberId: a.memberId ?? memberId,
    memberName: memberId,
    memberEpoch: a.epoch,
    metadataVersion: a.mv,
    runtimeConsumerCapacity: { runtimeMaxConcurrency: 1, availableConcurrency: 1 },
    ownedShards: (a.owned ?? []).map((shardIndex) => ({ shardIndex })),
    revokingShards: (a.revoking ?? []).map((r) => ({
      shard: { shardIndex: r.shard },
      state: r.state,
      inFlight: r.inFlight ?? 0,
      ackedAt: null,
    })),
    shardProgress: (a.progress ?? []).map((p) => ({
      shard: { shardIndex: p.shard },
      streamKey: `${prefix}:${p.shard}`,
      lastDeliveredId: p.lastDeliveredId ?? null,
      lastAckedId: p.lastAckedId ?? null,
      pendingCount: 0,
      updatedAt: null,
    })),
  };
}

/** Shard indexes of a wire shard list. */
export function idx(shards: Array<{ shardIndex: number }>): number[] {
  return shards.map((s) => s.shardIndex);
}

/** Sends a heartbeat through the stack. */
export function heartbeat(
  stack: Pick<Stack, 'call'>,
  prefix: string,
  group: string,
  member: string,
  a: HeartbeatArgs,
): Promise<TestResponse> {
  return stack.call(
    'POST',
    `/coord/v1/streams/${encodeURIComponent(prefix)}/groups/${encodeURIComponent(group)}/members/${encodeURIComponent(member)}/heartbeat`,
    heartbeatBody(member, prefix, a),
  );
}

/**
 * `stackOf(config)` for the tests of one `describe`: each stack is made on `backend` (options
 * as `makeStack` takes them, `config` merged in) and closed after the test that made it.
 */
export function stacksPerTest(
  backend: Backend,
  base: Omit<StackOptions, 'config'> = {},
): (config?: Record<string, string>) => Stack {
  const stacks: Stack[] = [];
  afterEach(async () => {
    for (const s of stacks.splice(0)) await s.close();
  });
  return (config = {}) => {
    const s = makeStack(backend, { ...base, config });
    stacks.push(s);
    return s;
  };
}
