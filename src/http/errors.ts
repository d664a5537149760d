/**
 * Every error the HTTP layer answers, in one place: `CoordinatorError` → status and
 * `ErrorResponse {status, errorCode, message}`; validation issues → 400 `INVALID_REQUEST`;
 * unknown route → 404; wrong method → 405; anything unexpected → 500 with a generic message.
 */
import type { Context, ErrorHandler, NotFoundHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { z } from 'zod';
import { CoordinatorError, isCoordinatorError } from '../core/errors.js';
import type { Logger } from './context.js';
import type { ErrorResponseJson } from './schemas.js';

/** HTTP status → the enum name the reference puts in `ErrorResponse.status`. */
export const HTTP_STATUS_NAMES: Readonly<Record<number, string>> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  408: 'REQUEST_TIMEOUT',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'UNPROCESSABLE_ENTITY',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL_SERVER_ERROR',
  502: 'BAD_GATEWAY',
  503: 'SERVICE_UNAVAILABLE',
  504: 'GATEWAY_TIMEOUT',
};

/** The only message a 500 ever carries: details go to the log, never to the client. */
export const INTERNAL_ERROR_MESSAGE = 'Internal coordinator error';

/** An `ErrorResponse` JSON response. */
export function errorResponse(
  status: number,
  errorCode: string,
  message: string,
  headers?: Record<string, string>,
): Response {
  const body: ErrorResponseJson = { status: HTTP_STATUS_NAMES[status] ?? String(status), errorCode, message };
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/**
 * `res` with `requestId` added to its body when that body is an `ErrorResponse` (status and
 * headers kept); undefined for any other answer, which stays as it is. Only error answers are
 * read, and those are small.
 */
export async function withRequestId(res: Response, requestId: string): Promise<Response | undefined> {
  if (res.status < 400 || !res.headers.get('content-type')?.startsWith('application/json')) return undefined;
  const body: unknown = await res
    .clone()
    .json()
    .catch(() => undefined);
  if (!isErrorBody(body) || 'requestId' in body) return undefined;
  const headers = new Headers(res.headers);
  headers.delete('content-length');
  return new Response(JSON.stringify({ ...body, requestId }), { status: res.status, headers });
}

function isErrorBody(body: unknown): body is ErrorResponseJson {
  if (typeof body !== 'object' || body === null) return false;
  const b = body as Record<string, unknown>;
  return typeof b.status === 'string' && typeof b.errorCode === 'string' && typeof b.message === 'string';
}

/** The response for a `CoordinatorError`; `INTERNAL_ERROR` never carries its detail to the client. */
function coordinatorErrorResponse(err: CoordinatorError): Response {
  const headers: Record<string, string> = {};
  const retryAfter = err.details?.retryAfterSeconds;
  if (typeof retryAfter === 'number' && Number.isFinite(retryAfter)) {
    headers['retry-after'] = String(Math.max(0, Math.ceil(retryAfter)));
  }
  if (err.details?.closeConnection === true) headers.connection = 'close';
  const message = err.code === 'INTERNAL_ERROR' ? INTERNAL_ERROR_MESSAGE : err.message;
  return errorResponse(err.status, err.code, message, headers);
}

/** A 400 `INVALID_REQUEST` whose message is `field: reason; …`. */
export function invalidRequest(problems: string[]): CoordinatorError {
  return new CoordinatorError('INVALID_REQUEST', problems.join('; '));
}

/** `a.b[0].c` for a zod issue path, prefixed with `root` when given. */
function fieldPath(path: readonly PropertyKey[], root: string): string {
  let out = root;
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? String(seg) : `.${String(seg)}`;
  }
  return out === '' ? 'body' : out;
}

/** Turns zod issues into `field: reason` strings (`root` names the object they belong to). */
export function describeIssues(issues: readonly z.core.$ZodIssue[], root = ''): string[] {
  return issues.map((i) => `${fieldPath(i.path, root)}: ${i.message}`);
}

/** The 413 answer for a body over the configured limit. */
export function payloadTooLarge(maxBytes: number): CoordinatorError {
  return new CoordinatorError('PAYLOAD_TOO_LARGE', `request body exceeds ${maxBytes} bytes`, {
    details: { closeConnection: true },
  });
}

/** `app.onError`: maps every thrown value to a response and logs what the client must not see. */
export function createErrorHandler(log: Logger): ErrorHandler {
  return (err, c) => {
    if (isCoordinatorError(err)) {
      const fields = {
        requestId: c.get('requestId'),
        method: c.req.method,
        path: c.req.path,
        code: err.code,
        status: err.status,
      };
      if (err.status >= 500) log(err.code === 'INTERNAL_ERROR' ? 'error' : 'warn', err.message, fields);
      // 429s are worth an operator's eye: throttled logins are how a password attack shows.
      else log(err.status === 429 ? 'warn' : 'debug', err.message, fields);
      return coordinatorErrorResponse(err);
    }
    if (err instanceof HTTPException) {
      if (err.status === 413) return errorResponse(413, 'PAYLOAD_TOO_LARGE', 'request body too large');
      return err.getResponse();
    }
    log('error', 'unhandled error', {
      requestId: c.get('requestId'),
      method: c.req.method,
      path: c.req.path,
      error: err instanceof Error ? err.message : String(err),
      stack: err instanceof Error ? err.stack : undefined,
    });
    return errorResponse(500, 'INTERNAL_ERROR', INTERNAL_ERROR_MESSAGE);
  };
}

/** `app.notFound`: unknown routes answer a JSON 404. */
export const notFoundHandler: NotFoundHandler = (c) =>
  errorResponse(404, 'NOT_FOUND', `no route for ${c.req.method} ${c.req.path}`);

/** Answer for a known path called with a method it does not serve. */
export function methodNotAllowedResponse(c: Context, methods: string[]): Response {
  return errorResponse(405, 'METHOD_NOT_ALLOWED', `${c.req.method} is not supported for ${c.req.path}`, {
    allow: methods.join(', '),
  });
}
