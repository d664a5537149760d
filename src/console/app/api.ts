/**
 * The console's one HTTP client: Bearer token when there is one, JSON both ways, every failure
 * as an `ApiError` with the HTTP status and the API's error code.
 */
import type { AdminMethod } from '../../client/admin-client.js';
import { getToken } from './storage.js';

const API = '/coord/v1';

/** A failed API call (`status` 0 when the coordinator could not be reached). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** `401 UNAUTHORIZED: …` for the status line and alerts. */
export function describeError(e: unknown): string {
  if (!e) return 'unknown error';
  const { status, code, message } = e as Partial<ApiError>;
  return (status ? status + ' ' : '') + (code ? code + ': ' : '') + (message || String(e));
}

/** True for an `ApiError` with that status. */
export function hasStatus(e: unknown, status: number): boolean {
  return e instanceof ApiError && e.status === status;
}

/**
 * Calls the API at `path` (below `/coord/v1`). `asToken`: call with that token instead of the
 * session's (to look at an offered one). Resolves to the JSON body (null when empty).
 */
export async function api<T>(
  method: AdminMethod,
  path: string,
  body?: unknown,
  asToken?: string | null,
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const token = asToken === undefined ? getToken() : asToken;
  if (token) headers.authorization = 'Bearer ' + token;
  // credentials 'omit': the API answers 401 with a Basic challenge, and a request that may send
  // credentials would make the browser pop up its own login dialog instead of returning the 401.
  // The console's only credential is the Bearer header, so nothing is lost.
  const init: RequestInit = { method, headers, cache: 'no-store', credentials: 'omit' };
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res: Response;
  try {
    res = await fetch(API + path, init);
  } catch {
    throw new ApiError(0, 'NETWORK', 'the coordinator is unreachable');
  }
  const text = await res.text();
  let json: { errorCode?: string; error?: string; message?: string } | null = null;
  if (text) {
    try {
      json = JSON.parse(text);
    } catch {
      json = null;
    }
  }
  if (res.ok) return json as T;
  if (res.status === 401)
    throw new ApiError(401, 'UNAUTHORIZED', 'not signed in, or the session has expired');
  if (res.status === 403) throw new ApiError(403, 'FORBIDDEN', 'your roles do not allow this');
  const code = json?.errorCode ? json.errorCode : json?.error ? json.error : 'HTTP_' + res.status;
  throw new ApiError(res.status, code, json?.message ? json.message : res.statusText || 'request failed');
}

/** The answer of a call a panel can do without: its data, or the error to show instead. */
export type Optional<T> = { data: T; error: null } | { data: null; error: unknown };

/** For panels that can do without their data; a 401 still propagates (nothing can be shown). */
export function optional<T>(promise: Promise<T>): Promise<Optional<T>> {
  return promise.then(
    (data): Optional<T> => ({ data, error: null }),
    (e: unknown): Optional<T> => {
      if (hasStatus(e, 401)) throw e;
      return { data: null, error: e };
    },
  );
}
