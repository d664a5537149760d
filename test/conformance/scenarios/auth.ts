/**
 * Authentication with credentials configured (docs/protocol.md#roles, docs/security.md): 401 with the Basic
 * challenge without credentials, roles enforced, login tokens accepted, heartbeats need MEMBER.
 */
import { expect } from 'vitest';
import { uniquePrefix } from '../../support/redis.js';
import { groupPath, heartbeat, type Scenario } from '../scenario.js';

const ADMIN_PASSWORD = 'Adm1n:pä$$word';
const READER_PASSWORD = 'r3ader-secret';
const MEMBER_PASSWORD = 'memb3r:secret';

/** Credentials for the auth scenarios (no open mode). */
const CREDENTIALS = {
  COORDINATOR_ADMIN_PASSWORD: ADMIN_PASSWORD,
  COORDINATOR_USERS: `reader:${READER_PASSWORD}:READ,member:${MEMBER_PASSWORD}:MEMBER`,
};

function basic(user: string, password: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}` };
}

/** Scenarios about authentication and roles. */
export const authScenarios: Scenario[] = [
  {
    name: 'with credentials configured, refuses anonymous calls with 401 and the Basic challenge',
    config: CREDENTIALS,
    async run(t) {
      const p = uniquePrefix('auth');
      const anon = await t.call('POST', `/coord/v1/streams/${p}`, { requestedBy: 'me' });
      expect(anon.status).toBe(401);
      expect(anon.headers.get('www-authenticate')).toBe('Basic realm="redis-stream-coordinator"');
      expect(anon.body).toBeNull();
      expect((await t.call('GET', `${groupPath(p)}/producer-routing`)).status).toBe(401);
      expect((await heartbeat(t, p, 'm1', { epoch: 0, mv: 0 })).status).toBe(401);
      const wrong = await t.call('GET', groupPath(p), undefined, basic('admin', 'nope'));
      expect(wrong.status).toBe(401);
      // The actuator stays public.
      expect((await t.call('GET', '/actuator/health')).status).toBe(200);
      expect(await t.redis.exists(`${p}:0`)).toBe(0);
    },
  },
  {
    name: 'enforces roles for Basic credentials and accepts bearer tokens from login',
    config: CREDENTIALS,
    async run(t) {
      const p = uniquePrefix('roles');
      const admin = basic('admin', ADMIN_PASSWORD);
      const created = await t.call(
        'POST',
        `/coord/v1/streams/${p}`,
        { initialShardCount: 2, requestedBy: 'me' },
        admin,
      );
      expect(created.status).toBe(201);

      const reader = basic('reader', READER_PASSWORD);
      expect((await t.call('GET', `${groupPath(p)}/producer-routing`, undefined, reader)).status).toBe(200);
      const forbidden = await t.call('POST', `/coord/v1/streams/${p}-2`, { requestedBy: 'me' }, reader);
      expect(forbidden.status).toBe(403);

      const login = await t.call('POST', '/coord/v1/auth/login', {
        username: 'reader',
        password: READER_PASSWORD,
      });
      expect(login.status).toBe(200);
      expect(login.body).toMatchObject({ tokenType: 'Bearer', roles: ['READ'], expiresInSeconds: 604800 });
      const bearer = { authorization: `Bearer ${login.body.accessToken}` };
      expect((await t.call('GET', groupPath(p), undefined, bearer)).status).toBe(200);
      const session = await t.call('GET', '/coord/v1/monitoring/session', undefined, bearer);
      expect(session.body).toEqual({ authenticated: true, username: 'reader', roles: ['READ'] });

      // Heartbeats need MEMBER once credentials exist; READ is not enough.
      expect((await heartbeat(t, p, 'm1', { epoch: 0, mv: 0 }, p, reader)).status).toBe(403);
      const hb = await heartbeat(t, p, 'm1', { epoch: 0, mv: 0 }, p, basic('member', MEMBER_PASSWORD));
      expect(hb.status).toBe(200);
      expect(hb.body.status).toBe('OK');
    },
  },
];
