/**
 * How the store reads a failed Redis call, whatever the client: a CoordinatorError that names
 * what to fix and never a connection detail, and a fixed phrase for health details. The port
 * says whether Redis answered and what a reply means for the deployment.
 */
import { CoordinatorError, isCoordinatorError } from '../core/errors.js';
import type { RedisPort } from '../redis/port.js';
import { TRANSIENT_REPLY } from '../redis/replies.js';

/** Maps a failed call on `port` to a CoordinatorError. */
export function storeFailure(port: RedisPort, err: unknown): CoordinatorError {
  if (isCoordinatorError(err)) return err;
  const text = port.replyText(err);
  if (text === null) {
    // The command may still have run: a commit is then in doubt, as after a lost reply.
    const message = port.timedOut(err)
      ? `${port.label} did not answer in time`
      : `${port.label} is unavailable`;
    return new CoordinatorError('REDIS_UNAVAILABLE', message, { cause: err });
  }
  const refusal = port.refusal(text);
  if (refusal) return new CoordinatorError('REDIS_UNAVAILABLE', refusal.message, { cause: err });
  if (TRANSIENT_REPLY.test(text)) {
    return new CoordinatorError('REDIS_UNAVAILABLE', 'Redis is temporarily unavailable', { cause: err });
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

/** Why a PING failed, as a fixed phrase (never the reply text: it may name users or hosts). */
export function pingError(port: RedisPort, err: unknown): string {
  const text = port.replyText(err);
  if (text === null) return 'unreachable';
  const refusal = port.refusal(text);
  if (refusal) return refusal.phrase;
  const word = TRANSIENT_REPLY.exec(text)?.[1];
  return word ? `not serving (${word})` : 'error reply';
}
