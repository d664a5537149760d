/**
 * The producer SDK (docs/producing.md): routes records with `routeV1` over the coordinator's producer
 * routing (cached under a bounded lease) and writes them with `XADD … NOMKSTREAM MAXLEN ~ N`,
 * so a producer with a stale route after a scale-in finds the retired key missing, refetches
 * and re-routes. With an `eventId`, one script makes the publish idempotent on its shard.
 * Runs over ioredis (Node, Cluster) or @upstash/redis (edge) through a `ProducerRedis` adapter.
 */
import { type Delivery, type DeliveryContext, deliver, type PublishResult, resultOf } from './delivery.js';
import { type ClientError, InvalidOptionsError, InvalidRecordError } from './errors.js';
import { InDoubtShards } from './in-doubt.js';
import type { EntryFields, ProducerRedis } from './redis-adapter.js';
import { type ProducerRouting, parseProducerRouting } from './routing.js';
import { RoutingCache } from './routing-cache.js';
import { CoordinatorTransport, type Credentials, type FetchLike, producerRoutingPath } from './transport.js';

export type { PublishResult } from './delivery.js';

/** Options of `createProducer`. */
export interface ProducerOptions {
  /** Coordinator base URL, e.g. `http://127.0.0.1:8080`. */
  coordinatorUrl: string;
  /** Logical stream; shard keys are `<streamPrefix>:<i>`. */
  streamPrefix: string;
  /** Group whose routing is read (any group of the stream; all share its shard count). @default streamPrefix */
  consumerGroup?: string | undefined;
  /** Basic `{username, password}` or `{token}` (bearer); needs the READ role. @default none */
  credentials?: Credentials | undefined;
  /** Redis port: `ioredisAdapter(client)` or `upstashAdapter(client)`. */
  redis: ProducerRedis;
  /** @default globalThis.fetch */
  fetch?: FetchLike | undefined;
  /** Timeout of one coordinator request, ms. @default 5000 */
  requestTimeoutMs?: number | undefined;
  /**
   * Longest one `publish` or `publishBatch` waits for Redis in all, retries included, ms: past it
   * the records not yet written fail with a retriable `RedisCommandError` whose `inDoubt` is
   * true (the write may still be applied when Redis comes back). @default 10000
   */
  redisTimeoutMs?: number | undefined;
  /** How long a routing answer may be used, counted from when it was requested, ms. @default 30000 */
  routingLeaseMs?: number | undefined;
  /** Refresh in the background this long before the lease ends, ms (< routingLeaseMs). @default routingLeaseMs / 6 */
  refreshAheadMs?: number | undefined;
  /**
   * While publishing, ask in the background whether the routing changed this long after the
   * last request, ms: a conditional request the coordinator answers 304 while nothing changed,
   * which also renews the lease (docs/producing.md#routing-after-a-scale). 0 turns it off (then
   * a scale is seen at the refresh before the lease ends). @default 3000
   */
  revalidateMs?: number | undefined;
  /** After a failed routing fetch, fail fast for this long before asking again, ms. @default 1000 */
  routingRetryAfterMs?: number | undefined;
  /** `MAXLEN` of every `XADD`. @default 100000 (as the reference Python client) */
  maxLen?: number | undefined;
  /** Trim with `MAXLEN ~` (true) or `MAXLEN =` (false). @default true */
  approximateTrim?: boolean | undefined;
  /** Attempts per record, first included (stale routes and retryable Redis failures). @default 3 */
  publishMaxAttempts?: number | undefined;
  /** Base pause before retrying after a Redis failure, ms (doubles, jittered). @default 50 */
  retryBackoffMs?: number | undefined;
  /** How long an `eventId` marker is kept, s: repeats within it return the first entry id. @default 86400 */
  idempotencyTtlSeconds?: number | undefined;
  /** Most in-doubt `eventId`s whose shard is remembered for a later call's retry (0: none). @default 10000 */
  maxInDoubtEvents?: number | undefined;
  /** Clock, ms. @default Date.now */
  now?: (() => number) | undefined;
}

/** One record to publish. */
export interface PublishRecord {
  /** Chooses the shard (`routeV1` over its UTF-8 bytes); `''` is allowed, as in the Python client. */
  partitionKey: string | Uint8Array;
  /** Entry fields, written in `Object.entries` order; at least one. */
  fields: Readonly<Record<string, string>>;
  /** Makes the publish idempotent: a repeat returns the first entry id. @default none */
  eventId?: string | undefined;
}

