/**
 * Login hardening over the real stack: failed logins throttled per client and per
 * username, PBKDF2 work bounded, no token secret derived from a password, and tokens checked
 * against the configuration in force (no renewal past the original expiry: login-tokens).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pbkdf2Sha256 } from '../../src/http/auth/password.js';
import { decodeToken, importTokenKey } from '../../src/http/auth/token.js';
import { backends, uniquePrefix } from '../support/redis.js';
import { heartbeatBody } from '../support/stack.js';
import {
  type AuthStack,
  basic,
  basicFor,
  credentialsEnv,
  makeAuthStack,
  PASSWORDS,
  tokenFor,
} from './support.js';

const backend = backends[0]!;
const LOGIN = '/coord/v1/auth/login';
const GROUPS = '/coord/v1/monitoring/groups';
const CLIENT = 'x-test-client';

/** The stack with the caller's address taken from a test header. */
function throttledStack(env: Record<string, string> = {}): AuthStack {
  return makeAuthStack(
    backend,
    credentialsEnv(env),
    {},
    { clientAddress: (c) => c.req.header(CLIENT) ?? null },
  );
}

function loginAs(s: AuthStack, user: string, password: string, client: string) {
  return s.send('POST', LOGIN, { body: { username: user, password }, headers: { [CLIENT]: client } });
}

