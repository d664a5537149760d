/**
 * Every request gets an id, echoed in `X-Request-Id` (the client's own when well-formed), and one
 * access line naming it with method, path, status and duration: at `info`, but at `debug` for
 * answered heartbeats and 304s, which are most of the traffic (docs/operating.md#logs).
 */
import { describe, expect, it } from 'vitest';
import { FakeCoordinator, testConfig } from '../../test/support/http-fakes.js';
import { createApp } from './app.js';

const BASE = '/coord/v1';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function setup() {
  const logs: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  const app = createApp({
    coordinator: new FakeCoordinator(),
    config: testConfig(),
    log: (level, msg, fields) => logs.push({ level, msg, fields }),
  });
  const access = () => logs.filter((l) => l.msg === 'request');
  return { app, access };
}

const heartbeat = {
  protocolVersion: 1,
  requestId: 'req-1',
  memberId: 'm-1',
  memberName: null,
  memberEpoch: 2,
  metadataVersion: 2,
  runtimeConsumerCapacity: { runtimeMaxConcurrency: 4, availableConcurrency: 3 },
  ownedShards: [{ shardIndex: 1 }],
  revokingShards: [],
  shardProgress: [],
};

describe('http > request ids and the access log', () => {
  it('gives every answer an X-Request-Id and logs it with the request at info', async () => {
    const { app, access } = setup();
    const res = await app.request(`${BASE}/streams/orders/groups/orders/producer-routing`);
    expect(res.status).toBe(200);
    const id = res.headers.get('x-request-id');
    expect(id).toMatch(UUID);
    expect(access()).toEqual([
      {
        level: 'info',
        msg: 'request',
        fields: {
          requestId: id,
          method: 'GET',
          path: `${BASE}/streams/orders/groups/orders/producer-routing`,
          status: 200,
          ms: expect.any(Number),
        },
      },
    ]);
  });

  it("keeps a client's well-formed X-Request-Id and replaces a malformed one", async () => {
    const { app, access } = setup();
    const kept = await app.request(`${BASE}/monitoring/health`, {
      headers: { 'x-request-id': 'trace-42_a=' },
    });
    expect(kept.headers.get('x-request-id')).toBe('trace-42_a=');
    const replaced = await app.request(`${BASE}/monitoring/health`, {
      headers: { 'x-request-id': 'bad id\twith spaces' },
    });
    expect(replaced.headers.get('x-request-id')).toMatch(UUID);
    expect(access().map((l) => l.fields?.requestId)).toEqual([
      'trace-42_a=',
      replaced.headers.get('x-request-id'),
    ]);
  });

  it('echoes the id on errors, which log at info', async () => {
    const { app, access } = setup();
    const res = await app.request(`${BASE}/streams/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"initialShardCount": "many"}',
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('x-request-id')).toMatch(UUID);
    expect(access()).toMatchObject([
      { level: 'info', fields: { status: 400, requestId: res.headers.get('x-request-id') } },
    ]);
    const missing = await app.request('/nowhere');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-request-id')).toMatch(UUID);
  });

  it('puts the request id in every error body, so a pasted error leads to its log lines', async () => {
    const { app } = setup();
    const bad = await app.request(`${BASE}/streams/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'trace-7' },
      body: '{"initialShardCount": "many"}',
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ errorCode: 'INVALID_REQUEST', requestId: 'trace-7' });
    const missing = await app.request('/nowhere');
    expect(await missing.json()).toMatchObject({
      errorCode: 'NOT_FOUND',
      requestId: missing.headers.get('x-request-id'),
    });
    const wrongMethod = await app.request(`${BASE}/streams/orders`, { method: 'PATCH' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).not.toBeNull();
    expect((await wrongMethod.json()).requestId).toBe(wrongMethod.headers.get('x-request-id'));
    // Successful answers keep their reference shape.
    const ok = await app.request(`${BASE}/streams/orders/groups/orders/producer-routing`);
    expect(await ok.json()).not.toHaveProperty('requestId');
  });

  it('logs answered heartbeats at debug, refused ones at info', async () => {
    const { app, access } = setup();
    const path = `${BASE}/streams/orders/groups/orders/members/m-1/heartbeat`;
    const post = (body: unknown) =>
      app.request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await post(heartbeat)).status).toBe(200);
    expect((await post({ ...heartbeat, memberEpoch: 'x' })).status).toBe(400);
    expect(access().map((l) => [l.level, l.fields?.status])).toEqual([
      ['debug', 200],
      ['info', 400],
    ]);
  });

  it('logs a routing revalidation answered 304 at debug', async () => {
    const { app, access } = setup();
    const path = `${BASE}/streams/orders/groups/orders/producer-routing`;
    const first = await app.request(path);
    const again = await app.request(path, { headers: { 'if-none-match': first.headers.get('etag')! } });
    expect(again.status).toBe(304);
    expect(access().map((l) => [l.level, l.fields?.status])).toEqual([
      ['info', 200],
      ['debug', 304],
    ]);
  });
});
