/**
 * The CLI's HTTP client for `/coord/v1`: one request function that turns every outcome into
 * either parsed JSON or a `CliFailure` carrying the exit code scripts rely on.
 */

/** Exit codes of the CLI (documented in `--help` and the README). */
export const EXIT = {
  OK: 0,
  /** Bad command line: unknown command or option, missing argument, invalid value. */
  USAGE: 1,
  /** The API refused the request (4xx other than 401/403): the errorCode is printed. */
  CLIENT_ERROR: 2,
  /** The API failed (5xx) or could not be reached. */
  SERVER_ERROR: 3,
  /** Authentication failed (401) or the role does not allow the request (403). */
  AUTH: 4,
} as const;

/** An outcome that ends the command with a non-zero exit code and a message on stderr. */
export class CliFailure extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'CliFailure';
  }
}

/** A command-line mistake (exit 1). */
export function usageError(message: string): CliFailure {
  return new CliFailure(EXIT.USAGE, message);
}

/** How requests authenticate. */
export type Credentials =
  | { kind: 'none' }
  | { kind: 'basic'; user: string; password: string }
  | { kind: 'bearer'; token: string; source: 'option' | 'env' | 'file' };

/** Where and how to talk to the coordinator. */
export interface ApiTarget {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:8080`. */
  url: string;
  credentials: Credentials;
  /** Per-request timeout, ms. */
  timeoutMs: number;
}

/** `Authorization` header value for the credentials, if any. */
export function authorizationHeader(c: Credentials): string | null {
  if (c.kind === 'basic') return `Basic ${Buffer.from(`${c.user}:${c.password}`, 'utf8').toString('base64')}`;
  if (c.kind === 'bearer') return `Bearer ${c.token}`;
  return null;
}

/** `/coord/v1/<segments…>` with every segment percent-encoded (as the Python client does). */
export function apiPath(...segments: Array<string | number>): string {
  return `/coord/v1/${segments.map((s) => encodeURIComponent(String(s))).join('/')}`;
}

function describeUnreachable(err: unknown): string {
  if (err instanceof Error && err.name === 'TimeoutError') return 'timed out';
  const cause =
    err instanceof Error ? (err.cause as { code?: string; message?: string } | undefined) : undefined;
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}

function authHint(c: Credentials): string {
  if (c.kind === 'none') return 'no credentials given: use --user/--password, --token, or run `login`';
  if (c.kind === 'bearer' && c.source === 'file') return 'the stored token was refused: run `login` again';
  return 'check the credentials';
}

/** The failure for a non-2xx answer. */
function httpFailure(status: number, body: unknown, text: string, c: Credentials): CliFailure {
  if (status === 401) return new CliFailure(EXIT.AUTH, `HTTP 401 unauthorized: ${authHint(c)}`);
  if (status === 403)
    return new CliFailure(EXIT.AUTH, 'HTTP 403 forbidden: your role does not allow this request');
  const code = status >= 500 ? EXIT.SERVER_ERROR : EXIT.CLIENT_ERROR;
  const e = body as { errorCode?: unknown; message?: unknown } | null;
  if (e && typeof e.errorCode === 'string') {
    return new CliFailure(code, `HTTP ${status} ${e.errorCode}: ${String(e.message ?? '')}`);
  }
  return new CliFailure(code, `HTTP ${status}${text ? `: ${text.slice(0, 300)}` : ''}`);
}

/** Sends one request and returns the parsed JSON body of a 2xx answer; throws `CliFailure` otherwise. */
export async function apiRequest(
  target: ApiTarget,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<unknown> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const auth = authorizationHeader(target.credentials);
  if (auth) headers.authorization = auth;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(`${target.url}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(target.timeoutMs),
    });
  } catch (err) {
    throw new CliFailure(EXIT.SERVER_ERROR, `cannot reach ${target.url}: ${describeUnreachable(err)}`);
  }
  const text = await res.text().catch(() => '');
  let parsed: unknown = null;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    parsed = null;
  }
  if (!res.ok) throw httpFailure(res.status, parsed, text, target.credentials);
  return parsed;
}
