/**
 * Options of `createConsumer`, their defaults and validation (before any I/O).
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { IoredisClient } from '../redis/ioredis-port.js';
import type { ConsumerListeners } from './consumer-events.js';
import { InvalidOptionsError } from './errors.js';
import type { Credentials, FetchLike } from './transport.js';

/** What a handler answers for a record. `undefined` (no return value) counts as `'ack'`. */
export type HandlerOutcome = 'ack' | 'ack-delete' | 'retry';

/** One record handed to the handler. */
export interface ConsumedRecord {
  streamPrefix: string;
  consumerGroup: string;
  /** The member (and Redis consumer name) that read it. */
  memberId: string;
  shard: number;
  streamKey: string;
  /** Stream entry id. */
  id: string;
  /** Entry fields (a repeated field name keeps its last value). */
  fields: Record<string, string>;
  /** Deliveries of this record so far, this one included (1 on the first). */
  deliveryCount: number;
  /** Aborted when the member must stop working on the shard at once (lease lost, fenced). */
  signal: AbortSignal;
}

/** What a handler may return: an outcome, nothing (= `'ack'`), or a promise of either. */
// biome-ignore lint/suspicious/noConfusingVoidType: handlers that return nothing are the common case.
export type HandlerResult = HandlerOutcome | undefined | void | Promise<HandlerOutcome | undefined | void>;

/** Processes one record. Throwing (or answering `'retry'`) leaves it pending for a retry. */
export type ConsumerHandler = (record: ConsumedRecord) => HandlerResult;

/** Delay before retry `n` of a failed record: `min(maxMs, baseMs * factor^(n-1))`. */
export interface RetryBackoff {
  /** @default 1000 */
  baseMs?: number | undefined;
  /** @default 2 */
  factor?: number | undefined;
  /** @default 60000 */
  maxMs?: number | undefined;
}

/** Options of `createConsumer`. */
export interface ConsumerOptions {
  /** Coordinator base URL, e.g. `http://127.0.0.1:8080`. */
  coordinatorUrl: string;
  /** Logical stream; shard keys are `<streamPrefix>:<i>`. */
  streamPrefix: string;
  /** Coordinator consumer group, also the Redis consumer group. @default streamPrefix */
  consumerGroup?: string | undefined;
  /** Members in this process (`<memberBase>-m0 … -m<N-1>`), each heartbeating on its own. @default 1 */
  concurrency?: number | undefined;
  /** Processes one record. */
  handler: ConsumerHandler;
  /** ioredis client (standalone or Cluster) for acks, claims and dead letters; duplicated for blocking reads. The caller keeps owning it. */
  redis: IoredisClient;
  /** Basic `{username, password}` or `{token}`; needs MEMBER when the coordinator authenticates heartbeats. @default none */
  credentials?: Credentials | undefined;
  /** @default globalThis.fetch */
  fetch?: FetchLike | undefined;
  /**
   * Base of member ids (`<memberBase>-m<i>`), sanitized to `[A-Za-z0-9._-]` and kept exactly
   * otherwise. Give each process its own: the coordinator refuses a member id another live
   * process holds (409 MEMBER_ID_IN_USE). A fixed base lets a restarted process take its ids
   * back once the old process's lease has run out.
   * @default `<POD_IP env, else the host name>-<pid>-<6 random hex>` (unique per process)
   */
  memberBase?: string | undefined;
  /** `COUNT` of every read. @default 10 */
  pollBatchSize?: number | undefined;
  /** `BLOCK` of every read of new entries, ms. @default 1000 */
  blockMs?: number | undefined;
  /** Records handled at once by one member, over all its shards (shared fairly). @default pollBatchSize */
  maxInFlightPerMember?: number | undefined;
  /** Records handled at once per shard; 1 handles a shard in order (until a retry). @default maxInFlightPerMember */
  maxInFlightPerShard?: number | undefined;
  /** Deliveries before a record goes to the dead-letter stream. @default 5 */
  maxDeliveries?: number | undefined;
  /** Stream receiving records past `maxDeliveries`. @default `<streamPrefix>:dlq` */
  deadLetterStream?: string | undefined;
  /** Delay before re-delivering a failed record, by delivery count. @default { baseMs: 1000, factor: 2, maxMs: 60000 } */
  retryBackoff?: RetryBackoff | undefined;
  /** Entries pending under another consumer are claimed once idle this long, ms. @default 10000 */
  claimMinIdleMs?: number | undefined;
  /** How often each read loop looks for due retries and orphaned entries, ms. @default 1000 */
  pendingScanIntervalMs?: number | undefined;
  /** Heartbeat interval until the coordinator's first answer sets it, ms. @default 3000 */
  heartbeatIntervalMs?: number | undefined;
  /** Timeout of one heartbeat request, ms (also capped at the local lease). @default 5000 */
  requestTimeoutMs?: number | undefined;
  /**
   * Longest wait for one Redis reply, ms (a blocking read: `blockMs` plus this); past it the
   * command fails with a retriable, in-doubt `RedisCommandError` reported as an `error` event,
   * and the member carries on (docs/consuming.md#when-the-consumers-redis-is-unreachable). @default 10000
   */
  redisTimeoutMs?: number | undefined;
  /**
   * Called with the connection errors of `redis` when it has no `error` listener of its own, and
   * with those of the read connections duplicated from it.
   * @default one line on `console.warn`, then at most one every 30 s with the count left out
   */
  onConnectionError?: ((err: unknown) => void) | undefined;
  /** Member lease TTL when the answer does not carry `memberLeaseTtlMs` (reference coordinator), ms. @default 15000 */
  fallbackLeaseTtlMs?: number | undefined;
  /** The local lease ends this long before the server's, ms. @default a fifth of the lease TTL, at most 3000 */
  leaseMarginMs?: number | undefined;
  /** Longest wait in `close()` for in-flight work before leaving anyway, ms. @default 30000 */
  shutdownTimeoutMs?: number | undefined;
  /**
   * Send the heartbeats of this process's members that are due together as one request, when
   * the coordinator advertises `BATCH_HEARTBEAT` (single heartbeats otherwise, e.g. against the
   * reference coordinator). `false` always sends one request per member. @default true
   */
  batchHeartbeats?: boolean | undefined;
  /**
   * Fenced acks: claim each granted shard's ownership token (in the shard's Redis slot) before
   * reading it, and ack, ack-delete, claim and dead-letter through a script that checks the
   * token first, so a member that lost the shard (lease ran out, process paused) can never ack
   * entries the new owner is handling. Needs only the epochs every heartbeat answer carries, so
   * it works with the reference coordinator too. `false` sends plain `XACK`/`XCLAIM`. @default true
   */
  fencedAcks?: boolean | undefined;
  /** Event listeners registered before anything starts. @default none */
  listeners?: ConsumerListeners | undefined;
}

