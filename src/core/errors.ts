/**
 * The one error type of the coordinator. Every layer throws `CoordinatorError`; the HTTP
 * layer maps `code` to a status and an `ErrorResponse` body in one place.
 */

/** Every error code the coordinator answers with, and its HTTP status. */
export const ERROR_STATUS = {
  INVALID_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  GROUP_NOT_FOUND: 404,
  STREAM_NOT_FOUND: 404,
  MIGRATION_NOT_FOUND: 404,
  NOT_FOUND: 404,
  GROUP_ALREADY_EXISTS: 409,
  STREAM_PREFIX_ALREADY_EXISTS: 409,
  SHARD_COUNT_MISMATCH: 409,
  SHARD_KEY_EXISTS: 409,
  GROUP_HAS_ACTIVE_MEMBERS: 409,
  STREAM_NOT_DRAINED: 409,
  ACTIVE_MIGRATION_EXISTS: 409,
  METADATA_SYNC_IN_PROGRESS: 409,
  STATE_VERSION_CONFLICT: 409,
  MEMBER_ID_IN_USE: 409,
  STREAM_LIMIT_REACHED: 409,
  GROUP_LIMIT_REACHED: 409,
  MEMBER_LIMIT_REACHED: 409,
  REQUEST_TIMEOUT: 408,
  PAYLOAD_TOO_LARGE: 413,
  ROLLBACK_NOT_ALLOWED: 422,
  RATE_LIMIT_EXCEEDED: 429,
  LOGIN_THROTTLED: 429,
  AUTHENTICATION_BUSY: 429,
  METADATA_CORRUPT: 500,
  INTERNAL_ERROR: 500,
  REDIS_NOT_CONFIGURED: 503,
  REDIS_STREAM_PROVISIONING_FAILED: 503,
  REDIS_UNAVAILABLE: 503,
  COORDINATOR_STATE_MUTEX_UNAVAILABLE: 503,
  COORDINATOR_TERMINATING: 503,
  COORDINATOR_BUSY: 503,
} as const;

/** A coordinator error code. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/** Codes a client may retry as-is (the condition is transient). */
const RETRYABLE: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'STATE_VERSION_CONFLICT',
  'RATE_LIMIT_EXCEEDED',
  'LOGIN_THROTTLED',
  'AUTHENTICATION_BUSY',
  'REDIS_STREAM_PROVISIONING_FAILED',
  'REDIS_UNAVAILABLE',
  'COORDINATOR_STATE_MUTEX_UNAVAILABLE',
  'COORDINATOR_TERMINATING',
  'COORDINATOR_BUSY',
  'REQUEST_TIMEOUT',
]);

/** The coordinator's error: a stable `code`, its HTTP `status`, and whether retrying can help. */
export class CoordinatorError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly retryable: boolean;
  readonly details: Record<string, unknown> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { retryable?: boolean; details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CoordinatorError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.retryable = options.retryable ?? RETRYABLE.has(code);
    this.details = options.details;
  }
}

/** True when `e` is a CoordinatorError (also across module copies). */
export function isCoordinatorError(e: unknown): e is CoordinatorError {
  return e instanceof CoordinatorError || (e instanceof Error && e.name === 'CoordinatorError');
}
