import { describe, expect, it } from 'vitest';
import { FakeCoordinator, testConfig } from '../../test/support/http-fakes.js';
import { CoordinatorError, ERROR_STATUS, type ErrorCode } from '../core/errors.js';
import { createApp } from './app.js';
import { INTERNAL_ERROR_MESSAGE } from './errors.js';

const STATUS_NAME: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  408: 'REQUEST_TIMEOUT',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  422: 'UNPROCESSABLE_ENTITY',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL_SERVER_ERROR',
  503: 'SERVICE_UNAVAILABLE',
};

function setup(error: Error) {
  const logs: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  const fake = new FakeCoordinator({ error });
  const app = createApp({
    coordinator: fake,
    config: testConfig(),
    log: (level, msg, fields) => logs.push({ level, msg, fields }),
  });
  return { app, logs };
}

const codes = Object.keys(ERROR_STATUS) as ErrorCode[];

describe('http > error mapping', () => {
  it.each(codes)('maps %s to its status and an ErrorResponse', async (code) => {
    const { app } = setup(new CoordinatorError(code, `details of ${code}`));
    const res = await app.request('/coord/v1/streams/orders/groups/orders');
    const status = ERROR_STATUS[code];
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(await res.json()).toEqual({
      status: STATUS_NAME[status],
      errorCode: code,
      message: code === 'INTERNAL_ERROR' ? INTERNAL_ERROR_MESSAGE : `details of ${code}`,
      requestId: res.headers.get('x-request-id'),
    });
  });

  it('maps the reference codes to the reference statuses', () => {
    expect(ERROR_STATUS.GROUP_HAS_ACTIVE_MEMBERS).toBe(409);
    expect(ERROR_STATUS.ROLLBACK_NOT_ALLOWED).toBe(422);
    expect(ERROR_STATUS.COORDINATOR_STATE_MUTEX_UNAVAILABLE).toBe(503);
  });

  it('maps errors thrown by mutations and heartbeats the same way', async () => {
    const { app } = setup(new CoordinatorError('STATE_VERSION_CONFLICT', 'retry'));
    const res = await app.request('/coord/v1/streams/orders/groups/g/members/m/heartbeat', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        protocolVersion: 1,
        requestId: 'r',
        memberId: 'm',
        memberEpoch: 0,
        metadataVersion: 0,
        runtimeConsumerCapacity: { runtimeMaxConcurrency: 1, availableConcurrency: 1 },
      }),
    });
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({
      status: 'CONFLICT',
      errorCode: 'STATE_VERSION_CONFLICT',
      message: 'retry',
      requestId: res.headers.get('x-request-id'),
    });
  });

  it('adds Retry-After when the error says how long to wait', async () => {
    const { app } = setup(
      new CoordinatorError('RATE_LIMIT_EXCEEDED', 'Coordinator API rate limit exceeded', {
        details: { retryAfterSeconds: 12.2 },
      }),
    );
    const res = await app.request('/coord/v1/streams/orders/groups/orders');
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('13');
  });

  it('answers an unexpected exception with a generic 500 and logs the detail', async () => {
    const { app, logs } = setup(new TypeError('secret internals at redis://user:pw@host'));
    const res = await app.request('/coord/v1/streams/orders/groups/orders');
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({
      status: 'INTERNAL_SERVER_ERROR',
      errorCode: 'INTERNAL_ERROR',
      message: INTERNAL_ERROR_MESSAGE,
      requestId: res.headers.get('x-request-id'),
    });
    expect(text).not.toContain('secret');
    expect(text).not.toContain('at ');
    const logged = logs.find((l) => l.level === 'error');
    expect(logged?.fields?.error).toBe('secret internals at redis://user:pw@host');
    expect(logged?.fields?.requestId).toBe(res.headers.get('x-request-id'));
  });

  it('treats errors named CoordinatorError from another module copy as coordinator errors', async () => {
    const foreign = Object.assign(new Error('gone'), {
      name: 'CoordinatorError',
      code: 'GROUP_NOT_FOUND',
      status: 404,
    });
    const { app } = setup(foreign);
    const res = await app.request('/coord/v1/streams/orders/groups/orders');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      status: 'NOT_FOUND',
      errorCode: 'GROUP_NOT_FOUND',
      message: 'gone',
      requestId: res.headers.get('x-request-id'),
    });
  });
});