/** Options with every default applied. */
export interface ResolvedConsumerOptions {
  coordinatorUrl: string;
  streamPrefix: string;
  consumerGroup: string;
  concurrency: number;
  memberBase: string;
  pollBatchSize: number;
  blockMs: number;
  maxInFlightPerMember: number;
  maxInFlightPerShard: number;
  maxDeliveries: number;
  deadLetterStream: string;
  retryBackoff: Required<RetryBackoff>;
  claimMinIdleMs: number;
  pendingScanIntervalMs: number;
  heartbeatIntervalMs: number;
  requestTimeoutMs: number;
  redisTimeoutMs: number;
  fallbackLeaseTtlMs: number;
  leaseMarginMs: number | null;
  shutdownTimeoutMs: number;
  batchHeartbeats: boolean;
  fencedAcks: boolean;
}

/** Keeps `[A-Za-z0-9._-]`, replacing anything else with `-` (as the reference clients do). */
export function sanitizeMemberBase(raw: string): string {
  return raw.replace(/[^A-Za-z0-9._-]/g, '-');
}

/** Longest member id the coordinator accepts in a path (`MAX_NAME_LENGTH`). */
const MAX_MEMBER_ID_LENGTH = 200;

/**
 * `<host>-<pid>-<6 random hex>`: `host` is `POD_IP` if set, else the host name, sanitized (and
 * cut to 160 characters), `consumer` if both are empty. Unique per process, as Kafka's and
 * KCL's default ids are, so two processes on one host never share member ids.
 */
export function defaultMemberBase(
  env: Record<string, string | undefined> = process.env,
  pid: number = process.pid,
): string {
  const host = (sanitizeMemberBase(env.POD_IP?.trim() || safeHostname()) || 'consumer').slice(0, 160);
  return `${host}-${pid}-${randomBytes(3).toString('hex')}`;
}

/** A random token naming one member object (its process) to the coordinator: 32 hex characters. */
export function newMemberInstanceId(): string {
  return randomBytes(16).toString('hex');
}

function safeHostname(): string {
  try {
    return hostname();
  } catch {
    return '';
  }
}

/** Member ids of a consumer: `<base>-m0 … -m<n-1>`. */
export function memberIds(base: string, concurrency: number): string[] {
  return Array.from({ length: concurrency }, (_, i) => `${base}-m${i}`);
}

/** The retry delay before delivery `deliveryCount + 1`. */
export function backoffMs(b: Required<RetryBackoff>, deliveryCount: number): number {
  const exp = Math.max(0, deliveryCount - 1);
  return Math.min(b.maxMs, Math.round(b.baseMs * b.factor ** exp));
}

/** A boolean option, or its default when absent. */
function flag(name: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new InvalidOptionsError(`createConsumer: ${name} must be a boolean`);
  return value;
}