/** Outcome of one record of `publishBatch`, in input order. */
export type BatchResult = ({ ok: true } & PublishResult) | { ok: false; error: ClientError };

/** A producer bound to one stream. */
export interface Producer {
  /** Publishes one record; throws a `ClientError` when it cannot. */
  publish(record: PublishRecord): Promise<PublishResult>;
  /** Publishes records with one pipeline per shard; never throws for a record, reports each. */
  publishBatch(records: readonly PublishRecord[]): Promise<BatchResult[]>;
  /** The routing in use (fetched if there is none within its lease). */
  routing(): Promise<ProducerRouting>;
  /**
   * Resolves once a routing request running in the background has landed (never rejects). On
   * Workers pass it to `ctx.waitUntil`, so a revalidation a request started can finish after
   * the response is sent (docs/producing.md#at-the-edge).
   */
  settled(): Promise<void>;
}

/** Longest accepted `eventId` (it becomes part of a Redis key). */
export const MAX_EVENT_ID_LENGTH = 1024;

/** Builds a producer. Nothing is fetched until the first publish (or `routing()`). */
export function createProducer(options: ProducerOptions): Producer {
  const o = resolveOptions(options);
  let transport: CoordinatorTransport;
  try {
    transport = new CoordinatorTransport({
      baseUrl: options.coordinatorUrl,
      credentials: options.credentials,
      fetch: options.fetch,
      timeoutMs: o.requestTimeoutMs,
    });
  } catch (err) {
    throw new InvalidOptionsError(err instanceof Error ? err.message : 'invalid coordinator settings');
  }
  const path = producerRoutingPath(o.streamPrefix, o.consumerGroup);
  const cache = new RoutingCache({
    load: async (etag) => {
      const answer = await transport.getIfNoneMatch<unknown>(path, etag);
      if (answer.notModified) return { unchanged: true };
      const routing = parseProducerRouting(answer.body, o.streamPrefix, o.consumerGroup);
      return { unchanged: false, routing, etag: answer.etag };
    },
    leaseMs: o.routingLeaseMs,
    refreshAheadMs: o.refreshAheadMs,
    revalidateMs: o.revalidateMs,
    retryAfterFailureMs: o.routingRetryAfterMs,
    now: o.now,
  });
  const ctx: DeliveryContext = {
    cache,
    redis: options.redis,
    inDoubt: new InDoubtShards({
      maxEntries: o.maxInDoubtEvents,
      ttlMs: o.idempotencyTtlSeconds * 1000,
      now: o.now,
    }),
    maxAttempts: o.publishMaxAttempts,
    maxLen: o.maxLen,
    approx: o.approximateTrim,
    idempotencyTtlSeconds: o.idempotencyTtlSeconds,
    retryBackoffMs: o.retryBackoffMs,
    redisTimeoutMs: o.redisTimeoutMs,
  };

  return {
    async publish(record) {
      const delivery = checkRecord(record);
      await deliver([delivery], ctx);
      if (delivery.error) throw delivery.error;
      return resultOf(delivery);
    },

    async publishBatch(records) {
      const outcomes: BatchResult[] = new Array(records.length);
      const deliveries: Delivery[] = [];
      const indexes: number[] = [];
      for (let i = 0; i < records.length; i++) {
        try {
          deliveries.push(checkRecord(records[i]!));
          indexes.push(i);
        } catch (err) {
          outcomes[i] = { ok: false, error: err as InvalidRecordError };
        }
      }
      await deliver(deliveries, ctx);
      for (let j = 0; j < deliveries.length; j++) {
        const d = deliveries[j]!;
        outcomes[indexes[j]!] = d.error
          ? { ok: false, error: d.error }
          : {
              ok: true,
              streamKey: d.target!.streamKey,
              shardIndex: d.target!.shardIndex,
              entryId: d.entryId!,
              duplicate: !!d.duplicate,
            };
      }
      return outcomes;
    },

    routing: () => cache.current(),
    settled: () => cache.settled(),
  };
}

type Resolved = Required<Omit<ProducerOptions, 'credentials' | 'fetch' | 'redis' | 'coordinatorUrl'>>;

