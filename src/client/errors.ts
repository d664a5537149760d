/**
 * Typed errors of the SDKs, one hierarchy as in kafkajs (`KafkaJSError`): every failure the
 * producer, the consumer and the transport report is a `ClientError` with a stable `code`, a
 * `retriable` flag (retrying the same call later may succeed) and the standard `cause`. Raw
 * ioredis / @upstash/redis / fetch errors only ever appear as `cause`. Messages never contain
 * credentials, tokens or Redis URLs. The consumer's own errors (consumer-errors.ts) extend
 * `ConsumerError`, itself a `ClientError`.
 */
import type { ConsumerErrorCode } from './consumer-errors.js';

/** Every code a `ClientError` carries: the producer's and transport's, and the consumer's. */
export type ClientErrorCode =
  | 'COORDINATOR_UNREACHABLE'
  | 'COORDINATOR_HTTP_ERROR'
  | 'COORDINATOR_BAD_RESPONSE'
  | 'ROUTING_UNAVAILABLE'
  | 'INVALID_ROUTING'
  | 'NO_SHARDS'
  | 'STREAM_MISSING'
  | 'REDIS_ERROR'
  | 'INVALID_RECORD'
  | 'INVALID_OPTIONS'
  | ConsumerErrorCode;

/** What every SDK error is built with: whether it is retriable, and what caused it. */
export type ClientErrorOptions = { cause?: unknown } & (
  | { retriable: boolean }
  | {
      /** @deprecated Spell it `retriable`; this spelling is still read so existing adapters compile. */
      retryable: boolean;
    }
);

/** Base class of every SDK error (the consumer's `ConsumerError` included). */
export class ClientError extends Error {
  /** Stable machine-readable code. */
  readonly code: ClientErrorCode;
  /** True when the same call may succeed if repeated later (the condition is transient). */
  readonly retriable: boolean;

  constructor(code: ClientErrorCode, message: string, options: ClientErrorOptions) {
    // No `cause` key at all when there is none, so `'cause' in err` tells the two apart.
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.retriable = 'retriable' in options ? options.retriable : options.retryable;
  }

  /** @deprecated Spelled `retriable` now, as kafkajs spells it; this alias keeps older code working. */
  get retryable(): boolean {
    return this.retriable;
  }
}

/** True when `e` is an SDK error. */
export function isClientError(e: unknown): e is ClientError {
  return e instanceof ClientError;
}

/** True when `err` is an SDK error whose condition is transient; false for anything else. */
export function isRetriable(err: unknown): boolean {
  return err instanceof ClientError && err.retriable;
}

/** The coordinator could not be reached, or did not answer within the timeout. */
export class CoordinatorUnreachableError extends ClientError {
  /** True when the request was abandoned because the timeout ran out. */
  readonly timedOut: boolean;

  constructor(message: string, options: { timedOut: boolean; cause?: unknown }) {
    // Retriable: a timeout or a lost connection says nothing about the next attempt.
    super('COORDINATOR_UNREACHABLE', message, { retriable: true, cause: options.cause });
    this.timedOut = options.timedOut;
  }
}

/** HTTP statuses worth repeating unchanged (overload, gateway trouble, lock timeouts). */
const RETRIABLE_STATUS = new Set([408, 425, 429, 502, 503, 504]);

/** The coordinator answered with a non-2xx status. */
export class CoordinatorHttpError extends ClientError {
  /** HTTP status of the answer. */
  readonly status: number;
  /** `errorCode` of an `ErrorResponse` body, when there was one. */
  readonly errorCode: string | undefined;
  /** The `ErrorResponse` message, else the start of the body; credentials redacted. @default '' */
  readonly detail: string;

  constructor(status: number, errorCode: string | undefined, message: string, detail = '', cause?: unknown) {
    // Retriable by status: transient answers yes; bad input, auth, not-found and conflicts no.
    super('COORDINATOR_HTTP_ERROR', message, { retriable: isRetriableStatus(status, errorCode), cause });
    this.status = status;
    this.errorCode = errorCode;
    this.detail = detail;
  }
}

