/**
 * Arrangements of the consumer suites: a real coordinator (in process, real clock) on a private
 * Redis, a `fetch` into it that tests can wrap (stall, fail, record heartbeats), consumers with
 * short test timings, and small waiting helpers.
 */
import type { Cluster, Redis } from 'ioredis';
import { afterAll, expect, vi } from 'vitest';
import { type Consumer, createConsumer } from '../../src/client/consumer.js';
import type { ConsumerEventMap, ConsumerEventName } from '../../src/client/consumer-events.js';
import type { ConsumerOptions } from '../../src/client/consumer-options.js';
import type { FetchLike } from '../../src/client/transport.js';
import { createApp } from '../../src/http/app.js';
import { type Backend, standaloneClient, uniquePrefix } from '../support/redis.js';
import { makeStack, type Stack, type TestClock } from '../support/stack.js';

/** The wall clock, in the shape the stack wants (never moved by hand here). */
export const realClock: TestClock = {
  now: () => Date.now(),
  advance: () => {
    throw new Error('the real clock cannot be moved');
  },
  set: () => {
    throw new Error('the real clock cannot be moved');
  },
};

/** A coordinator stack on the real clock (heartbeat 500 ms, lease 3 s, rebalance timeout 10 s). */
export function realStack(backend: Backend, config: Record<string, string> = {}): Stack {
  return makeStack(backend, { clock: realClock, config });
}

/**
 * The file's coordinator stack on the private standalone Redis (real clock) and a raw client
 * beside it, both closed once the file's tests are done.
 */
export function standaloneSuite(config: Record<string, string> = {}): { stack: Stack; redis: Redis } {
  const stack = realStack({ name: 'standalone', make: standaloneClient }, config);
  const redis = standaloneClient();
  afterAll(async () => {
    await stack.close();
    await redis.quit();
  });
  return { stack, redis };
}

/** Creates a stream of `shards` shards (group = prefix) and returns its prefix. */
export async function newStream(stack: Stack, shards: number, name = 'cons'): Promise<string> {
  const p = uniquePrefix(name);
  const res = await stack.call('POST', `/coord/v1/streams/${p}`, {
    initialShardCount: shards,
    requestedBy: 'test',
  });
  expect(res.status).toBe(201);
  return p;
}

/** One heartbeat as seen on the wire. */
export interface SeenHeartbeat {
  memberId: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests index JSON bodies freely.
  body: any;
  // biome-ignore lint/suspicious/noExplicitAny: tests index JSON bodies freely.
  answer: any;
}

/** What a `ControlledFetch` does with the next requests. */
export type FetchMode = 'pass' | 'hang' | '503';

/** A `fetch` into the stack's app that records heartbeats and can stall or fail on demand. */
export interface ControlledFetch {
  fetch: FetchLike;
  /** Heartbeats whose answer reached the member. */
  heartbeats: SeenHeartbeat[];
  /** Heartbeats the coordinator answered but whose answer was dropped on the way back. */
  lost: SeenHeartbeat[];
  mode: FetchMode;
  /** When it returns true, the coordinator's answer is dropped (as if the connection broke). */
  loseAnswer?: (seen: SeenHeartbeat) => boolean;
}

/** Builds a controlled fetch into `stack`'s coordinator. */
export function controlledFetch(stack: Stack): ControlledFetch {
  const app = createApp({ coordinator: stack.coordinator, config: stack.config, now: stack.clock.now });
  const ctl: ControlledFetch = {
    heartbeats: [],
    lost: [],
    mode: 'pass',
    fetch: async (url, init) => {
      if (ctl.mode === 'hang') return new Promise<Response>(() => {});
      if (ctl.mode === '503') {
        return new Response(
          JSON.stringify({
            status: 'SERVICE_UNAVAILABLE',
            errorCode: 'COORDINATOR_STATE_MUTEX_UNAVAILABLE',
            message: 'busy',
          }),
          { status: 503, headers: { 'content-type': 'application/json' } },
        );
      }
      const res = await app.request(url, init);
      if (url.endsWith('/heartbeats') && res.status === 200) {
        // A batch: every item is a heartbeat its member sent and got answered; a lost answer
        // is lost for the whole batch (one connection).
        const items = JSON.parse(String(init.body)).heartbeats as Array<{ memberId: string }>;
        const results = (await res.clone().json()).results as Array<{ heartbeat: unknown; error: unknown }>;
        const seen = items.map((body, i) => ({
          memberId: body.memberId,
          body,
          answer: results[i]!.heartbeat ?? results[i]!.error,
        }));
        if (ctl.loseAnswer && seen.some((h) => ctl.loseAnswer!(h))) {
          ctl.lost.push(...seen);
          throw new TypeError('fetch failed (test: answer lost)');
        }
        ctl.heartbeats.push(...seen);
      }
      if (url.endsWith('/heartbeat')) {
        const text = await res.clone().text();
        const body = JSON.parse(String(init.body));
        const seen = { memberId: body.memberId, body, answer: JSON.parse(text) };
        if (ctl.loseAnswer?.(seen)) {
          ctl.lost.push(seen);
          throw new TypeError('fetch failed (test: answer lost)');
        }
        ctl.heartbeats.push(seen);
      }
      return res;
    },
  };
  return ctl;
}

/** A consumer with test timings (fast backoff and claims); start it yourself. */
export function testConsumer(
  opts: Partial<ConsumerOptions> & Pick<ConsumerOptions, 'streamPrefix' | 'redis' | 'handler' | 'fetch'>,
): Consumer {
  return createConsumer({
    // A loopback name (RFC 6761): the in-process app runs in open mode, which serves loopback Hosts only.
    coordinatorUrl: 'http://coordinator.localhost',
    memberBase: uniquePrefix('member'),
    blockMs: 100,
    pendingScanIntervalMs: 100,
    claimMinIdleMs: 200,
    retryBackoff: { baseMs: 50, factor: 2, maxMs: 400 },
    requestTimeoutMs: 1000,
    heartbeatIntervalMs: 500,
    ...opts,
  });
}

/** Collects every event of `name`. */
export function collect<K extends ConsumerEventName>(c: Consumer, name: K): ConsumerEventMap[K][] {
  const seen: ConsumerEventMap[K][] = [];
  c.on(name, (e) => seen.push(e));
  return seen;
}

/** Waits (polling) until `check` passes. */
export async function eventually(check: () => void | Promise<void>, timeout = 15_000): Promise<void> {
  await vi.waitFor(check, { timeout, interval: 25 });
}

/** Publishes `n` records to shard `shard` of `prefix` (plain XADD); returns their ids. */
export async function publish(
  redis: Redis | Cluster,
  prefix: string,
  shard: number,
  n: number,
  tag = 'r',
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    ids.push((await redis.xadd(`${prefix}:${shard}`, '*', 'tag', `${tag}-${shard}-${i}`)) as string);
  }
  return ids;
}

/** Pending entries of group `prefix` on one shard. */
export async function pendingCount(redis: Redis | Cluster, prefix: string, shard: number): Promise<number> {
  const summary = (await redis.xpending(`${prefix}:${shard}`, prefix)) as [number, ...unknown[]];
  return Number(summary[0]);
}

/** A promise and its resolver. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