function resolveOptions(options: ProducerOptions): Resolved {
  const bad = (why: string) => new InvalidOptionsError(`createProducer: ${why}`);
  if (!options || typeof options !== 'object') throw bad('options are required');
  const { streamPrefix } = options;
  if (typeof streamPrefix !== 'string' || streamPrefix.trim() === '' || /[{}]/.test(streamPrefix)) {
    throw bad('streamPrefix must be a non-blank string without { or }');
  }
  const consumerGroup = options.consumerGroup ?? streamPrefix;
  if (typeof consumerGroup !== 'string' || consumerGroup.trim() === '')
    throw bad('consumerGroup must be non-blank');
  const redis = options.redis as Partial<ProducerRedis> | undefined;
  if (!redis || typeof redis.xaddNoMkStream !== 'function' || typeof redis.pipelineShards !== 'function') {
    throw bad('redis must be a producer adapter (ioredisAdapter(client) or upstashAdapter(client))');
  }
  if (typeof options.coordinatorUrl !== 'string' || options.coordinatorUrl === '')
    throw bad('coordinatorUrl is required');
  const int = (name: keyof ProducerOptions, value: number, min: number) => {
    if (!Number.isSafeInteger(value) || value < min)
      throw bad(`${name} must be an integer ≥ ${min}, got ${value}`);
    return value;
  };
  const routingLeaseMs = int('routingLeaseMs', options.routingLeaseMs ?? 30_000, 1);
  const refreshAheadMs = int('refreshAheadMs', options.refreshAheadMs ?? Math.floor(routingLeaseMs / 6), 0);
  if (refreshAheadMs >= routingLeaseMs) throw bad('refreshAheadMs must be below routingLeaseMs');
  return {
    streamPrefix,
    consumerGroup,
    requestTimeoutMs: int('requestTimeoutMs', options.requestTimeoutMs ?? 5000, 1),
    routingLeaseMs,
    refreshAheadMs,
    revalidateMs: int('revalidateMs', options.revalidateMs ?? 3000, 0),
    routingRetryAfterMs: int('routingRetryAfterMs', options.routingRetryAfterMs ?? 1000, 0),
    maxLen: int('maxLen', options.maxLen ?? 100_000, 1),
    approximateTrim: options.approximateTrim ?? true,
    publishMaxAttempts: int('publishMaxAttempts', options.publishMaxAttempts ?? 3, 1),
    retryBackoffMs: int('retryBackoffMs', options.retryBackoffMs ?? 50, 0),
    redisTimeoutMs: int('redisTimeoutMs', options.redisTimeoutMs ?? 10_000, 1),
    idempotencyTtlSeconds: int('idempotencyTtlSeconds', options.idempotencyTtlSeconds ?? 86_400, 1),
    maxInDoubtEvents: int('maxInDoubtEvents', options.maxInDoubtEvents ?? 10_000, 0),
    now: options.now ?? Date.now,
  };
}

// A module-level helper, not a closure per call: this runs once per record of every batch.
function bad(why: string): InvalidRecordError {
  return new InvalidRecordError(`publish: ${why}`);
}

/** Validates a record before any I/O and starts its delivery. */
function checkRecord(record: PublishRecord): Delivery {
  if (!record || typeof record !== 'object') throw bad('record must be an object');
  const { partitionKey, fields, eventId } = record;
  if (typeof partitionKey !== 'string' && !(partitionKey instanceof Uint8Array)) {
    throw bad('partitionKey must be a string or bytes');
  }
  if (!fields || typeof fields !== 'object' || Array.isArray(fields)) throw bad('fields must be an object');
  let count = 0;
  for (const name in fields) {
    if (!Object.hasOwn(fields, name)) continue;
    if (typeof fields[name] !== 'string') throw bad(`field '${name}' must be a string`);
    count++;
  }
  if (count === 0) throw bad('fields must not be empty (XADD needs at least one field)');
  if (
    eventId !== undefined &&
    (typeof eventId !== 'string' || eventId === '' || eventId.length > MAX_EVENT_ID_LENGTH)
  ) {
    throw bad(`eventId must be a non-empty string of at most ${MAX_EVENT_ID_LENGTH} characters`);
  }
  return { partitionKey, fields: fields as EntryFields, eventId };
}
