/**
 * HTTP client of the coordinator (`/coord/v1`): base URL, Basic or Bearer credentials
 * (docs/protocol.md#roles), a timeout on every request, and typed errors. Runs on Node and at the edge
 * (only `fetch`, `TextEncoder`, `btoa`); tests hand it `app.request` as `fetch`.
 */
import {
  CoordinatorHttpError,
  CoordinatorResponseError,
  CoordinatorUnreachableError,
  InvalidOptionsError,
} from './errors.js';

/** Basic credentials (what the Spring starter sends) or a bearer token (what the Python client sends). */
export type Credentials = { username: string; password: string } | { token: string };

/** The subset of `fetch` the transport needs; `(url, init) => app.request(url, init)` fits. */
export type FetchLike = (url: string, init: RequestInit) => Response | Promise<Response>;

/** Options of `CoordinatorTransport`. */
export interface TransportOptions {
  /**
   * Coordinator base URL, e.g. `http://127.0.0.1:8080` (a trailing `/coord/v1` is tolerated).
   * `user:password@` in it is taken as Basic credentials and removed from the URL.
   */
  baseUrl: string;
  /** Sent on every request. @default none (open-mode coordinator) */
  credentials?: Credentials | undefined;
  /** @default globalThis.fetch */
  fetch?: FetchLike | undefined;
  /** Longest wait for a whole request (connect, answer and body). @default 5000 */
  timeoutMs?: number | undefined;
}

/** What a conditional GET answered: not modified (304), or a body with its validator. */
export type Conditional<T> =
  | { notModified: true }
  | { notModified: false; body: T; etag: string | undefined };

interface Answer<T> {
  body: T;
  etag: string | undefined;
}

const NOT_MODIFIED = Symbol('not modified');

/** The API base path every route sits under. */
export const API_BASE = '/coord/v1';

/** Path of `GET …/producer-routing` for a stream and group (segments percent-encoded). */
export function producerRoutingPath(streamPrefix: string, consumerGroup: string): string {
  return `${API_BASE}/streams/${encodeURIComponent(streamPrefix)}/groups/${encodeURIComponent(consumerGroup)}/producer-routing`;
}

/** `Authorization` header value for `credentials`. */
export function authorizationHeader(credentials: Credentials): string {
  if ('token' in credentials) return `Bearer ${credentials.token}`;
  return `Basic ${base64Utf8(`${credentials.username}:${credentials.password}`)}`;
}

