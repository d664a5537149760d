/**
 * Typed errors of the SDKs. Every failure a caller sees is a `ClientError` with a stable `code`
 * and a `retryable` flag (kafkajs's `retriable`): retrying the same call later may succeed when
 * it is true. Raw ioredis / @upstash/redis / fetch errors only ever appear as `cause`.
 * Messages never contain credentials, tokens or Redis URLs.
 */

/** Every code a `ClientError` carries. */
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
  | 'INVALID_OPTIONS';

/** Base class of every SDK error. */
export class ClientError extends Error {
  /** Stable machine-readable code. */
  readonly code: ClientErrorCode;
  /** True when the same call may succeed if repeated later (the condition is transient). */
  readonly retryable: boolean;

  constructor(code: ClientErrorCode, message: string, options: { retryable: boolean; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.retryable = options.retryable;
  }
}

/** True when `e` is an SDK error. */
export function isClientError(e: unknown): e is ClientError {
  return e instanceof ClientError;
}

/** The coordinator could not be reached, or did not answer within the timeout. */
export class CoordinatorUnreachableError extends ClientError {
  /** True when the request was abandoned because the timeout ran out. */
  readonly timedOut: boolean;

  constructor(message: string, options: { timedOut: boolean; cause?: unknown }) {
    super('COORDINATOR_UNREACHABLE', message, { retryable: true, cause: options.cause });
    this.timedOut = options.timedOut;
  }
}

/** HTTP statuses worth repeating unchanged (overload, gateway trouble, lock timeouts). */
const RETRYABLE_STATUS = new Set([408, 425, 429, 502, 503, 504]);

/** The coordinator answered with a non-2xx status. */
export class CoordinatorHttpError extends ClientError {
  /** HTTP status of the answer. */
  readonly status: number;
  /** `errorCode` of an `ErrorResponse` body, when there was one. */
  readonly errorCode: string | undefined;
  /** The `ErrorResponse` message, else the start of the body; credentials redacted. @default '' */
  readonly detail: string;

  constructor(status: number, errorCode: string | undefined, message: string, detail = '') {
    super('COORDINATOR_HTTP_ERROR', message, { retryable: isRetryableStatus(status, errorCode) });
    this.status = status;
    this.errorCode = errorCode;
    this.detail = detail;
  }
}

function isRetryableStatus(status: number, errorCode: string | undefined): boolean {
  if (RETRYABLE_STATUS.has(status)) return true;
  if (status === 409) return errorCode === 'STATE_VERSION_CONFLICT';
  // A 500 is usually a passing fault; unreadable metadata is not.
  if (status === 500) return errorCode !== 'METADATA_CORRUPT';
  return false;
}

/** The coordinator answered 2xx with a body that is not JSON. */
export class CoordinatorResponseError extends ClientError {
  constructor(message: string, cause?: unknown) {
    super('COORDINATOR_BAD_RESPONSE', message, { retryable: false, cause });
  }
}

/**
 * No usable routing: the lease ran out (or the route went stale) and the coordinator could not
 * be asked. The producer fails closed rather than guess a shard count.
 */
export class RoutingUnavailableError extends ClientError {
  constructor(message: string, cause?: unknown) {
    super('ROUTING_UNAVAILABLE', message, {
      retryable: cause instanceof ClientError ? cause.retryable : true,
      cause,
    });
  }
}

/** The routing answer breaks the contract (wrong stream or group, shard indexes not exactly 0..n-1). */
export class InvalidRoutingError extends ClientError {
  constructor(message: string) {
    super('INVALID_ROUTING', message, { retryable: false });
  }
}

/** The stream currently has no shards (`shardCount 0`, e.g. after a full drain). */
export class NoShardsError extends ClientError {
  constructor(streamPrefix: string) {
    super('NO_SHARDS', `stream '${streamPrefix}' has no shards to publish to (shardCount 0)`, {
      retryable: false,
    });
  }
}

/** `XADD NOMKSTREAM` kept finding no stream key, even after refreshing the routing. */
export class StreamMissingError extends ClientError {
  /** The last shard stream key that was missing. */
  readonly streamKey: string;
  /** How many attempts were made. */
  readonly attempts: number;

  constructor(streamKey: string, attempts: number) {
    super(
      'STREAM_MISSING',
      `shard stream '${streamKey}' does not exist (after ${attempts} attempt(s) with refreshed routing)`,
      // Routing usually catches up with a resharding within one lease.
      { retryable: true },
    );
    this.streamKey = streamKey;
    this.attempts = attempts;
  }
}

/** A Redis command failed. */
export class RedisCommandError extends ClientError {
  /**
   * True when the command may have been applied although no reply arrived (connection lost or
   * timed out after sending). False when Redis answered with an error (nothing was written).
   */
  readonly inDoubt: boolean;

  constructor(message: string, options: { retryable: boolean; inDoubt: boolean; cause?: unknown }) {
    super('REDIS_ERROR', message, options);
    this.inDoubt = options.inDoubt;
  }
}

/** The record passed to `publish` is malformed. */
export class InvalidRecordError extends ClientError {
  constructor(message: string) {
    super('INVALID_RECORD', message, { retryable: false });
  }
}

/** An SDK option is out of range. */
export class InvalidOptionsError extends ClientError {
  constructor(message: string) {
    super('INVALID_OPTIONS', message, { retryable: false });
  }
}
