/**
 * Errors of the consumer SDK: `ConsumerError`s, which are `ClientError`s (errors.ts) with a
 * consumer code, beside the producer's errors the consumer also reports as they are
 * (coordinator unreachable, HTTP errors, Redis failures). Consumer errors mostly surface through
 * the `error` event: the consumer itself never stops on them.
 */
import { ClientError, type ClientErrorOptions } from './errors.js';

/** Codes of consumer-specific errors. */
export type ConsumerErrorCode =
  | 'HEARTBEAT_REJECTED'
  | 'MEMBER_ID_IN_USE'
  | 'HANDLER_FAILED'
  | 'CONSUMER_CLOSED'
  | 'INVALID_HEARTBEAT_RESPONSE'
  | 'OWNERSHIP_LOST'
  | 'SHARD_GROUP_MISSING';

/** Base class of consumer-specific errors; a `ClientError`, so one `instanceof` covers the SDK. */
export class ConsumerError extends ClientError {
  /** Stable machine-readable code (one of the consumer's). */
  declare readonly code: ConsumerErrorCode;

  // Narrows `code` to the consumer's codes; fields, `name` and `cause` are ClientError's.
  constructor(code: ConsumerErrorCode, message: string, options: ClientErrorOptions) {
    super(code, message, options);
  }
}

/**
 * The coordinator refused a heartbeat: `UNSUPPORTED_PROTOCOL` or `INVALID_REQUEST`, or a join
 * answered `UNKNOWN_MEMBER_ID` (no such group) or `FENCED_MEMBER_EPOCH`. The member stops
 * reading (fails closed) and keeps asking to (re)join at the heartbeat interval.
 */
export class HeartbeatRejectedError extends ConsumerError {
  /** The heartbeat status the coordinator answered. */
  readonly status: string;

  constructor(memberId: string, status: string, cause?: unknown) {
    // Not retriable: a bad or unsupported request, an unknown group or a fenced epoch is refused again.
    super('HEARTBEAT_REJECTED', `member '${memberId}': heartbeat answered ${status}`, {
      retriable: false,
      cause,
    });
    this.status = status;
  }
}

/**
 * The coordinator refused the member id: another live process uses it (409
 * `MEMBER_ID_IN_USE`). The member reads nothing and asks to join again at a slow pace (once per
 * member lease), so a restarted process with a fixed `memberBase` gets its ids back once the
 * old process's lease has run out. Two running processes need distinct `memberBase`s.
 */
export class MemberIdInUseError extends ConsumerError {
  /** The member id another process holds. */
  readonly memberId: string;

  constructor(memberId: string, cause?: unknown) {
    super(
      'MEMBER_ID_IN_USE',
      `member '${memberId}': the coordinator says another process uses this member id; give each process a unique memberBase`,
      // Retriable: a crashed holder's lease runs out, and the member asks again once per lease.
      { retriable: true, cause },
    );
    this.memberId = memberId;
  }
}

/** True when `err` is the coordinator's 409 `MEMBER_ID_IN_USE` answer. */
export function isMemberIdInUseAnswer(err: unknown): boolean {
  const e = err as { status?: unknown; errorCode?: unknown } | null;
  return !!e && e.status === 409 && e.errorCode === 'MEMBER_ID_IN_USE';
}

/** A heartbeat answer was 2xx but not a usable `HeartbeatResponse`. */
export class InvalidHeartbeatResponseError extends ConsumerError {
  constructor(message: string, cause?: unknown) {
    // Not retriable: a coordinator that breaks the answer's contract breaks it again.
    super('INVALID_HEARTBEAT_RESPONSE', message, { retriable: false, cause });
  }
}

/** The handler threw (or answered `'retry'`): the record stays pending and is retried later. */
export class HandlerFailedError extends ConsumerError {
  /** Shard stream key of the record. */
  readonly streamKey: string;
  /** Entry id of the record. */
  readonly entryId: string;
  /** Deliveries of the record so far (this one included). */
  readonly deliveryCount: number;

  constructor(streamKey: string, entryId: string, deliveryCount: number, cause: unknown) {
    super(
      'HANDLER_FAILED',
      `handler failed for ${streamKey} ${entryId} (delivery ${deliveryCount}): ${errorText(cause)}`,
      // Retriable: the record stays pending and is delivered again after the backoff.
      { retriable: true, cause },
    );
    this.streamKey = streamKey;
    this.entryId = entryId;
    this.deliveryCount = deliveryCount;
  }
}

/** `start()` was called on a consumer that is closing or closed. */
export class ConsumerClosedError extends ConsumerError {
  constructor(cause?: unknown) {
    // Not retriable: a closed consumer never starts again; build a new one.
    super('CONSUMER_CLOSED', 'the consumer is closed', { retriable: false, cause });
  }
}

/** One-line text of a thrown value (handler errors go into the dead-letter stream as text). */
export function errorText(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  if (typeof err === 'string') return err;
  if (err === undefined) return 'handler asked for a retry';
  try {
    return JSON.stringify(err) ?? String(err);
  } catch {
    return String(err);
  }
}

/**
 * A fenced write was refused: the shard's ownership token in Redis names a newer owner (or
 * none), so this member no longer owns the shard. Nothing was written; the member stops reading
 * the shard at once and its heartbeats sort out the assignment.
 */
export class OwnershipLostError extends ConsumerError {
  /** Who holds the token now (null: nobody). */
  readonly heldBy: { epoch: number; memberId: string } | null;

  constructor(
    readonly streamKey: string,
    readonly operation: string,
    heldBy: { epoch: number; memberId: string } | null,
    cause?: unknown,
  ) {
    const who = heldBy ? `member ${heldBy.memberId} at epoch ${heldBy.epoch}` : 'nobody';
    // Not retriable: this member is fenced off the shard; only a new assignment lets it write.
    super('OWNERSHIP_LOST', `${operation} ${streamKey} refused: the shard is now owned by ${who}`, {
      retriable: false,
      cause,
    });
    this.heldBy = heldBy;
  }
}

/**
 * Redis answered NOGROUP for a shard the coordinator assigned: the shard stream or its consumer
 * group does not exist on the consumer's Redis. The coordinator creates both for every shard
 * before assigning it, so the consumer's Redis is most likely not the coordinator's. The member
 * keeps trying (the stream may be created again); the message names the server as host:port only.
 */
export class ShardGroupMissingError extends ConsumerError {
  /** The shard stream key. */
  readonly streamKey: string;
  /** The consumer group. */
  readonly group: string;
  /** The consumer's Redis as `host:port` (never a URL or a password). */
  readonly server: string;

  constructor(streamKey: string, group: string, server: string, cause?: unknown) {
    super(
      'SHARD_GROUP_MISSING',
      `shard stream '${streamKey}' or its consumer group '${group}' does not exist on this consumer's Redis (${server}); ` +
        "the coordinator creates both for every shard it assigns, so this Redis is likely not the coordinator's " +
        "(or the stream was deleted): check the consumer's REDIS_URL (`npm start` prints the one of its private Redis)",
      // Not retriable: the same read fails the same way until the consumer uses the coordinator's Redis.
      { retriable: false, cause },
    );
    this.streamKey = streamKey;
    this.group = group;
    this.server = server;
  }
}