describe('auth > failed logins are throttled (13.3)', () => {
  const stacks: AuthStack[] = [];
  afterEach(async () => {
    await Promise.all(stacks.splice(0).map((s) => s.close()));
  });

  it('refuses a client with 429 LOGIN_THROTTLED and Retry-After after 30 failures a minute, even with the right password', async () => {
    const s = throttledStack();
    stacks.push(s);
    for (let i = 0; i < 30; i++) expect((await loginAs(s, 'admin', `wrong-${i}`, 'c1')).status).toBe(401);
    const refused = await loginAs(s, 'admin', PASSWORDS.admin, 'c1');
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({ errorCode: 'LOGIN_THROTTLED' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Basic on the API counts the same way.
    const api = await s.send('GET', GROUPS, {
      authorization: basicFor('admin'),
      headers: { [CLIENT]: 'c1' },
    });
    expect(api.status).toBe(429);
    // Other clients are unaffected; the client itself is served again in the next window.
    expect((await loginAs(s, 'admin', PASSWORDS.admin, 'c2')).status).toBe(200);
    s.stack.clock.advance(61_000);
    expect((await loginAs(s, 'admin', PASSWORDS.admin, 'c1')).status).toBe(200);
  });

  it('refuses a username after 100 failures a minute from any clients, except clients it accepted before', async () => {
    const s = throttledStack();
    stacks.push(s);
    expect((await loginAs(s, 'reader', PASSWORDS.reader, 'member-host')).status).toBe(200);
    for (let i = 0; i < 100; i++) expect((await loginAs(s, 'reader', 'guess', `bot-${i}`)).status).toBe(401);
    const fresh = await loginAs(s, 'reader', PASSWORDS.reader, 'new-host');
    expect(fresh.status).toBe(429);
    expect(fresh.json).toMatchObject({ errorCode: 'LOGIN_THROTTLED' });
    expect((await loginAs(s, 'reader', PASSWORDS.reader, 'member-host')).status).toBe(200);
    // An unknown username is throttled the same way, so a 429 does not tell which names exist.
    for (let i = 0; i < 100; i++) expect((await loginAs(s, 'ghost', 'guess', `bot-${i}`)).status).toBe(401);
    expect((await loginAs(s, 'ghost', 'guess', 'new-host')).status).toBe(429);
    // Bearer tokens are never throttled: they cost an HMAC, not a password check.
    const token = await tokenFor(s, 'writer');
    expect(
      (await s.send('GET', '/coord/v1/monitoring/session', { authorization: `Bearer ${token}` })).status,
    ).toBe(200);
  });

  it('runs at most 2 PBKDF2 checks at once: the rest answer 429 AUTHENTICATION_BUSY at once; heartbeats carry on', async () => {
    const salt = new Uint8Array(16).fill(7);
    const hash = await pbkdf2Sha256('slow-password', salt, 400_000, 32);
    const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
    const s = throttledStack({
      COORDINATOR_USERS: `slow:pbkdf2-sha256$400000$${b64(salt)}$${b64(hash)}:READ,member:${PASSWORDS.member}:MEMBER`,
    });
    stacks.push(s);
    const p = uniquePrefix('busy');
    const admin = { authorization: basicFor('admin') };
    expect(
      (
        await s.send('POST', `/coord/v1/streams/${p}`, {
          ...admin,
          body: { requestedBy: 'me', initialShardCount: 2 },
        })
      ).status,
    ).toBe(201);
    const memberToken = await tokenFor(s, 'member');
    const wrong = Array.from({ length: 16 }, (_, i) =>
      s.send('GET', GROUPS, { authorization: basic('slow', `wrong-${i}`), headers: { [CLIENT]: `h${i}` } }),
    );
    const beat = s.send('POST', `/coord/v1/streams/${p}/groups/${p}/members/m-1/heartbeat`, {
      authorization: `Bearer ${memberToken}`,
      body: heartbeatBody('m-1', p, { epoch: 0, mv: 0 }),
    });
    const answers = await Promise.all(wrong);
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((x) => x === 401).length).toBeLessThanOrEqual(2);
    expect(statuses.filter((x) => x === 429).length).toBeGreaterThanOrEqual(14);
    expect(answers.find((r) => r.status === 429)?.json).toMatchObject({ errorCode: 'AUTHENTICATION_BUSY' });
    expect((await beat).status).toBe(200);
  });
});

describe('auth > the token secret is never derived from a password (13.4)', () => {
  let s: AuthStack;
  beforeAll(() => {
    s = makeAuthStack(backend, credentialsEnv());
  });
  afterAll(() => s.close());

  it('signs with a random secret kept in Redis, which the reference formula does not reproduce', async () => {
    const token = await tokenFor(s, 'reader');
    const now = s.stack.clock.now();
    const derived = await importTokenKey(`admin:${PASSWORDS.admin}:redis-stream-coordinator-token`);
    expect(await decodeToken(derived, token, now)).toBeNull();
    const stored = await s.stack.redis.get(`${s.stack.config.keyPrefix}:auth:token-secret`);
    expect(stored).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await decodeToken(await importTokenKey(stored!), token, now)).toMatchObject({
      username: 'reader',
    });
  });

  it('shares the generated secret with every instance of the namespace, and no other', async () => {
    const token = await tokenFor(s, 'writer');
    const same = makeAuthStack(backend, credentialsEnv(), {
      namespace: s.stack.config.keyPrefix,
      clock: s.stack.clock,
    });
    const other = makeAuthStack(backend, credentialsEnv(), { clock: s.stack.clock });
    try {
      const auth = { authorization: `Bearer ${token}` };
      expect((await same.send('GET', '/coord/v1/monitoring/session', auth)).json).toMatchObject({
        username: 'writer',
      });
      await tokenFor(other, 'writer');
      expect((await other.send('GET', GROUPS, auth)).status).toBe(401);
    } finally {
      await Promise.all([same.close(), other.close()]);
    }
  });

  it('accepts tokens of COORDINATOR_TOKEN_SECRET_PREVIOUS while signing with the new secret (rotation)', async () => {
    const OLD = 'the-old-token-secret-0123456789';
    const NEW = 'the-new-token-secret-0123456789';
    const before = makeAuthStack(backend, credentialsEnv({ COORDINATOR_TOKEN_SECRET: OLD }), {
      clock: s.stack.clock,
    });
    const during = makeAuthStack(
      backend,
      credentialsEnv({ COORDINATOR_TOKEN_SECRET: NEW, COORDINATOR_TOKEN_SECRET_PREVIOUS: OLD }),
      { clock: s.stack.clock },
    );
    const after = makeAuthStack(backend, credentialsEnv({ COORDINATOR_TOKEN_SECRET: NEW }), {
      clock: s.stack.clock,
    });
    try {
      const old = { authorization: `Bearer ${await tokenFor(before, 'reader')}` };
      expect((await during.send('GET', GROUPS, old)).status).toBe(200);
      expect((await after.send('GET', GROUPS, old)).status).toBe(401);
      const renewed = await tokenFor(during, 'reader');
      expect((await after.send('GET', GROUPS, { authorization: `Bearer ${renewed}` })).status).toBe(200);
    } finally {
      await Promise.all([before.close(), during.close(), after.close()]);
    }
  });
});

