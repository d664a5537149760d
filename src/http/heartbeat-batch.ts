/**
 * The batched member heartbeat: one request carries the heartbeats of several
 * members of one group — typically every member of one consumer process — and is answered with
 * one item per heartbeat, each exactly what `POST …/members/{m}/heartbeat` would have answered
 * for that body. The steady heartbeats of the batch are answered first, together, in one store
 * call (each exactly as the single route's fast path answers it); the others then run one after
 * another through the same use-case as the single route (per-member atomicity unchanged); a refusal of one item (409 MEMBER_ID_IN_USE, 409
 * MEMBER_LIMIT_REACHED, 409 STATE_VERSION_CONFLICT, 500 …) is that item's error entry, never
 * the batch's. Once an item answers 503 REDIS_UNAVAILABLE or COORDINATOR_TERMINATING, the items
 * after it are answered the same 503 entry without being attempted: against a Redis that is
 * down each would only wait out its own command timeout, and nothing was written for them — a
 * client retries them exactly as it retries a refused single heartbeat.
 */

import type { CoordinatorConfig } from '../config.js';
import type { CoordinatorApi } from '../coordinator-api.js';
import { CoordinatorError, isCoordinatorError } from '../core/errors.js';
import type { HeartbeatInput, HeartbeatOutput } from '../core/heartbeat-types.js';
import type { Logger } from './context.js';
import { HTTP_STATUS_NAMES, INTERNAL_ERROR_MESSAGE } from './errors.js';
import type { ErrorResponseJson, HeartbeatBatchItemJson, HeartbeatRequestBody } from './schemas.js';
import { heartbeatView } from './views.js';

/** Refusals after which the remaining items of a batch are not attempted. */
const STOPS_BATCH = new Set(['REDIS_UNAVAILABLE', 'COORDINATOR_TERMINATING']);

/** What one batch needs from the app. */
export interface BatchDeps {
  coordinator: Pick<CoordinatorApi, 'heartbeat' | 'steadyHeartbeats'>;
  config: CoordinatorConfig;
  log: Logger;
  /** The single route's body → input mapping (path id = the item's `memberId`). */
  toInput: (body: HeartbeatRequestBody, pathMemberId: string) => HeartbeatInput;
}

/** The `ErrorResponse` the single route's error handler would send for `err`. */
function errorBody(err: CoordinatorError): ErrorResponseJson {
  return {
    status: HTTP_STATUS_NAMES[err.status] ?? String(err.status),
    errorCode: err.code,
    message: err.code === 'INTERNAL_ERROR' ? INTERNAL_ERROR_MESSAGE : err.message,
  };
}

function refusal(memberId: string, err: CoordinatorError): HeartbeatBatchItemJson {
  return { memberId, httpStatus: err.status, heartbeat: null, error: errorBody(err) };
}

/** `err` as the single route's error handler would answer it, logged as that handler logs it. */
function answeredError(deps: BatchDeps, prefix: string, group: string, err: unknown): CoordinatorError {
  const e = isCoordinatorError(err) ? err : new CoordinatorError('INTERNAL_ERROR', 'unexpected error');
  if (!isCoordinatorError(err)) {
    deps.log('error', 'unhandled error in a batched heartbeat', {
      prefix,
      group,
      error: err instanceof Error ? err.message : String(err),
      stack: err instanceof Error ? err.stack : undefined,
    });
  } else if (e.status >= 500) {
    deps.log(e.code === 'INTERNAL_ERROR' ? 'error' : 'warn', e.message, { prefix, group, code: e.code });
  }
  return e;
}

/** Runs every heartbeat of a batch, steady ones first in one call; answers one item per heartbeat, in order. */
export async function runHeartbeatBatch(
  deps: BatchDeps,
  prefix: string,
  group: string,
  items: readonly HeartbeatRequestBody[],
): Promise<HeartbeatBatchItemJson[]> {
  const inputs = items.map((body) => deps.toInput(body, body.memberId));
  let stoppedBy: CoordinatorError | null = null;
  let fast: ReadonlyArray<HeartbeatOutput | null> = [];
  let fastPathTried = false;
  if (deps.coordinator.steadyHeartbeats) {
    try {
      fast = await deps.coordinator.steadyHeartbeats(prefix, group, inputs);
      fastPathTried = true;
    } catch (err) {
      // Nothing was answered: a Redis that is down stops the batch as a first item's 503 would;
      // anything else leaves every item to its own full path.
      const e = answeredError(deps, prefix, group, err);
      if (STOPS_BATCH.has(e.code)) stoppedBy = e;
    }
  }
  const results: HeartbeatBatchItemJson[] = [];
  for (const [i, body] of items.entries()) {
    const answered =
      fast[i] ??
      (stoppedBy ? null : await one(deps, prefix, group, inputs[i] as HeartbeatInput, fastPathTried));
    if (answered instanceof CoordinatorError) {
      results.push(refusal(body.memberId, answered));
      if (STOPS_BATCH.has(answered.code)) stoppedBy = answered;
    } else if (answered) {
      results.push({
        memberId: body.memberId,
        httpStatus: 200,
        heartbeat: heartbeatView(answered, body.requestId, deps.config),
        error: null,
      });
    } else {
      results.push(refusal(body.memberId, stoppedBy as CoordinatorError));
    }
  }
  return results;
}

/** One item on the single route's use-case: its answer, or the error it is refused with. */
async function one(
  deps: BatchDeps,
  prefix: string,
  group: string,
  input: HeartbeatInput,
  fastPathTried: boolean,
): Promise<HeartbeatOutput | CoordinatorError> {
  try {
    return await deps.coordinator.heartbeat(prefix, group, input, { fastPathTried });
  } catch (err) {
    return answeredError(deps, prefix, group, err);
  }
}
