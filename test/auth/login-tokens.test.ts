/**
 * Login (body and header), bearer tokens (expired, forged, tampered), Basic failures, the
 * exact 401/403 answers, and the session view — over the real stack.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toBase64Url, utf8 } from '../../src/http/auth/bytes.js';
import { encodeToken, importTokenKey } from '../../src/http/auth/token.js';
import { backends, uniquePrefix } from '../support/redis.js';
import {
  type AuthStack,
  basic,
  basicFor,
  credentialsEnv,
  makeAuthStack,
  PASSWORDS,
  TOKEN_SECRET,
  tokenFor,
} from './support.js';

const backend = backends[0]!;
const LOGIN = '/coord/v1/auth/login';
const GROUPS = '/coord/v1/monitoring/groups';
const ALL_ROLES = ['ADMIN', 'MEMBER', 'MONITOR', 'READ', 'WRITE'];
const CHALLENGE = 'Basic realm="redis-stream-coordinator"';
const WEEK = 604_800;

describe('auth > login', () => {
  let s: AuthStack;
  beforeAll(() => {
    s = makeAuthStack(backend, credentialsEnv());
  });
  afterAll(() => s.close());

  it('issues a bearer token for a username/password body (admin: all five roles, 7 days)', async () => {
    const r = await s.send('POST', LOGIN, { body: { username: 'admin', password: PASSWORDS.admin } });
    expect(r.status).toBe(200);
    const expiry = Math.floor(s.stack.clock.now() / 1000) + WEEK;
    expect(r.json).toEqual({
      accessToken: expect.stringMatching(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/),
      tokenType: 'Bearer',
      expiresAt: new Date(expiry * 1000).toISOString(),
      expiresInSeconds: WEEK,
      roles: ALL_ROLES,
    });
    const use = await s.send('GET', GROUPS, { authorization: `Bearer ${r.json.accessToken}` });
    expect(use.status).toBe(200);
  });

  it("uses the request's own Basic header when the body is absent or its username blank", async () => {
    const absent = await s.send('POST', LOGIN, { authorization: basicFor('writer') });
    expect(absent.status).toBe(200);
    expect(absent.json.roles).toEqual(['WRITE']);
    const blank = await s.send('POST', LOGIN, {
      authorization: basicFor('reader'),
      body: { username: '  ', password: 'ignored' },
    });
    expect(blank.status).toBe(200);
    expect(blank.json.roles).toEqual(['READ']);
  });

  it('re-issues a token presented as Bearer (same user and roles), never past its expiry', async () => {
    const first = await tokenFor(s, 'monitor');
    const expiry = Math.floor(s.stack.clock.now() / 1000) + WEEK;
    s.stack.clock.advance(60_000);
    const r = await s.send('POST', LOGIN, { authorization: `Bearer ${first}` });
    expect(r.status).toBe(200);
    expect(r.json.roles).toEqual(['MONITOR']);
    expect(r.json.expiresAt).toBe(new Date(expiry * 1000).toISOString());
    expect(r.json.expiresInSeconds).toBe(WEEK - 60);
    const session = await s.send('GET', '/coord/v1/monitoring/session', {
      authorization: `Bearer ${r.json.accessToken}`,
    });
    expect(session.json).toEqual({ authenticated: true, username: 'monitor', roles: ['MONITOR'] });
  });

  it('prefers the body pair over the header when the body names a user', async () => {
    const r = await s.send('POST', LOGIN, {
      authorization: basicFor('admin'),
      body: { username: 'member', password: PASSWORDS.member },
    });
    expect(r.json.roles).toEqual(['MEMBER']);
  });

  it.each([
    ['a wrong password in the body', { body: { username: 'admin', password: 'nope' } }],
    ['an unknown user in the body', { body: { username: 'mallory', password: PASSWORDS.admin } }],
    ['a body user without password', { body: { username: 'admin' } }],
    ['a wrong Basic password', { authorization: basic('admin', 'nope') }],
    ['a forged bearer token', { authorization: 'Bearer abc.def' }],
    ['no credentials at all', {}],
  ])('answers 401 to %s (JSON body, challenge header)', async (_label, opts) => {
    const r = await s.send('POST', LOGIN, opts);
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe(CHALLENGE);
    expect(r.json).toEqual({
      status: 'UNAUTHORIZED',
      errorCode: 'UNAUTHORIZED',
      message: 'Invalid coordinator credentials',
      requestId: expect.any(String),
    });
  });

  it('answers 400 INVALID_REQUEST to a malformed body without echoing it', async () => {
    const r = await s.send('POST', LOGIN, { body: `{"username":"admin","password":"${PASSWORDS.admin}"` });
    expect(r.status).toBe(400);
    expect(r.json.errorCode).toBe('INVALID_REQUEST');
    expect(r.text).not.toContain(PASSWORDS.admin);
    expect((await s.send('POST', LOGIN, { body: { username: 7 } })).status).toBe(400);
  });
});

describe('auth > bearer tokens', () => {
  let s: AuthStack;
  beforeAll(() => {
    s = makeAuthStack(
      backend,
      credentialsEnv({ COORDINATOR_TOKEN_SECRET: TOKEN_SECRET, COORDINATOR_TOKEN_TTL_SECONDS: '3600' }),
    );
  });
  afterAll(() => s.close());

  it('accepts a token until its expiry and refuses it from then on (manual clock)', async () => {
    const token = await tokenFor(s, 'reader');
    const start = s.stack.clock.now();
    const expiryMs = (Math.floor(start / 1000) + 3600) * 1000;
    s.stack.clock.set(expiryMs - 1);
    expect((await s.send('GET', GROUPS, { authorization: `Bearer ${token}` })).status).toBe(200);
    s.stack.clock.set(expiryMs);
    const expired = await s.send('GET', GROUPS, { authorization: `Bearer ${token}` });
    expect(expired.status).toBe(401);
    expect(expired.text).toBe('');
    expect(expired.headers.get('www-authenticate')).toBe(CHALLENGE);
    expect((await s.send('POST', LOGIN, { authorization: `Bearer ${token}` })).status).toBe(401);
    s.stack.clock.set(start);
  });

  it('accepts tokens from another instance that shares the secret (stateless)', async () => {
    const other = makeAuthStack(
      backend,
      credentialsEnv({ COORDINATOR_TOKEN_SECRET: TOKEN_SECRET, COORDINATOR_TOKEN_TTL_SECONDS: '3600' }),
      { namespace: s.stack.config.keyPrefix, clock: s.stack.clock },
    );
    try {
      const token = await tokenFor(other, 'writer');
      const p = uniquePrefix('stateless');
      const r = await s.send('POST', `/coord/v1/streams/${p}`, {
        authorization: `Bearer ${token}`,
        body: { requestedBy: 'me', initialShardCount: 1 },
      });
      expect(r.status).toBe(201);
    } finally {
      await other.close();
    }
  });

  it('refuses tokens signed with another secret, tampered payloads and garbage', async () => {
    const now = s.stack.clock.now();
    const future = Math.floor(now / 1000) + 600;
    const forged = await encodeToken(await importTokenKey('some-other-secret-0123456789'), {
      username: 'admin',
      roles: ['ADMIN'],
      expiresAtSeconds: future,
    });
    const real = await tokenFor(s, 'reader');
    const mac = real.split('.')[1]!;
    const raised = `${toBase64Url(utf8(`v1\nreader\n${future}\nADMIN,READ`))}.${mac}`;
    for (const token of [forged, raised, `${real}x`, real.split('.')[0]!, `${real}.x`, 'e30.e30', '']) {
      const r = await s.send('DELETE', `/coord/v1/streams/x/groups/y`, {
        authorization: `Bearer ${token}`,
        body: { requestedBy: 'me' },
      });
      expect(r.status, token).toBe(401);
      expect(r.text).toBe('');
    }
  });

  it('accepts a correctly signed reference-format token minted outside the coordinator for a configured user', async () => {
    const mint = async (username: string) =>
      encodeToken(await importTokenKey(TOKEN_SECRET), {
        username,
        roles: ['READ'],
        expiresAtSeconds: Math.floor(s.stack.clock.now() / 1000) + 60,
      });
    const r = await s.send('GET', '/coord/v1/monitoring/session', {
      authorization: `Bearer ${await mint('reader')}`,
    });
    expect(r.json).toEqual({ authenticated: true, username: 'reader', roles: ['READ'] });
    // A user the configuration does not know is refused, however well signed.
    const unknown = await s.send('GET', GROUPS, { authorization: `Bearer ${await mint('external')}` });
    expect(unknown.status).toBe(401);
  });
});

describe('auth > Basic credentials and the 401/403 answers', () => {
  let s: AuthStack;
  beforeAll(() => {
    s = makeAuthStack(backend, credentialsEnv());
  });
  afterAll(() => s.close());

  it.each([
    ['a wrong password', basic('admin', `${PASSWORDS.admin}x`)],
    ['another user\u2019s password', basic('reader', PASSWORDS.writer)],
    ['an unknown user', basic('nobody', PASSWORDS.admin)],
    ['a username in the wrong case', basic('ADMIN', PASSWORDS.admin)],
    ['malformed base64', 'Basic %%%'],
    ['an unsupported scheme', 'Digest username="admin"'],
    ['no header', undefined],
  ])('answers 401 with an empty body and the exact challenge to %s', async (_label, authorization) => {
    const r = await s.send('GET', GROUPS, { authorization });
    expect(r.status).toBe(401);
    expect(r.text).toBe('');
    expect(r.headers.get('www-authenticate')).toBe(CHALLENGE);
  });

  it('answers 403 with an empty body and no challenge to a role that does not suffice', async () => {
    const r = await s.send('POST', `/coord/v1/streams/${uniquePrefix('deny')}`, {
      authorization: basicFor('reader'),
      body: { requestedBy: 'me' },
    });
    expect(r.status).toBe(403);
    expect(r.text).toBe('');
    expect(r.headers.get('www-authenticate')).toBeNull();
  });

  it('keeps the admin pair working next to COORDINATOR_USERS, scheme case-insensitive', async () => {
    const auth = basicFor('admin').replace('Basic', 'bAsIc');
    expect((await s.send('GET', GROUPS, { authorization: auth })).status).toBe(200);
  });

  it('reports the session of the authenticated principal', async () => {
    const admin = await s.send('GET', '/coord/v1/monitoring/session', { authorization: basicFor('admin') });
    expect(admin.json).toEqual({ authenticated: true, username: 'admin', roles: ALL_ROLES });
    const writer = await s.send('GET', '/coord/v1/monitoring/session', { authorization: basicFor('writer') });
    expect(writer.json).toEqual({ authenticated: true, username: 'writer', roles: ['WRITE'] });
  });
});

describe('auth > hashed passwords', () => {
  // pbkdf2-sha256 of 'pä:ss$word' (1000 iterations), computed with Python's hashlib.
  const HASH = 'pbkdf2-sha256$1000$MDEyMzQ1Njc4OWFiY2RlZg==$MhGR4n1MKekouMR0+9b/8AfOgPOZQkRYiV0O4Y5z5VA=';
  let s: AuthStack;
  beforeAll(() => {
    s = makeAuthStack(backend, {
      COORDINATOR_ADMIN_PASSWORD_HASH: HASH,
      COORDINATOR_USERS: `ops:${HASH}:WRITE`,
      COORDINATOR_TOKEN_SECRET: TOKEN_SECRET,
    });
  });
  afterAll(() => s.close());

  it('authenticates hashed admin and user passwords over Basic, repeatedly, and refuses wrong ones', async () => {
    for (let i = 0; i < 3; i++) {
      expect((await s.send('GET', GROUPS, { authorization: basic('admin', 'pä:ss$word') })).status).toBe(200);
      expect((await s.send('GET', GROUPS, { authorization: basic('ops', 'pä:ss$word') })).status).toBe(200);
    }
    expect((await s.send('GET', GROUPS, { authorization: basic('ops', 'pä:ss$wor') })).status).toBe(401);
    expect((await s.send('GET', GROUPS, { authorization: basic('admin', HASH) })).status).toBe(401);
  });

  it('logs a hashed user in with a body', async () => {
    const r = await s.send('POST', LOGIN, { body: { username: 'ops', password: 'pä:ss$word' } });
    expect(r.status).toBe(200);
    expect(r.json.roles).toEqual(['WRITE']);
  });
});

describe('auth > open mode login and session', () => {
  let s: AuthStack;
  beforeAll(() => {
    s = makeAuthStack(backend, {});
  });
  afterAll(() => s.close());

  it('answers login with a usable token for an anonymous principal holding every role', async () => {
    const r = await s.send('POST', LOGIN, { body: { username: 'whoever', password: 'whatever' } });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ tokenType: 'Bearer', expiresInSeconds: WEEK, roles: ALL_ROLES });
    expect((await s.send('GET', GROUPS, { authorization: `Bearer ${r.json.accessToken}` })).status).toBe(200);
    expect((await s.send('POST', LOGIN)).status).toBe(200);
  });

  it('reports an unauthenticated session that may do everything', async () => {
    const r = await s.send('GET', '/coord/v1/monitoring/session');
    expect(r.json).toEqual({ authenticated: false, username: null, roles: ALL_ROLES });
  });
});