describe('auth > tokens follow the configuration in force (13.10)', () => {
  it("refuses a removed user's token and narrows a demoted user's token to the roles still held", async () => {
    const SECRET = 'shared-secret-for-13-10-0123456789';
    const users = (entries: string[]) => ({
      COORDINATOR_TOKEN_SECRET: SECRET,
      COORDINATOR_USERS: entries.join(','),
    });
    const before = makeAuthStack(
      backend,
      credentialsEnv(users([`writer:${PASSWORDS.writer}:WRITE|READ`, `reader:${PASSWORDS.reader}:READ`])),
    );
    const after = makeAuthStack(backend, credentialsEnv(users([`writer:${PASSWORDS.writer}:READ`])), {
      namespace: before.stack.config.keyPrefix,
      clock: before.stack.clock,
    });
    try {
      const reader = { authorization: `Bearer ${await tokenFor(before, 'reader')}` };
      const writer = { authorization: `Bearer ${await tokenFor(before, 'writer')}` };
      expect((await after.send('GET', GROUPS, reader)).status).toBe(401);
      expect((await after.send('GET', GROUPS, writer)).status).toBe(200);
      const create = await after.send('POST', `/coord/v1/streams/${uniquePrefix('demoted')}`, {
        ...writer,
        body: { requestedBy: 'me', initialShardCount: 1 },
      });
      expect(create.status).toBe(403);
      expect((await after.send('GET', '/coord/v1/monitoring/session', writer)).json.roles).toEqual(['READ']);
      // Renewing the narrowed token keeps it narrow.
      expect((await after.send('POST', LOGIN, writer)).json.roles).toEqual(['READ']);
    } finally {
      await Promise.all([before.close(), after.close()]);
    }
  });
});

describe('auth > MEMBER credentials scoped to streams (13.12)', () => {
  it('lets a scoped member heartbeat only in its streams, with Basic and with a token', async () => {
    const inScope = uniquePrefix('orders-scoped');
    const outOfScope = uniquePrefix('payments');
    const s = makeAuthStack(
      backend,
      credentialsEnv({ COORDINATOR_MEMBER_STREAMS: 'member=t-orders-scoped-*|audit' }),
    );
    try {
      for (const p of [inScope, outOfScope]) {
        const created = await s.send('POST', `/coord/v1/streams/${p}`, {
          authorization: basicFor('admin'),
          body: { requestedBy: 'me', initialShardCount: 1 },
        });
        expect(created.status).toBe(201);
      }
      const token = `Bearer ${await tokenFor(s, 'member')}`;
      for (const authorization of [basicFor('member'), token]) {
        const beat = (p: string) =>
          s.send('POST', `/coord/v1/streams/${p}/groups/${p}/members/m-1/heartbeat`, {
            authorization,
            body: heartbeatBody('m-1', p, { epoch: 0, mv: 0 }),
          });
        expect((await beat(inScope)).status).toBe(200);
        const refused = await beat(outOfScope);
        expect(refused.status).toBe(403);
        expect(refused.text).toBe('');
      }
      // Nothing was registered in the stream outside the scope.
      const group = await s.send('GET', `/coord/v1/streams/${outOfScope}/groups/${outOfScope}`, {
        authorization: basicFor('admin'),
      });
      expect(group.status).toBe(200);
      expect(JSON.stringify(group.json)).not.toContain('m-1');
    } finally {
      await s.close();
    }
  });
});
