/**
 * Secrets never leave the process: no password, token secret, Basic header or bearer token in
 * any log line, and no password or secret in any response (tokens only in their own login answer).
 */
import { afterEach, describe, expect, inject, it } from 'vitest';
import { createLogger } from '../../node/logger.js';
import { AUTH_ENABLED_MESSAGE, OPEN_MODE_WARNING } from '../../node/open-mode.js';
import { type RunningServer, startServer } from '../../node/server.js';
import { parseConfig } from '../../src/config.js';
import { backends, uniquePrefix } from '../support/redis.js';
import { heartbeatBody } from '../support/stack.js';
import {
  type AuthStack,
  basic,
  basicFor,
  credentialsEnv,
  makeAuthStack,
  PASSWORDS,
  TOKEN_SECRET,
  type UserName,
} from './support.js';

const backend = backends[0]!;
const USERS = Object.keys(PASSWORDS) as UserName[];

function leaks(haystack: string, secrets: readonly string[]): string[] {
  return secrets.filter((secret) => haystack.includes(secret));
}

/** Drives successes and every kind of failure, returning the tokens that were issued. */
async function exercise(s: AuthStack, p: string): Promise<string[]> {
  const tokens: string[] = [];
  for (const user of USERS) {
    const r = await s.send('POST', '/coord/v1/auth/login', {
      body: { username: user, password: PASSWORDS[user] },
    });
    tokens.push(r.json.accessToken);
  }
  const bearer = (i: number) => `Bearer ${tokens[i]}`;
  await s.send('POST', `/coord/v1/streams/${p}`, { authorization: bearer(0), body: { requestedBy: 'me' } });
  await s.send('POST', `/coord/v1/streams/${p}`, {
    authorization: basicFor('writer'),
    body: { requestedBy: 'me' },
  });
  await s.send('POST', `/coord/v1/streams/${p}`, { authorization: bearer(2), body: { requestedBy: 'me' } });
  await s.send('GET', '/coord/v1/monitoring/session', { authorization: bearer(3) });
  await s.send('GET', '/coord/v1/monitoring/groups', {
    authorization: basic('admin', `${PASSWORDS.admin}!`),
  });
  await s.send('GET', '/coord/v1/monitoring/groups', { authorization: `Bearer ${tokens[1]}tampered` });
  await s.send('POST', `/coord/v1/streams/${p}/groups/${p}/members/m-1/heartbeat`, {
    authorization: bearer(4),
    body: heartbeatBody('m-1', p, { epoch: 0, mv: 0 }),
  });
  await s.send('POST', '/coord/v1/auth/login', { body: { username: 'admin', password: PASSWORDS.writer } });
  await s.send('POST', '/coord/v1/auth/login', { body: `{"password":"${PASSWORDS.admin}",` });
  await s.send('POST', '/coord/v1/auth/login', {
    body: { username: 'admin', password: { x: PASSWORDS.admin } },
  });
  await s.send('POST', `/coord/v1/streams/${p}/groups/${p}`, {
    authorization: basicFor('admin'),
    body: { requestedBy: PASSWORDS.reader.length, initialShardCount: 'x' },
  });
  return tokens;
}

describe('auth > secrets stay out of logs and responses', () => {
  it.each([
    ['a generated token secret', credentialsEnv()],
    ['an explicit token secret', credentialsEnv({ COORDINATOR_TOKEN_SECRET: TOKEN_SECRET })],
  ])('with %s', async (_label, env) => {
    const s = makeAuthStack(backend, env);
    try {
      const tokens = await exercise(s, uniquePrefix('leak'));
      expect(tokens.every((t) => typeof t === 'string' && t.length > 20)).toBe(true);
      const passwords = Object.values(PASSWORDS);
      const headers = USERS.map((u) => basicFor(u).slice('Basic '.length));
      const secret =
        s.stack.config.auth!.tokenSecret ??
        (await s.stack.redis.get(`${s.stack.config.keyPrefix}:auth:token-secret`));
      if (secret === null) throw new Error('no token secret in Redis');
      const logText = s.logs.map((l) => JSON.stringify(l));
      expect(logText.length).toBeGreaterThan(10);
      for (const line of logText)
        expect(leaks(line, [...passwords, ...headers, ...tokens, secret])).toEqual([]);
      for (const text of s.responses) {
        expect(leaks(text, [...passwords, ...headers, secret])).toEqual([]);
        // A token appears only in the one login answer that issued it.
        if (!text.includes('"accessToken"')) expect(leaks(text, tokens)).toEqual([]);
      }
    } finally {
      await s.close();
    }
  });
});

describe('auth > node adapter', () => {
  const running: RunningServer[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((r) => r.close()));
  });

  it("throttles failed logins by the socket's peer address (429 after 30 failures from 127.0.0.1)", async () => {
    const config = parseConfig({
      ...credentialsEnv({ COORDINATOR_TOKEN_SECRET: TOKEN_SECRET }),
      PORT: '0',
      REDIS_URL: inject('redisUrl'),
      COORDINATOR_KEY_PREFIX: uniquePrefix('node-throttle'),
    });
    const server = await startServer({
      config,
      log: createLogger({ level: 'error', write: () => {} }),
    });
    running.push(server);
    const groups = `${server.url}/coord/v1/monitoring/groups`;
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) {
      statuses.push((await fetch(groups, { headers: { authorization: basic(`user-${i}`, 'x') } })).status);
    }
    expect(statuses.slice(0, 30).every((s) => s === 401)).toBe(true);
    const last = await fetch(groups, { headers: { authorization: basicFor('reader') } });
    expect(last.status).toBe(429);
    expect(last.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('binds a non-loopback HOST when credentials are configured, and logs no secret', async () => {
    const lines: string[] = [];
    const log = createLogger({ level: 'debug', write: (l) => lines.push(l) });
    const config = parseConfig({
      ...credentialsEnv({ COORDINATOR_TOKEN_SECRET: TOKEN_SECRET }),
      HOST: '0.0.0.0',
      PORT: '0',
      REDIS_URL: inject('redisUrl'),
      COORDINATOR_KEY_PREFIX: uniquePrefix('node-auth'),
    });
    const server = await startServer({ config, log });
    running.push(server);
    const base = `http://127.0.0.1:${new URL(server.url).port}`;

    expect((await fetch(`${base}/actuator/health`)).status).toBe(200);
    const anonymous = await fetch(`${base}/coord/v1/monitoring/groups`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Basic realm="redis-stream-coordinator"');
    const login = await fetch(`${base}/coord/v1/auth/login`, {
      method: 'POST',
      headers: { authorization: basicFor('writer') },
    });
    const { accessToken } = (await login.json()) as { accessToken: string };
    const p = uniquePrefix('node');
    const created = await fetch(`${base}/coord/v1/streams/${p}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ requestedBy: 'me', initialShardCount: 1 }),
    });
    expect(created.status).toBe(201);
    const wrong = await fetch(`${base}/coord/v1/monitoring/groups`, {
      headers: { authorization: basic('admin', 'x') },
    });
    expect(wrong.status).toBe(401);
    await server.close();

    const parsed = lines.map((l) => JSON.parse(l) as { level: string; msg: string });
    expect(parsed.some((l) => l.level === 'info' && l.msg === AUTH_ENABLED_MESSAGE)).toBe(true);
    expect(parsed.some((l) => l.msg === OPEN_MODE_WARNING)).toBe(false);
    const secrets = [...Object.values(PASSWORDS), TOKEN_SECRET, accessToken, basicFor('writer').slice(6)];
    for (const line of lines) expect(leaks(line, secrets)).toEqual([]);
  });
});