function base64Utf8(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Longest error body text quoted in an error message. */
const MAX_QUOTED_BODY = 300;

/** Talks JSON to one coordinator. */
export class CoordinatorTransport {
  private readonly base: string;
  private readonly fetchFn: FetchLike;
  private readonly timeoutMs: number;
  private readonly authorization: string | undefined;
  /** Strings that must never appear in an error message. */
  private readonly secrets: string[];

  constructor(opts: TransportOptions) {
    const { base, userinfo } = splitBaseUrl(opts.baseUrl);
    this.base = base;
    const credentials = opts.credentials ?? userinfo;
    const fetchFn = opts.fetch ?? globalThis.fetch?.bind(globalThis);
    if (!fetchFn) throw new InvalidOptionsError('no fetch implementation: pass the `fetch` option');
    this.fetchFn = fetchFn;
    this.timeoutMs = opts.timeoutMs ?? 5000;
    this.authorization = credentials ? authorizationHeader(credentials) : undefined;
    this.secrets = secretsOf(credentials, this.authorization);
  }

  /** GET `path` (absolute, starting with `/coord/v1`) and return the parsed JSON body. */
  get<T>(path: string): Promise<T> {
    return this.request<T>('GET', path);
  }

  /**
   * GET `path` with `If-None-Match: etag` when `etag` is given: a 304 answers `notModified`,
   * a 2xx its parsed body and `ETag` (undefined when the server sends none).
   */
  async getIfNoneMatch<T>(path: string, etag: string | undefined): Promise<Conditional<T>> {
    const answer = await this.send<T>('GET', path, undefined, etag);
    if (answer === NOT_MODIFIED) return { notModified: true };
    return { notModified: false, body: answer.body, etag: answer.etag };
  }

  /** Sends one request and returns the parsed JSON body of a 2xx answer; throws a typed error otherwise. */
  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    return ((await this.send<T>(method, path, body, undefined)) as Answer<T>).body;
  }

  private async send<T>(
    method: string,
    path: string,
    body: unknown,
    ifNoneMatch: string | undefined,
  ): Promise<Answer<T> | typeof NOT_MODIFIED> {
    const what = `${method} ${path}`;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.authorization) headers.authorization = this.authorization;
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (ifNoneMatch !== undefined) headers['if-none-match'] = ifNoneMatch;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Racing a timer as well as aborting covers fetch implementations that ignore the signal
    // (an in-process `app.request`), so a hung coordinator can never hang a publish.
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(
          new CoordinatorUnreachableError(`${what}: no answer within ${this.timeoutMs} ms`, {
            timedOut: true,
          }),
        );
      }, this.timeoutMs);
    });
    try {
      return await Promise.race([
        this.exchange<T>(what, method, path, headers, body, controller.signal),
        timeout,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async exchange<T>(
    what: string,
    method: string,
    path: string,
    headers: Record<string, string>,
    body: unknown,
    signal: AbortSignal,
  ): Promise<Answer<T> | typeof NOT_MODIFIED> {
    let res: Response;
    try {
      const init: RequestInit = { method, headers, signal };
      if (body !== undefined) init.body = JSON.stringify(body);
      res = await this.fetchFn(`${this.base}${path}`, init);
    } catch (err) {
      throw new CoordinatorUnreachableError(`${what} failed: ${this.describe(err)}`, {
        timedOut: false,
        cause: err,
      });
    }
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      throw new CoordinatorUnreachableError(`${what}: reading the answer failed: ${this.describe(err)}`, {
        timedOut: false,
        cause: err,
      });
    }
    // 304 only ever answers a conditional request; to any other it is a malformed answer.
    if (res.status === 304 && 'if-none-match' in headers) return NOT_MODIFIED;
    if (!res.ok) throw this.httpError(what, res.status, text);
    try {
      const parsed = (text === '' ? null : JSON.parse(text)) as T;
      return { body: parsed, etag: res.headers?.get('etag') ?? undefined };
    } catch (err) {
      throw new CoordinatorResponseError(`${what}: answer ${res.status} is not JSON`, err);
    }
  }

  private httpError(what: string, status: number, text: string): CoordinatorHttpError {
    let errorCode: string | undefined;
    let detail = '';
    try {
      const parsed = JSON.parse(text) as { errorCode?: unknown; message?: unknown };
      if (typeof parsed.errorCode === 'string') errorCode = parsed.errorCode;
      if (typeof parsed.message === 'string') detail = parsed.message;
    } catch {
      detail = text.slice(0, MAX_QUOTED_BODY);
    }
    // A JSON body that is not an ErrorResponse (a proxy's, say) is quoted as it came.
    if (errorCode === undefined && detail === '') detail = text.slice(0, MAX_QUOTED_BODY);
    const safe = this.redact(detail);
    const code = errorCode ? ` ${errorCode}` : '';
    const tail = safe ? `: ${safe}` : '';
    return new CoordinatorHttpError(status, errorCode, `${what} answered ${status}${code}${tail}`, safe);
  }

  private describe(err: unknown): string {
    if (err instanceof Error) {
      const cause = err.cause instanceof Error ? ` (${err.cause.message})` : '';
      return this.redact(`${err.name}: ${err.message}${cause}`);
    }
    return 'unknown error';
  }

  private redact(text: string): string {
    let out = text;
    for (const s of this.secrets) out = out.split(s).join('***');
    return out;
  }
}

/** Base URL without trailing slashes, `/coord/v1` or userinfo; the userinfo as credentials. */
function splitBaseUrl(raw: string): { base: string; userinfo?: { username: string; password: string } } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // No cause: URL's TypeError keeps the raw input, credentials and all.
    throw new InvalidOptionsError('coordinatorUrl is not an absolute URL');
  }
  let userinfo: { username: string; password: string } | undefined;
  if (url.username || url.password) {
    userinfo = { username: decodeURIComponent(url.username), password: decodeURIComponent(url.password) };
    url.username = '';
    url.password = '';
  }
  const base = url.href.replace(/\/+$/, '').replace(/\/coord\/v1$/, '');
  return userinfo ? { base, userinfo } : { base };
}

function secretsOf(credentials: Credentials | undefined, authorization: string | undefined): string[] {
  if (!credentials) return [];
  const parts = 'token' in credentials ? [credentials.token] : [credentials.password];
  if (authorization) parts.push(authorization.slice(authorization.indexOf(' ') + 1));
  // Longest first, so a secret containing another is replaced whole.
  return parts.filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
}