/** Validates `options` and applies defaults; throws `InvalidOptionsError`. */
export function resolveConsumerOptions(options: ConsumerOptions): ResolvedConsumerOptions {
  const bad = (why: string) => new InvalidOptionsError(`createConsumer: ${why}`);
  if (!options || typeof options !== 'object') throw bad('options are required');
  const { streamPrefix } = options;
  if (typeof streamPrefix !== 'string' || streamPrefix.trim() === '' || /[{}]/.test(streamPrefix)) {
    throw bad('streamPrefix must be a non-blank string without { or }');
  }
  const consumerGroup = options.consumerGroup ?? streamPrefix;
  if (typeof consumerGroup !== 'string' || consumerGroup.trim() === '')
    throw bad('consumerGroup must be non-blank');
  if (typeof options.coordinatorUrl !== 'string' || options.coordinatorUrl === '') {
    throw bad('coordinatorUrl is required');
  }
  if (typeof options.handler !== 'function') throw bad('handler must be a function');
  if (options.onConnectionError !== undefined && typeof options.onConnectionError !== 'function')
    throw bad('onConnectionError must be a function');
  const redis = options.redis as { duplicate?: unknown; xack?: unknown } | undefined;
  if (!redis || typeof redis.duplicate !== 'function' || typeof redis.xack !== 'function') {
    throw bad('redis must be an ioredis Redis or Cluster client');
  }
  const int = (name: string, value: number, min: number, max = Number.MAX_SAFE_INTEGER) => {
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      throw bad(`${name} must be an integer in [${min}, ${max}], got ${value}`);
    }
    return value;
  };
  const memberBase = sanitizeMemberBase(options.memberBase ?? defaultMemberBase());
  if (memberBase === '') throw bad('memberBase is empty after sanitizing');
  const concurrency = int('concurrency', options.concurrency ?? 1, 1, 1024);
  const longest = memberIds(memberBase, concurrency).at(-1) ?? '';
  if (longest.length > MAX_MEMBER_ID_LENGTH) {
    throw bad(
      `memberBase is too long: member id ${longest.slice(0, 40)}… exceeds ${MAX_MEMBER_ID_LENGTH} characters`,
    );
  }
  const pollBatchSize = int('pollBatchSize', options.pollBatchSize ?? 10, 1, 100_000);
  const maxInFlightPerMember = int('maxInFlightPerMember', options.maxInFlightPerMember ?? pollBatchSize, 1);
  const backoff = options.retryBackoff ?? {};
  const retryBackoff = {
    baseMs: int('retryBackoff.baseMs', backoff.baseMs ?? 1000, 0),
    factor: backoff.factor ?? 2,
    maxMs: int('retryBackoff.maxMs', backoff.maxMs ?? 60_000, 0),
  };
  if (!(typeof retryBackoff.factor === 'number' && retryBackoff.factor >= 1 && retryBackoff.factor <= 100)) {
    throw bad('retryBackoff.factor must be a number in [1, 100]');
  }
  const deadLetterStream = options.deadLetterStream ?? `${streamPrefix}:dlq`;
  if (typeof deadLetterStream !== 'string' || deadLetterStream === '')
    throw bad('deadLetterStream must be non-empty');
  const fallbackLeaseTtlMs = int('fallbackLeaseTtlMs', options.fallbackLeaseTtlMs ?? 15_000, 100);
  const leaseMarginMs =
    options.leaseMarginMs === undefined ? null : int('leaseMarginMs', options.leaseMarginMs, 0);
  return {
    coordinatorUrl: options.coordinatorUrl,
    streamPrefix,
    consumerGroup,
    concurrency,
    memberBase,
    pollBatchSize,
    blockMs: int('blockMs', options.blockMs ?? 1000, 1),
    maxInFlightPerMember,
    maxInFlightPerShard: int('maxInFlightPerShard', options.maxInFlightPerShard ?? maxInFlightPerMember, 1),
    maxDeliveries: int('maxDeliveries', options.maxDeliveries ?? 5, 1),
    deadLetterStream,
    retryBackoff,
    claimMinIdleMs: int('claimMinIdleMs', options.claimMinIdleMs ?? 10_000, 0),
    pendingScanIntervalMs: int('pendingScanIntervalMs', options.pendingScanIntervalMs ?? 1000, 1),
    heartbeatIntervalMs: int('heartbeatIntervalMs', options.heartbeatIntervalMs ?? 3000, 1),
    requestTimeoutMs: int('requestTimeoutMs', options.requestTimeoutMs ?? 5000, 1),
    redisTimeoutMs: int('redisTimeoutMs', options.redisTimeoutMs ?? 10_000, 1),
    fallbackLeaseTtlMs,
    leaseMarginMs,
    shutdownTimeoutMs: int('shutdownTimeoutMs', options.shutdownTimeoutMs ?? 30_000, 0),
    batchHeartbeats: flag('batchHeartbeats', options.batchHeartbeats, true),
    fencedAcks: flag('fencedAcks', options.fencedAcks, true),
  };
}

/** The local lease margin for a server lease of `ttlMs`. */
export function leaseMargin(o: Pick<ResolvedConsumerOptions, 'leaseMarginMs'>, ttlMs: number): number {
  if (o.leaseMarginMs !== null) return Math.min(o.leaseMarginMs, ttlMs);
  return Math.min(3000, Math.ceil(ttlMs / 5));
}