function isRetriableStatus(status: number, errorCode: string | undefined): boolean {
  if (RETRIABLE_STATUS.has(status)) return true;
  // Only a lost optimistic-lock race is worth repeating; other 409s (member id held, group
  // limit reached) need something else to change first.
  if (status === 409) return errorCode === 'STATE_VERSION_CONFLICT';
  // A 500 is usually a passing fault; unreadable metadata is not.
  if (status === 500) return errorCode !== 'METADATA_CORRUPT';
  return false;
}

/** The coordinator answered 2xx with a body that is not JSON. */
export class CoordinatorResponseError extends ClientError {
  constructor(message: string, cause?: unknown) {
    // Not retriable: whatever answers 2xx with non-JSON (a wrong URL, a proxy page) will again.
    super('COORDINATOR_BAD_RESPONSE', message, { retriable: false, cause });
  }
}

/**
 * No usable routing: the lease ran out (or the route went stale) and the coordinator could not
 * be asked. The producer fails closed rather than guess a shard count.
 */
export class RoutingUnavailableError extends ClientError {
  constructor(message: string, cause?: unknown) {
    // As retriable as the SDK failure underneath (an unknown stream is not); otherwise a
    // passing fault is assumed.
    super('ROUTING_UNAVAILABLE', message, {
      retriable: cause instanceof ClientError ? cause.retriable : true,
      cause,
    });
  }
}

/** The routing answer breaks the contract (wrong stream or group, shard indexes not exactly 0..n-1). */
export class InvalidRoutingError extends ClientError {
  constructor(message: string, cause?: unknown) {
    // Not retriable: the coordinator will give the same broken answer again.
    super('INVALID_ROUTING', message, { retriable: false, cause });
  }
}

/** The stream currently has no shards (`shardCount 0`, e.g. after a full drain). */
export class NoShardsError extends ClientError {
  constructor(streamPrefix: string, cause?: unknown) {
    // Not retriable: shards come back only when an operator scales the stream up.
    super('NO_SHARDS', `stream '${streamPrefix}' has no shards to publish to (shardCount 0)`, {
      retriable: false,
      cause,
    });
  }
}

/** `XADD NOMKSTREAM` kept finding no stream key, even after refreshing the routing. */
export class StreamMissingError extends ClientError {
  /** The last shard stream key that was missing. */
  readonly streamKey: string;
  /** How many attempts were made. */
  readonly attempts: number;

  constructor(streamKey: string, attempts: number, cause?: unknown) {
    super(
      'STREAM_MISSING',
      `shard stream '${streamKey}' does not exist (after ${attempts} attempt(s) with refreshed routing); ` +
        "the coordinator creates every shard stream, so this producer's Redis is likely not the coordinator's: " +
        'check its REDIS_URL (`npm start` prints the one of its private Redis)',
      // Retriable: routing usually catches up with a resharding within one lease.
      { retriable: true, cause },
    );
    this.streamKey = streamKey;
    this.attempts = attempts;
  }
}

/**
 * A Redis command failed. Whoever builds it decides `retriable` (see `toRedisCommandError`):
 * a lost reply or a transient refusal (LOADING, TRYAGAIN, …) is, any other refusal is not.
 */
export class RedisCommandError extends ClientError {
  /**
   * True when the command may have been applied although no reply arrived (connection lost or
   * timed out after sending). False when Redis answered with an error (nothing was written).
   */
  readonly inDoubt: boolean;

  constructor(message: string, options: ClientErrorOptions & { inDoubt: boolean }) {
    super('REDIS_ERROR', message, options);
    this.inDoubt = options.inDoubt;
  }
}

/** The record passed to `publish` is malformed. */
export class InvalidRecordError extends ClientError {
  constructor(message: string, cause?: unknown) {
    // Not retriable: the same record is refused the same way.
    super('INVALID_RECORD', message, { retriable: false, cause });
  }
}

/** An SDK option is out of range. */
export class InvalidOptionsError extends ClientError {
  constructor(message: string, cause?: unknown) {
    // Not retriable: the same options are refused the same way.
    super('INVALID_OPTIONS', message, { retriable: false, cause });
  }
}
