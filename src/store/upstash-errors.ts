/**
 * Maps failures of @upstash/redis calls to CoordinatorError without leaking what was sent:
 * the client appends the whole command (documents, lock tokens) to the message of an HTTP
 * error reply ("…, command was: [...]"), so only the Redis error text before it is kept.
 */
import { CoordinatorError, isCoordinatorError } from '../core/errors.js';

// Redis answers with these while it cannot serve (failover, loading, busy script, resharding).
const TRANSIENT_REPLY = /^(LOADING|READONLY|CLUSTERDOWN|TRYAGAIN|MASTERDOWN|BUSY|MOVED|ASK|OOM)\b/;
// The REST endpoint refused the token: a deployment problem, not a Redis one.
const AUTH_REPLY = /^(WRONGPASS|NOAUTH|NOPERM)\b|unauthori[sz]ed|invalid.*token/i;
// Redis behind a self-hosted REST endpoint refuses Upstash's script flag (7.0+: the flag; older:
// the shebang line itself): a deployment problem (docs/workers.md#upstash-key-locking).
const KEY_LOCKING_REFUSED =
  /Unexpected flag in script shebang: allow-key-locking|user_script:1: unexpected symbol near '#'/;

/** The Redis error text of an @upstash/redis error, without the echoed command. */
function upstashErrorText(err: Error): string {
  const cut = err.message.indexOf(', command was: ');
  const text = cut >= 0 ? err.message.slice(0, cut) : err.message;
  return text.split('\n')[0] ?? '';
}

/** True for an error reply from Redis (or the REST endpoint), false for network failures. */
function isUpstashReply(err: unknown): err is Error {
  // UpstashJSONParseError shares the name but means the endpoint answered something else
  // than JSON (a proxy error page): that is an availability problem.
  return (
    err instanceof Error &&
    err.name === 'UpstashError' &&
    !err.message.startsWith('Unable to parse response body')
  );
}

/** Maps a failed Upstash call to a CoordinatorError. */
export function upstashFailure(err: unknown): CoordinatorError {
  if (isCoordinatorError(err)) return err;
  if (!isUpstashReply(err)) {
    return new CoordinatorError('REDIS_UNAVAILABLE', 'Redis (Upstash REST) is unavailable', { cause: err });
  }
  const text = upstashErrorText(err);
  if (TRANSIENT_REPLY.test(text)) {
    return new CoordinatorError('REDIS_UNAVAILABLE', 'Redis is temporarily unavailable', { cause: err });
  }
  if (AUTH_REPLY.test(text)) {
    return new CoordinatorError(
      'REDIS_UNAVAILABLE',
      'the Upstash REST endpoint rejected the configured token (check UPSTASH_REDIS_REST_TOKEN)',
      { cause: err },
    );
  }
  if (KEY_LOCKING_REFUSED.test(text)) {
    return new CoordinatorError(
      'REDIS_UNAVAILABLE',
      "the Redis behind UPSTASH_REDIS_REST_URL refused Upstash's allow-key-locking script flag (it is " +
        'not Upstash): set UPSTASH_KEY_LOCKING=false',
      { cause: err },
    );
  }
  if (text.startsWith('WRONGTYPE')) {
    return new CoordinatorError('METADATA_CORRUPT', 'stored metadata has an unexpected Redis type', {
      cause: err,
    });
  }
  return new CoordinatorError('INTERNAL_ERROR', `Redis rejected a coordinator command: ${text}`, {
    cause: err,
  });
}

/** Why a PING failed, as a fixed phrase for health details (never the reply text). */
export function upstashPingError(err: unknown): string {
  if (!isUpstashReply(err)) return 'unreachable';
  const text = upstashErrorText(err);
  if (AUTH_REPLY.test(text)) return 'credentials refused';
  const word = TRANSIENT_REPLY.exec(text)?.[1];
  return word ? `not serving (${word})` : 'error reply';
}
