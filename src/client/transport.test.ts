import { describe, expect, it } from 'vitest';
import { CoordinatorHttpError, CoordinatorResponseError, CoordinatorUnreachableError } from './errors.js';
import {
  authorizationHeader,
  CoordinatorTransport,
  type FetchLike,
  producerRoutingPath,
} from './transport.js';

/** A fetch that records what it was asked and answers with `reply`. */
function recording(reply: () => Response | Promise<Response>) {
  const seen: Array<{ url: string; init: RequestInit }> = [];
  const fetch: FetchLike = (url, init) => {
    seen.push({ url, init });
    return reply();
  };
  return { fetch, seen };
}

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

/** The rejection of `p` (typed loosely: tests look at fields of several error classes). */
const failure = (p: Promise<unknown>) => p.then(unexpected, (e: Error) => e);
function unexpected(): never {
  throw new Error('expected a rejection');
}

const header = (init: RequestInit, name: string) => (init.headers as Record<string, string>)[name];

describe('transport > requests', () => {
  it('joins the base URL and the percent-encoded routing path', async () => {
    const { fetch, seen } = recording(() => json({ ok: 1 }));
    const t = new CoordinatorTransport({ baseUrl: 'http://coord:8080/', fetch });
    expect(await t.get(producerRoutingPath('a b', 'g/1'))).toEqual({ ok: 1 });
    expect(seen[0]!.url).toBe('http://coord:8080/coord/v1/streams/a%20b/groups/g%2F1/producer-routing');
    expect(seen[0]!.init.method).toBe('GET');
    expect(header(seen[0]!.init, 'authorization')).toBeUndefined();
  });

  it('tolerates a base URL that already ends in /coord/v1', async () => {
    const { fetch, seen } = recording(() => json({}));
    await new CoordinatorTransport({ baseUrl: 'http://coord:8080/coord/v1', fetch }).get('/coord/v1/x');
    expect(seen[0]!.url).toBe('http://coord:8080/coord/v1/x');
  });

  it('sends a JSON body with its content type', async () => {
    const { fetch, seen } = recording(() => json({}));
    await new CoordinatorTransport({ baseUrl: 'http://c', fetch }).request('POST', '/coord/v1/y', { a: 1 });
    expect(seen[0]!.init.body).toBe('{"a":1}');
    expect(header(seen[0]!.init, 'content-type')).toBe('application/json');
  });
});

describe('transport > credentials', () => {
  it('sends Basic credentials as base64 of UTF-8 user:password', async () => {
    expect(authorizationHeader({ username: 'admin', password: 'pässwörd' })).toBe(
      `Basic ${Buffer.from('admin:pässwörd', 'utf8').toString('base64')}`,
    );
  });

  it('sends a bearer token as is', async () => {
    const { fetch, seen } = recording(() => json({}));
    await new CoordinatorTransport({ baseUrl: 'http://c', fetch, credentials: { token: 'tok.sig' } }).get(
      '/z',
    );
    expect(header(seen[0]!.init, 'authorization')).toBe('Bearer tok.sig');
  });

  it('takes user:password from the URL as Basic credentials and drops it from the URL', async () => {
    const { fetch, seen } = recording(() => json({}));
    await new CoordinatorTransport({ baseUrl: 'http://u:s%3Acret@c:1', fetch }).get('/z');
    expect(seen[0]!.url).toBe('http://c:1/z');
    expect(header(seen[0]!.init, 'authorization')).toBe(
      authorizationHeader({ username: 'u', password: 's:cret' }),
    );
  });

  it('never puts the password or token into an error message', async () => {
    const secret = 'hunter2-very-secret';
    const leaky: FetchLike = (_url, init) => {
      throw new TypeError(`boom ${secret} ${header(init, 'authorization')}`);
    };
    for (const credentials of [{ username: 'admin', password: secret }, { token: secret }]) {
      const t = new CoordinatorTransport({ baseUrl: 'http://c', fetch: leaky, credentials });
      const err = await failure(t.get('/z'));
      expect(err).toBeInstanceOf(CoordinatorUnreachableError);
      expect(err.message).not.toContain(secret);
      expect(err.message).not.toContain(authorizationHeader(credentials).split(' ')[1]);
    }
  });
});

describe('transport > typed errors', () => {
  it('maps a refused connection to COORDINATOR_UNREACHABLE (retryable)', async () => {
    const t = new CoordinatorTransport({
      baseUrl: 'http://c',
      fetch: () => Promise.reject(new TypeError('fetch failed')),
    });
    const err = await failure(t.get('/z'));
    expect(err).toMatchObject({ code: 'COORDINATOR_UNREACHABLE', retryable: true, timedOut: false });
  });

  it('gives up after timeoutMs even when the fetch ignores its abort signal', async () => {
    let signal: AbortSignal | undefined;
    const t = new CoordinatorTransport({
      baseUrl: 'http://c',
      timeoutMs: 5,
      fetch: (_url, init) => {
        signal = init.signal ?? undefined;
        return new Promise<Response>(() => {});
      },
    });
    const err = await failure(t.get('/z'));
    expect(err).toMatchObject({ code: 'COORDINATOR_UNREACHABLE', timedOut: true });
    expect(signal?.aborted).toBe(true);
  });

  it('maps an ErrorResponse to COORDINATOR_HTTP_ERROR with status and errorCode', async () => {
    const body = {
      status: 'SERVICE_UNAVAILABLE',
      errorCode: 'COORDINATOR_STATE_MUTEX_UNAVAILABLE',
      message: 'busy',
    };
    const t = new CoordinatorTransport({ baseUrl: 'http://c', fetch: () => json(body, 503) });
    const err = await failure(t.get('/z'));
    expect(err).toBeInstanceOf(CoordinatorHttpError);
    expect(err).toMatchObject({
      status: 503,
      errorCode: 'COORDINATOR_STATE_MUTEX_UNAVAILABLE',
      retryable: true,
    });
    expect(err.message).toContain('busy');
  });

  it.each([
    [401, undefined, false],
    [403, undefined, false],
    [404, 'GROUP_NOT_FOUND', false],
    [409, 'STATE_VERSION_CONFLICT', true],
    [429, 'RATE_LIMIT_EXCEEDED', true],
    [500, 'METADATA_CORRUPT', false],
    [502, undefined, true],
  ])('marks %i %s retryable=%s', async (status, errorCode, retryable) => {
    const reply = () =>
      errorCode ? json({ status: 'X', errorCode, message: 'm' }, status) : new Response('', { status });
    const err = await new CoordinatorTransport({ baseUrl: 'http://c', fetch: reply })
      .get('/z')
      .catch((e) => e);
    expect(err).toMatchObject({ code: 'COORDINATOR_HTTP_ERROR', status, retryable });
  });

  it('reports a 2xx answer that is not JSON as COORDINATOR_BAD_RESPONSE', async () => {
    const t = new CoordinatorTransport({
      baseUrl: 'http://c',
      fetch: () => new Response('<html>', { status: 200 }),
    });
    await expect(t.get('/z')).rejects.toBeInstanceOf(CoordinatorResponseError);
  });
});
