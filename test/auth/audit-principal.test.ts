/**
 * Every audit line of an admin mutation names the authenticated principal (the Basic username,
 * or the subject of the bearer token) next to the client-supplied `requestedBy`, which anyone
 * can fill with anything; and no audit line carries a credential.
 */
import { afterEach, describe, expect, inject, it } from 'vitest';
import { type RunningServer, startServer } from '../../node/server.js';
import { parseConfig } from '../../src/config.js';
import { uniquePrefix } from '../support/redis.js';
import { basicFor, credentialsEnv, type LogLine, PASSWORDS, TOKEN_SECRET } from './support.js';

/** The audit messages of every admin mutation. */
const AUDITED = [
  'stream created',
  'group created',
  'scale requested',
  'migration rolled back',
  'group repaired',
  'group deleted',
  'stream deleted',
];

const running: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});

/** A Node coordinator with credentials, every log line captured. */
async function arrange() {
  const logs: LogLine[] = [];
  const server = await startServer({
    config: parseConfig({
      PORT: '0',
      REDIS_URL: inject('redisUrl'),
      COORDINATOR_KEY_PREFIX: uniquePrefix('auditns'),
      ...credentialsEnv({ COORDINATOR_TOKEN_SECRET: TOKEN_SECRET }),
    }),
    log: (level, msg, fields) => logs.push({ level, msg, fields }),
  });
  running.push(server);
  const send = async (method: string, path: string, authorization: string, body?: object) => {
    const headers: Record<string, string> = { authorization };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${server.url}${path}`, { method, headers, body: JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, text, json: text.startsWith('{') ? JSON.parse(text) : null };
  };
  return { logs, send };
}

describe('audit lines name the authenticated principal', () => {
  it('a forced stream delete by Basic credentials, and every other admin mutation by Basic or token', async () => {
    const { logs, send } = await arrange();
    const p = uniquePrefix('audit');
    const login = await send('POST', '/coord/v1/auth/login', basicFor('writer'));
    expect(login.status).toBe(200);
    const writerToken = login.json.accessToken as string;
    const asWriter = `Bearer ${writerToken}`;
    const asAdmin = basicFor('admin');
    const who = { requestedBy: 'someone-else@example.com' };

    const call = async (method: string, path: string, as: string, body: object) => {
      const res = await send(method, path, as, { ...who, ...body });
      expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
      return res;
    };
    await call('POST', `/coord/v1/streams/${p}`, asWriter, { initialShardCount: 2 });
    await call('POST', `/coord/v1/streams/${p}/groups/g2`, asWriter, {});
    const scaled = await call('POST', `/coord/v1/streams/${p}/scale`, asWriter, {
      targetShardCount: 4,
      reason: 'audit',
    });
    const id = scaled.json.migrations[0].reshardingId as string;
    await call('POST', `/coord/v1/streams/${p}/groups/${p}/migrations/${id}/rollback`, asWriter, {
      reason: 'undo',
    });
    await call('POST', `/coord/v1/streams/${p}/groups/g2/repair`, asAdmin, { mode: 'rebuild', reason: null });
    await call('DELETE', `/coord/v1/streams/${p}/groups/g2`, asAdmin, { reason: 'audit', force: true });
    await call('DELETE', `/coord/v1/streams/${p}`, asAdmin, { reason: 'audit', force: true });

    const lines = logs.filter((l) => AUDITED.includes(l.msg) && l.fields?.streamPrefix === p);
    expect(lines.map((l) => l.msg)).toEqual(AUDITED);
    const byToken = new Set(['stream created', 'group created', 'scale requested', 'migration rolled back']);
    for (const l of lines) {
      expect(l.fields, l.msg).toMatchObject({
        requestedBy: who.requestedBy,
        principal: byToken.has(l.msg) ? 'writer' : 'admin',
      });
    }
    expect(lines.at(-1)).toMatchObject({
      msg: 'stream deleted',
      fields: { force: true, principal: 'admin', requestedBy: who.requestedBy },
    });
    // Never a credential in a log line.
    const logged = JSON.stringify(logs);
    for (const secret of [PASSWORDS.admin, PASSWORDS.writer, writerToken, TOKEN_SECRET]) {
      expect(logged).not.toContain(secret);
    }
  });
});
