/**
 * The consumer SDK (docs/consuming.md): `concurrency: N` members `<base>-m0 … -m<N-1>`, each heartbeating
 * to the coordinator on its own and reading each shard it is assigned with its own
 * `XREADGROUP … BLOCK` loop on a dedicated connection (single key: Cluster-safe). Records are
 * acked, ack-deleted, retried with backoff or dead-lettered; a member reads a shard only while
 * the latest successful heartbeat assigns it and its local lease is valid. Node only (ioredis).
 */
import { onConnectionErrors } from '../redis/ioredis-port.js';
import { rateLimitedWarn, reportConnectionErrors } from './connection-report.js';
import { ConsumerClosedError } from './consumer-errors.js';
import {
  type ConsumerEventMap,
  type ConsumerEventName,
  ConsumerEvents,
  type ConsumerListener,
} from './consumer-events.js';
import { type ConsumerOptions, memberIds, resolveConsumerOptions } from './consumer-options.js';
import { ConsumerRedis } from './consumer-redis.js';
import { InvalidOptionsError } from './errors.js';
import { HeartbeatBatcher } from './heartbeat-batcher.js';
import { Member, type MemberStatus } from './member.js';
import { CoordinatorTransport } from './transport.js';

/** A running (or startable) consumer. */
export interface Consumer {
  /** Member ids, which are also the Redis consumer names. */
  readonly memberIds: readonly string[];
  /** Starts every member's heartbeat loop; reading begins once the coordinator assigns shards. */
  start(): void;
  /** Stops reading, finishes in-flight work, leaves the group (epoch -1). Idempotent. */
  close(): Promise<void>;
  /** Adds an event listener; returns a function removing it. */
  on<K extends ConsumerEventName>(name: K, listener: ConsumerListener<K>): () => void;
  /** Snapshot of every member. */
  status(): MemberStatus[];
}

/** Builds a consumer. Nothing is sent until `start()`. */
export function createConsumer(options: ConsumerOptions): Consumer {
  const o = resolveConsumerOptions(options);
  let transport: CoordinatorTransport;
  try {
    transport = new CoordinatorTransport({
      baseUrl: o.coordinatorUrl,
      credentials: options.credentials,
      fetch: options.fetch,
      timeoutMs: o.requestTimeoutMs,
    });
  } catch (err) {
    throw new InvalidOptionsError(err instanceof Error ? err.message : 'invalid coordinator settings');
  }
  const events = new ConsumerEvents(options.listeners, reportUnheardErrors());
  const redis = new ConsumerRedis(options.redis, o.consumerGroup, undefined, {
    timeoutMs: o.redisTimeoutMs,
    onConnectionError: connectionErrorsOf(options),
  });
  // One sender per consumer: the members of this process are the ones whose heartbeats batch.
  const heartbeats = new HeartbeatBatcher(transport, {
    streamPrefix: o.streamPrefix,
    consumerGroup: o.consumerGroup,
    enabled: o.batchHeartbeats,
  });
  const members = memberIds(o.memberBase, o.concurrency).map(
    (memberId) =>
      new Member({ memberId, options: o, transport, heartbeats, redis, handler: options.handler, events }),
  );
  let closing: Promise<void> | null = null;

  return {
    memberIds: members.map((m) => m.id),
    start() {
      if (closing) throw new ConsumerClosedError();
      for (const m of members) m.start();
    },
    close() {
      closing ??= Promise.all(members.map((m) => m.close())).then(() => undefined);
      return closing;
    },
    on: (name, listener) => events.on(name, listener),
    status: () => members.map((m) => m.status()),
  };
}

/**
 * Where connection errors of the consumer's clients go: `onConnectionError`, else one
 * rate-limited line (and onto `redis` only when nothing listens to it: ioredis prints a stack
 * trace per reconnection attempt for an unheard error). Read connections always get a listener.
 */
function connectionErrorsOf(options: ConsumerOptions): (err: unknown) => void {
  const client = options.redis;
  const unheard = client.listenerCount('error') === 0;
  const report = options.onConnectionError ?? (unheard ? reportConnectionErrors("consumer's") : () => {});
  if (unheard) onConnectionErrors(client, report);
  return report;
}

/** One rate-limited line for `error` events nobody listens to. */
function reportUnheardErrors(): (e: ConsumerEventMap['error']) => void {
  return rateLimitedWarn((value, more) => {
    const e = value as ConsumerEventMap['error'];
    const who = e.memberId ? `member ${e.memberId}, ` : '';
    return `consumer error (${who}${e.context}): ${e.error.message}${more}; listen to 'error' to see each`;
  });
}
