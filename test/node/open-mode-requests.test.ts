/**
 * Open mode answers only requests meant for this machine (docs/security.md): a page on another site
 * cannot reach the loopback API through DNS rebinding (a foreign Host) nor make the browser
 * send it mutations (a foreign Origin). With credentials configured, any Host is served.
 */
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type RunningServer, startServer } from '../../node/server.js';
import { parseConfig } from '../../src/config.js';
import { uniquePrefix } from '../support/redis.js';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One request over real HTTP with exactly the headers given (fetch cannot set Host). */
function send(
  server: RunningServer,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<Answer> {
  const url = new URL(server.url);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers:
          payload === undefined
            ? headers
            : {
                'content-type': 'application/json',
                'content-length': String(Buffer.byteLength(payload)),
                ...headers,
              },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function start(env: Record<string, string> = {}): Promise<RunningServer> {
  const config = parseConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    REDIS_URL: inject('redisUrl'),
    COORDINATOR_KEY_PREFIX: uniquePrefix('open-requests'),
    COORDINATOR_SWEEP_INTERVAL_MS: '3600000',
    ...env,
  });
  return startServer({ config, log: () => undefined });
}

const create = { initialShardCount: 1, requestedBy: 'me' };

describe('open mode > Host', () => {
  let server: RunningServer;
  let port: string;
  beforeAll(async () => {
    server = await start();
    port = new URL(server.url).port;
  });
  afterAll(() => server.close());

  it.each(['127.0.0.1', 'localhost', '[::1]', 'LOCALHOST'])('serves Host %s with any port', async (host) => {
    for (const h of [host, `${host}:${port}`, `${host}:1`]) {
      const res = await send(server, 'GET', '/coord/v1/monitoring/groups', { host: h });
      expect(res.status, h).toBe(200);
    }
  });

  it.each(['evil.example', `evil.example:PORT`, '10.0.0.5', '127.0.0.1.evil.example', '[::2]'])(
    'refuses Host %s with 403 and a JSON reason, on every path, before anything is written',
    async (raw) => {
      const host = raw.replace('PORT', port);
      const p = uniquePrefix('rebind');
      const refused = [
        await send(server, 'POST', `/coord/v1/streams/${p}`, { host }, create),
        await send(server, 'GET', '/coord/v1/monitoring/groups', { host }),
        await send(server, 'GET', '/console', { host }),
        await send(server, 'GET', '/actuator/health', { host }),
      ];
      for (const res of refused) {
        expect(res.status).toBe(403);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        const body = JSON.parse(res.text);
        expect(body).toMatchObject({ status: 'FORBIDDEN', errorCode: 'FORBIDDEN' });
        expect(body.message).toContain('Host');
        expect(body.message).toContain('open mode');
      }
      const after = await send(server, 'GET', `/coord/v1/streams/${p}/groups/${p}`, { host: '127.0.0.1' });
      expect(after.status).toBe(404);
    },
  );

  it('serves an HTTP/1.0 request without Host (no browser sends one, so no page can)', async () => {
    const head = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write('GET /coord/v1/monitoring/groups HTTP/1.0\r\n\r\n');
      });
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk) => {
        text += chunk;
      });
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(head).toMatch(/^HTTP\/1\.[01] 200 /);
  });
});

describe('open mode > Origin of mutations', () => {
  let server: RunningServer;
  let own: string;
  beforeAll(async () => {
    server = await start();
    own = new URL(server.url).host;
  });
  afterAll(() => server.close());

  it.each([
    ['a foreign Origin', { origin: 'http://evil.example' }],
    ['a loopback Origin on another port', { origin: 'http://127.0.0.1:1' }],
    ['an opaque Origin', { origin: 'null' }],
    ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }],
  ])('refuses a POST or DELETE carrying %s with 403', async (_, headers: Record<string, string>) => {
    const p = uniquePrefix('csrf');
    const res = await send(server, 'POST', `/coord/v1/streams/${p}`, { host: own, ...headers }, create);
    expect(res.status, res.text).toBe(403);
    expect(JSON.parse(res.text)).toMatchObject({ errorCode: 'FORBIDDEN' });
    expect(JSON.parse(res.text).message).toMatch(/cross-origin/);
    const del = await send(
      server,
      'DELETE',
      `/coord/v1/streams/${p}/groups/${p}`,
      { host: own, ...headers },
      {
        requestedBy: 'me',
        reason: 'x',
      },
    );
    expect(del.status, del.text).toBe(403);
    expect((await send(server, 'GET', `/coord/v1/streams/${p}/groups/${p}`, { host: own })).status).toBe(404);
  });

  it('serves same-origin requests (the console) and cross-origin reads', async () => {
    const p = uniquePrefix('console');
    const origin = `http://${own}`;
    const headers = { host: own, origin, 'sec-fetch-site': 'same-origin' };
    expect((await send(server, 'POST', `/coord/v1/streams/${p}`, headers, create)).status).toBe(201);
    expect((await send(server, 'GET', '/console', headers)).status).toBe(200);
    const read = await send(server, 'GET', `/coord/v1/streams/${p}/groups/${p}`, {
      host: own,
      origin: 'http://evil.example',
      'sec-fetch-site': 'cross-site',
    });
    expect(read.status).toBe(200);
    expect((await send(server, 'POST', `/coord/v1/streams/${p}-2`, { host: own }, create)).status).toBe(201);
  });
});

describe('open mode > with credentials configured', () => {
  it('serves any Host and Origin (authentication decides)', async () => {
    const server = await start({ COORDINATOR_ADMIN_PASSWORD: 'adm1n-secret' });
    try {
      const auth = `Basic ${Buffer.from('admin:adm1n-secret').toString('base64')}`;
      const p = uniquePrefix('authed');
      const headers = { host: 'coordinator.example', origin: 'http://evil.example', authorization: auth };
      expect((await send(server, 'POST', `/coord/v1/streams/${p}`, headers, create)).status).toBe(201);
      expect((await send(server, 'GET', '/actuator/health', { host: 'coordinator.example' })).status).toBe(
        200,
      );
      expect(
        (await send(server, 'GET', '/coord/v1/monitoring/groups', { host: 'evil.example' })).status,
      ).toBe(401);
    } finally {
      await server.close();
    }
  });
});
