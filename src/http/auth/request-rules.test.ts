import { describe, expect, it } from 'vitest';
import { parseAuthorization } from './credentials.js';
import { FixedWindowLimiter, rateLimitKey } from './rate-limit.js';
import { requiredRole } from './required-role.js';
import { grants, ROLES, type Role } from './roles.js';

const b64 = (s: string) => btoa(String.fromCharCode(...new TextEncoder().encode(s)));

describe('auth > role grants', () => {
  const table: Record<Role, Role[]> = {
    ADMIN: ['ADMIN', 'MEMBER', 'MONITOR', 'READ', 'WRITE'],
    WRITE: ['READ', 'WRITE'],
    READ: ['READ'],
    MONITOR: ['READ'],
    MEMBER: ['MEMBER'],
  };
  it.each(ROLES)('%s satisfies exactly what the role table lists', (held) => {
    expect(ROLES.filter((r) => grants([held], r))).toEqual(table[held]);
  });
});

describe('auth > required role per request', () => {
  const hb = '/coord/v1/streams/orders/groups/g/members/m-1/heartbeat';
  it.each([
    ['POST', '/coord/v1/auth/login', true, null],
    ['POST', hb, true, 'MEMBER'],
    ['POST', hb, false, null],
    ['GET', '/coord/v1/monitoring/groups', false, 'READ'],
    ['GET', '/coord/v1/monitoring/grafana/groups', false, 'READ'],
    ['GET', '/coord/v1/monitoring/session', false, 'READ'],
    ['POST', '/coord/v1/monitoring/anything', false, 'READ'],
    ['POST', '/coord/v1/streams/orders', false, 'WRITE'],
    ['DELETE', '/coord/v1/streams/orders/groups/g', false, 'WRITE'],
    ['PATCH', '/coord/v1/streams/orders', false, 'WRITE'],
    ['PUT', '/coord/v1/streams/orders', false, 'WRITE'],
    ['GET', '/coord/v1/streams/orders/groups/g/producer-routing', false, 'READ'],
    ['HEAD', '/coord/v1/streams/orders/groups/g', false, 'READ'],
    ['POST', '/coord/v1/other', false, 'WRITE'],
    ['GET', '/coord/v1/other', false, 'READ'],
  ] as const)('%s %s (member auth %s) needs %s', (method, path, memberAuth, role) => {
    expect(requiredRole(method, path, memberAuth)).toBe(role);
  });

  it.each([
    ['DELETE', '/coord/v1/streams/members/groups/heartbeat'],
    ['GET', '/coord/v1/streams/members/groups/heartbeat'],
    ['GET', '/coord/v1/monitoring/streams/members/groups/heartbeat'],
    ['POST', '/coord/v1/streams/p/groups/g/members/m/extra/heartbeat'],
    ['GET', hb],
    ['DELETE', hb],
  ])('does not treat %s %s as an anonymous heartbeat', (method, path) => {
    expect(requiredRole(method, path, false)).not.toBeNull();
  });
});

describe('auth > Authorization header', () => {
  it('reads Basic credentials, splitting at the first colon, scheme case-insensitive', () => {
    expect(parseAuthorization(`Basic ${b64('alice:pa:ss')}`)).toEqual({
      scheme: 'basic',
      username: 'alice',
      password: 'pa:ss',
    });
    expect(parseAuthorization(`bAsIc ${b64('bob:')}`)).toEqual({
      scheme: 'basic',
      username: 'bob',
      password: '',
    });
    expect(parseAuthorization(`Basic ${b64('jörg:pässword')}`)).toMatchObject({ username: 'jörg' });
  });

  it('falls back to ISO-8859-1 for Basic credentials that are not UTF-8 (Spring setBasicAuth)', () => {
    expect(parseAuthorization(`Basic ${btoa('j\u00f6rg:p\u00e4ss')}`)).toEqual({
      scheme: 'basic',
      username: 'jörg',
      password: 'päss',
    });
  });

  it('reads Bearer tokens, scheme case-insensitive', () => {
    expect(parseAuthorization('bearer abc.def')).toEqual({ scheme: 'bearer', token: 'abc.def' });
    expect(parseAuthorization('Bearer  abc.def ')).toEqual({ scheme: 'bearer', token: 'abc.def' });
  });

  it.each([
    undefined,
    '',
    'Basic',
    'Basic !!!',
    `Basic ${b64('no-colon')}`,
    `Basic ${b64(':pw')}`,
    'Digest abc',
    'Bearer a b',
    'Token abc',
  ])('refuses %j', (header) => {
    expect(parseAuthorization(header)).toBeNull();
  });
});

describe('auth > admin mutation rate limit', () => {
  it.each([
    ['POST', '/coord/v1/streams/orders', 'u:orders:*'],
    ['POST', '/coord/v1/streams/orders/scale', 'u:orders:*'],
    ['POST', '/coord/v1/streams/orders/groups/g', 'u:orders:g'],
    ['DELETE', '/coord/v1/streams/orders/groups/g', 'u:orders:g'],
    ['POST', '/coord/v1/streams/orders/groups/g/scale', 'u:orders:g'],
    ['POST', '/coord/v1/streams/orders/groups/g/migrations/r1/rollback', 'u:orders:g'],
    ['POST', '/coord/v1/streams/orders/groups/g/members/m/heartbeat', null],
    ['GET', '/coord/v1/streams/orders/groups/g', null],
    ['DELETE', '/coord/v1/streams/orders', 'u:orders:*'],
    ['DELETE', '/coord/v1/streams/orders/scale', null],
    ['POST', '/coord/v1/auth/login', null],
    ['GET', '/coord/v1/monitoring/groups', null],
  ] as const)('%s %s counts as %s', (method, path, key) => {
    expect(rateLimitKey(method, path, 'u')).toBe(key);
  });

  it('allows the limit per minute window, then answers the seconds left until the next window', () => {
    const limiter = new FixedWindowLimiter(2);
    const t0 = Date.UTC(2026, 4, 24, 0, 0, 0);
    expect(limiter.hit('k', t0)).toBeNull();
    expect(limiter.hit('k', t0 + 10_000)).toBeNull();
    expect(limiter.hit('other', t0 + 10_000)).toBeNull();
    expect(limiter.hit('k', t0 + 15_500)).toBe(45);
    expect(limiter.hit('k', t0 + 59_999)).toBe(1);
    expect(limiter.hit('k', t0 + 60_000)).toBeNull();
  });
});

describe('rate limit > keys', () => {
  it('keys on names as the routes decode them', () => {
    const keys = ['rl:x', 'rl%3Ax', 'rl%3ax'].map((p) => rateLimitKey('POST', `/coord/v1/streams/${p}`, 'u'));
    expect(new Set(keys)).toEqual(new Set(['u:rl:x:*']));
    expect(rateLimitKey('DELETE', '/coord/v1/streams/a%2Fb/groups/g%3A1', 'u')).toBe('u:a/b:g:1');
    expect(rateLimitKey('POST', '/coord/v1/streams/bad%E0', 'u')).toBe('u:bad%E0:*');
  });
});
