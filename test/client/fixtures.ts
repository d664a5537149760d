/**
 * Shared arrangements of the producer suites: a stream on a real coordinator, a producer wired
 * to it through `app.request`, reading shards back, and adapters that fail on purpose.
 */
import type { Cluster, Redis } from 'ioredis';
import { expect } from 'vitest';
import { RedisCommandError } from '../../src/client/errors.js';
import { createProducer, type Producer, type ProducerOptions } from '../../src/client/producer.js';
import type { ProducerRedis } from '../../src/client/redis-adapter.js';
import type { FetchLike } from '../../src/client/transport.js';
import { createApp } from '../../src/http/app.js';
import { idempotencyMarkerKey, incarnationKey } from '../../src/store/scripts/idempotent-publish.js';
import type { Stack } from '../support/stack.js';

/** Creates `prefix` with `shards` shards on the stack's coordinator (shard streams provisioned). */
export async function createStream(stack: Stack, prefix: string, shards: number): Promise<void> {
  const res = await stack.call('POST', `/coord/v1/streams/${prefix}`, {
    initialShardCount: shards,
    requestedBy: 'test',
  });
  expect(res.status).toBe(201);
}

/** `fetch` into the stack's coordinator app, in process. */
export function stackFetch(stack: Stack): FetchLike {
  const app = createApp({ coordinator: stack.coordinator, config: stack.config, now: stack.clock.now });
  return (url, init) => app.request(url, init);
}

/** A producer for `prefix` with test-friendly defaults (no retry pauses). */
export function producer(
  opts: Partial<ProducerOptions> & Pick<ProducerOptions, 'redis' | 'streamPrefix'>,
): Producer {
  // A loopback name (RFC 6761): the in-process app runs in open mode, which serves loopback Hosts only.
  return createProducer({ coordinatorUrl: 'http://coordinator.localhost', retryBackoffMs: 0, ...opts });
}

/** Entries of one shard stream as `[id, {field: value}]`. */
export async function readShard(
  redis: Redis | Cluster,
  key: string,
): Promise<Array<[string, Record<string, string>]>> {
  const raw = await redis.xrange(key, '-', '+');
  return raw.map(([id, flat]) => {
    const fields: Record<string, string> = {};
    for (let i = 0; i < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!;
    return [id, fields];
  });
}

/**
 * The marker key of `eventId` on shard `key`, named after the shard's current incarnation (the
 * test fails when the shard has none yet: no idempotent publish reached it).
 */
export async function markerKey(redis: Redis | Cluster, key: string, eventId: string): Promise<string> {
  const incarnation = await redis.get(incarnationKey(key));
  expect(incarnation, `incarnation of ${key}`).not.toBeNull();
  return idempotencyMarkerKey(key, eventId, incarnation!);
}

/** Total entries over shards `0..n-1` of `prefix`. */
export async function totalEntries(redis: Redis | Cluster, prefix: string, n: number): Promise<number> {
  let total = 0;
  for (let i = 0; i < n; i++) total += await redis.xlen(`${prefix}:${i}`);
  return total;
}

/** How a wrapped adapter call should fail. */
export type Fault = 'after-send' | 'before-send';

/**
 * Wraps an adapter so that queued faults hit the next idempotent calls: `after-send` runs the
 * call against Redis and then reports a lost reply (in doubt); `before-send` fails without
 * touching Redis (still reported in doubt — the client cannot tell). `onFault` runs after each.
 */
export function faultyAdapter(inner: ProducerRedis, onFault: () => void | Promise<void> = () => {}) {
  const faults: Fault[] = [];
  /** Shard keys of every idempotent call, in order. */
  const targets: string[] = [];
  const lost = () =>
    new RedisCommandError('idempotent publish: no reply from Redis (test fault)', {
      retryable: true,
      inDoubt: true,
    });
  const adapter: ProducerRedis = {
    xaddNoMkStream: (...args) => inner.xaddNoMkStream(...args),
    pipelineShards: (groups) => inner.pipelineShards(groups),
    async evalIdempotent(write) {
      targets.push(write.key);
      const fault = faults.shift();
      if (!fault) return inner.evalIdempotent(write);
      if (fault === 'after-send') await inner.evalIdempotent(write);
      await onFault();
      throw lost();
    },
  };
  return { adapter, faults, targets };
}
