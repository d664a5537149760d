import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../config.js';

const HASH = 'pbkdf2-sha256$1000$MDEyMzQ1Njc4OWFiY2RlZg==$MhGR4n1MKekouMR0+9b/8AfOgPOZQkRYiV0O4Y5z5VA=';
const SECRET = 'token-secret-0123456789';

function configError(env: Record<string, string>): string {
  try {
    parseConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) return e.message;
    throw e;
  }
  throw new Error('expected a ConfigError');
}

describe('config > authentication', () => {
  it('is open mode (auth null) when no credentials are configured; no built-in password', () => {
    const c = parseConfig({});
    expect(c.auth).toBeNull();
    expect(c.explicitOpenMode).toBe(false);
    expect(c.rateLimitAdminMutationsPerMinute).toBe(0);
    expect(parseConfig({ COORDINATOR_OPEN_MODE: 'true' }).explicitOpenMode).toBe(true);
  });

  it('builds the admin principal with every role, no derived token secret and the defaults', () => {
    const { auth } = parseConfig({ COORDINATOR_ADMIN_PASSWORD: 's3cret' });
    expect(auth).toEqual({
      users: [
        {
          username: 'admin',
          roles: ['ADMIN', 'MEMBER', 'MONITOR', 'READ', 'WRITE'],
          password: { kind: 'plain', password: 's3cret' },
        },
      ],
      tokenSecret: null,
      previousTokenSecret: null,
      tokenTtlSeconds: 604800,
      authenticateMemberApi: true,
      loginFailuresPerClientPerMinute: 30,
      loginFailuresPerUserPerMinute: 100,
      maxConcurrentPasswordHashes: 2,
    });
  });

  it('reads username, TTL, member-auth switch and rate limit', () => {
    const c = parseConfig({
      COORDINATOR_ADMIN_USERNAME: 'root',
      COORDINATOR_ADMIN_PASSWORD: 'pw',
      COORDINATOR_TOKEN_TTL_SECONDS: '3600',
      COORDINATOR_AUTHENTICATE_MEMBER_API: 'false',
      COORDINATOR_TOKEN_SECRET: SECRET,
      COORDINATOR_RATE_LIMIT_ADMIN_MUTATIONS_PER_MINUTE: '30',
      COORDINATOR_RATE_LIMIT_PRINCIPAL_MUTATIONS_PER_MINUTE: '100',
    });
    expect(c.auth).toMatchObject({
      users: [{ username: 'root' }],
      tokenSecret: SECRET,
      tokenTtlSeconds: 3600,
      authenticateMemberApi: false,
    });
    expect(c.rateLimitAdminMutationsPerMinute).toBe(30);
    expect(c.rateLimitPrincipalMutationsPerMinute).toBe(100);
    expect(parseConfig({}).rateLimitPrincipalMutationsPerMinute).toBe(0);
  });

  it('parses COORDINATOR_USERS (plaintext with colons, hashes with $, role lists) and keeps the admin pair', () => {
    const { auth } = parseConfig({
      COORDINATOR_ADMIN_PASSWORD: 'adminpw',
      COORDINATOR_USERS: ` ops:pa:ss:w$rd:WRITE|read , grafana:${HASH}:MONITOR,worker:wpw:member,`,
    });
    expect(auth?.users.map((u) => [u.username, u.roles, u.password.kind])).toEqual([
      ['admin', ['ADMIN', 'MEMBER', 'MONITOR', 'READ', 'WRITE'], 'plain'],
      ['ops', ['READ', 'WRITE'], 'plain'],
      ['grafana', ['MONITOR'], 'pbkdf2'],
      ['worker', ['MEMBER'], 'plain'],
    ]);
    expect(auth?.users[1]?.password).toEqual({ kind: 'plain', password: 'pa:ss:w$rd' });
    expect(auth?.users[2]?.password).toMatchObject({ kind: 'pbkdf2', iterations: 1000 });
  });

  it('accepts users only, with a token secret', () => {
    const { auth } = parseConfig({ COORDINATOR_USERS: 'a:pw:READ', COORDINATOR_TOKEN_SECRET: SECRET });
    expect(auth?.users.map((u) => u.username)).toEqual(['a']);
  });

  it('accepts an admin password hash with a token secret', () => {
    const { auth } = parseConfig({ COORDINATOR_ADMIN_PASSWORD_HASH: HASH, COORDINATOR_TOKEN_SECRET: SECRET });
    expect(auth?.users[0]).toMatchObject({ username: 'admin', password: { kind: 'pbkdf2' } });
  });

  it.each([
    { COORDINATOR_ADMIN_PASSWORD: 's3cret' },
    { COORDINATOR_ADMIN_PASSWORD_HASH: HASH },
    { COORDINATOR_USERS: `a:${HASH}:READ` },
    { COORDINATOR_USERS: 'a:plainpw:READ' },
  ])(
    'never derives the token secret from a password: without one it is generated per deployment (%j)',
    (env) => {
      expect(parseConfig(env).auth).toMatchObject({ tokenSecret: null, previousTokenSecret: null });
    },
  );

  it('scopes MEMBER-only users to streams, and refuses scopes for unknown or broader users', () => {
    const env = { COORDINATOR_ADMIN_PASSWORD: 'pw', COORDINATOR_USERS: 'm:pw:MEMBER,r:pw:READ|MEMBER' };
    const auth = parseConfig({ ...env, COORDINATOR_MEMBER_STREAMS: 'm=orders|pay*' }).auth;
    expect(auth?.users.find((u) => u.username === 'm')?.streams).toEqual(['orders', 'pay*']);
    expect(auth?.users.find((u) => u.username === 'r')?.streams).toBeUndefined();
    expect(configError({ ...env, COORDINATOR_MEMBER_STREAMS: 'r=orders' })).toMatch(
      /entry #1: only users holding MEMBER alone/,
    );
    expect(configError({ ...env, COORDINATOR_MEMBER_STREAMS: 'm=orders,x=orders' })).toMatch(
      /entry #2: names no configured user/,
    );
    expect(configError({ ...env, COORDINATOR_MEMBER_STREAMS: 'm=' })).toMatch(
      /entry #1: expected user=stream/,
    );
    expect(configError({ ...env, COORDINATOR_MEMBER_STREAMS: 'm=*' })).toMatch(
      /entry #1: expected user=stream/,
    );
  });

  it('accepts a previous secret next to the current one, and refuses it alone, equal or short', () => {
    const OTHER = 'previous-secret-0123456789';
    const auth = parseConfig({
      COORDINATOR_ADMIN_PASSWORD: 'pw',
      COORDINATOR_TOKEN_SECRET: SECRET,
      COORDINATOR_TOKEN_SECRET_PREVIOUS: OTHER,
    }).auth;
    expect(auth).toMatchObject({ tokenSecret: SECRET, previousTokenSecret: OTHER });
    expect(
      configError({ COORDINATOR_ADMIN_PASSWORD: 'pw', COORDINATOR_TOKEN_SECRET_PREVIOUS: OTHER }),
    ).toMatch(/COORDINATOR_TOKEN_SECRET_PREVIOUS: needs COORDINATOR_TOKEN_SECRET/);
    expect(
      configError({
        COORDINATOR_ADMIN_PASSWORD: 'pw',
        COORDINATOR_TOKEN_SECRET: SECRET,
        COORDINATOR_TOKEN_SECRET_PREVIOUS: SECRET,
      }),
    ).toMatch(/COORDINATOR_TOKEN_SECRET_PREVIOUS: equals COORDINATOR_TOKEN_SECRET/);
    expect(
      configError({
        COORDINATOR_ADMIN_PASSWORD: 'pw',
        COORDINATOR_TOKEN_SECRET: SECRET,
        COORDINATOR_TOKEN_SECRET_PREVIOUS: 'short',
      }),
    ).toMatch(/COORDINATOR_TOKEN_SECRET_PREVIOUS: must be at least 16 characters/);
    expect(configError({ COORDINATOR_TOKEN_SECRET_PREVIOUS: OTHER })).toMatch(
      /is set but no credentials are configured/,
    );
  });

  it.each([
    ['alice:pw:READ|ROOT', 'entry #1: roles must be among ADMIN, MEMBER, MONITOR, READ, WRITE'],
    ['alice:pw:', 'entry #1: roles must be among'],
    ['ok:pw:READ,alice:pw', 'entry #2: expected user:password:ROLE|ROLE'],
    ['ok:pw:READ,noseparators', 'entry #2: expected user:password:ROLE|ROLE'],
    [':pw:READ', 'entry #1: expected user:password:ROLE|ROLE'],
    ['al ice:pw:READ', 'entry #1: username must be'],
    ['alice::READ', 'entry #1: password is empty'],
    ['a:pw:READ,b:pw:READ,a:pw2:WRITE', 'entry #3: duplicate username'],
    ['alice:pbkdf2-sha256$1000$bad:READ', 'entry #1: expected pbkdf2-sha256$'],
    [' , ', 'COORDINATOR_USERS: has no entries'],
  ])('rejects COORDINATOR_USERS=%j naming the entry, never the password', (users, message) => {
    const msg = configError({ COORDINATOR_USERS: users, COORDINATOR_TOKEN_SECRET: SECRET });
    expect(msg).toContain('COORDINATOR_USERS');
    expect(msg).toContain(message);
    expect(msg).not.toMatch(/\bpw2?\b|ROOT|noseparators|alice|bad/);
  });

  it('never echoes a password that was mistaken for a role list', () => {
    const msg = configError({ COORDINATOR_USERS: 'alice:hunter2', COORDINATOR_TOKEN_SECRET: SECRET });
    expect(msg).not.toContain('hunter2');
  });

  it.each([
    [{ COORDINATOR_ADMIN_USERNAME: 'root' }, 'COORDINATOR_ADMIN_PASSWORD'],
    [{ COORDINATOR_ADMIN_PASSWORD: 'pw', COORDINATOR_ADMIN_PASSWORD_HASH: HASH }, 'not both'],
    [{ COORDINATOR_ADMIN_PASSWORD_HASH: 'sha1$x', COORDINATOR_TOKEN_SECRET: SECRET }, 'HASH'],
    [{ COORDINATOR_ADMIN_USERNAME: 'ro:ot', COORDINATOR_ADMIN_PASSWORD: 'pw' }, 'COORDINATOR_ADMIN_USERNAME'],
    [{ COORDINATOR_ADMIN_PASSWORD: 'pw', COORDINATOR_USERS: 'admin:x:READ' }, 'repeats the admin username'],
    [{ COORDINATOR_ADMIN_PASSWORD: 'pw', COORDINATOR_TOKEN_SECRET: 'short' }, 'at least 16'],
    [{ COORDINATOR_ADMIN_PASSWORD: 'pw', COORDINATOR_OPEN_MODE: 'true' }, 'COORDINATOR_OPEN_MODE'],
    [{ COORDINATOR_TOKEN_SECRET: SECRET }, 'no credentials'],
    [{ COORDINATOR_AUTHENTICATE_MEMBER_API: 'true' }, 'no credentials'],
    [
      { COORDINATOR_ADMIN_PASSWORD: 'pw', COORDINATOR_TOKEN_TTL_SECONDS: '0' },
      'COORDINATOR_TOKEN_TTL_SECONDS',
    ],
    [{ COORDINATOR_RATE_LIMIT_ADMIN_MUTATIONS_PER_MINUTE: '-1' }, 'RATE_LIMIT'],
    [
      { COORDINATOR_RATE_LIMIT_PRINCIPAL_MUTATIONS_PER_MINUTE: '1.5' },
      'COORDINATOR_RATE_LIMIT_PRINCIPAL_MUTATIONS_PER_MINUTE',
    ],
  ])('rejects %j, naming the field', (env, message) => {
    const msg = configError(env);
    expect(msg).toContain(message);
    expect(msg).not.toContain(SECRET);
    expect(msg).not.toMatch(/: pw\b|sha1\$x/);
  });
});
