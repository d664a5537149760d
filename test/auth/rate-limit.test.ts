/**
 * The optional admin-mutation rate limit (docs/protocol.md#roles) over the real stack.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, uniquePrefix } from '../support/redis.js';
import { heartbeatBody } from '../support/stack.js';
import { type AuthStack, basic, basicFor, credentialsEnv, makeAuthStack } from './support.js';

const backend = backends[0]!;
const MINUTE = 60_000;

describe('auth > admin mutation rate limit', () => {
  let s: AuthStack;
  beforeAll(() => {
    s = makeAuthStack(
      backend,
      credentialsEnv({
        COORDINATOR_RATE_LIMIT_ADMIN_MUTATIONS_PER_MINUTE: '2',
        COORDINATOR_AUTHENTICATE_MEMBER_API: 'false',
      }),
    );
  });
  afterAll(() => s.close());

  /** Moves the clock to `seconds` past the start of the next whole minute. */
  function nextMinute(seconds = 0): void {
    const now = s.stack.clock.now();
    s.stack.clock.set((Math.floor(now / MINUTE) + 1) * MINUTE + seconds * 1000);
  }

  const createGroup = (p: string, g: string, who: 'writer' | 'admin' = 'writer') =>
    s.send('POST', `/coord/v1/streams/${p}/groups/${g}`, {
      authorization: basicFor(who),
      body: { requestedBy: 'me', initialShardCount: 1 },
    });

  it('answers 429 RATE_LIMIT_EXCEEDED with Retry-After past the limit, per principal and group', async () => {
    const p = uniquePrefix('rl');
    nextMinute(15);
    expect((await createGroup(p, 'g1')).status).toBe(201);
    expect((await createGroup(p, 'g1')).status).toBe(409);
    const limited = await createGroup(p, 'g1');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('45');
    expect(limited.json).toEqual({
      status: 'TOO_MANY_REQUESTS',
      errorCode: 'RATE_LIMIT_EXCEEDED',
      message: 'Coordinator API rate limit exceeded',
      requestId: expect.any(String),
    });
    // Another group, another principal: separate windows.
    expect((await createGroup(p, 'g2')).status).toBe(201);
    expect((await createGroup(p, 'g1', 'admin')).status).toBe(409);
    // Reads and heartbeats are never limited.
    const read = await s.send('GET', `/coord/v1/streams/${p}/groups/g1`, {
      authorization: basicFor('writer'),
    });
    expect(read.status).toBe(200);
    for (let i = 0; i < 3; i++) {
      const hb = await s.send('POST', `/coord/v1/streams/${p}/groups/g1/members/m-1/heartbeat`, {
        body: heartbeatBody('m-1', p, { epoch: 0, mv: 0 }),
      });
      expect(hb.status).toBe(200);
    }
    // The next window starts afresh.
    nextMinute();
    expect((await createGroup(p, 'g1')).status).toBe(409);
  });

  it('counts only authenticated, authorised requests (401/403 never consume the window)', async () => {
    const p = uniquePrefix('rl');
    nextMinute();
    for (let i = 0; i < 3; i++) {
      const denied = await s.send('POST', `/coord/v1/streams/${p}/groups/g`, {
        authorization: basicFor('reader'),
        body: { requestedBy: 'me' },
      });
      expect(denied.status).toBe(403);
      const unauthenticated = await s.send('POST', `/coord/v1/streams/${p}/groups/g`, {
        authorization: basic('writer', 'wrong'),
        body: { requestedBy: 'me' },
      });
      expect(unauthenticated.status).toBe(401);
    }
    expect((await createGroup(p, 'g')).status).toBe(201);
    expect((await createGroup(p, 'g')).status).toBe(409);
    expect((await createGroup(p, 'g')).status).toBe(429);
  });
});

describe('auth > rate limit keys on decoded names', () => {
  let s: AuthStack;
  beforeAll(() => {
    s = makeAuthStack(backend, credentialsEnv({ COORDINATOR_RATE_LIMIT_ADMIN_MUTATIONS_PER_MINUTE: '2' }));
  });
  afterAll(() => s.close());

  it('gives rl:x, rl%3Ax and rl%3ax one window (they name the same stream)', async () => {
    const p = uniquePrefix('rl');
    s.stack.clock.set((Math.floor(s.stack.clock.now() / MINUTE) + 1) * MINUTE);
    const spellings = [`${p}:x`, `${p}%3Ax`, `${p}%3ax`];
    const answers: number[] = [];
    for (const spelling of spellings) {
      const res = await s.send('POST', `/coord/v1/streams/${spelling}`, {
        authorization: basicFor('writer'),
        body: { requestedBy: 'me', initialShardCount: 1 },
      });
      answers.push(res.status);
    }
    expect(answers).toEqual([201, 409, 429]);
  });
});

describe('auth > per-principal mutation budget', () => {
  let s: AuthStack;
  beforeAll(() => {
    s = makeAuthStack(
      backend,
      credentialsEnv({
        COORDINATOR_RATE_LIMIT_PRINCIPAL_MUTATIONS_PER_MINUTE: '3',
        COORDINATOR_AUTHENTICATE_MEMBER_API: 'false',
      }),
    );
  });
  afterAll(() => s.close());

  it('refuses a principal beyond N mutations a minute across different streams; others keep theirs', async () => {
    s.stack.clock.set((Math.floor(s.stack.clock.now() / MINUTE) + 1) * MINUTE + 20_000);
    const create = (who: 'writer' | 'admin') =>
      s.send('POST', `/coord/v1/streams/${uniquePrefix('budget')}`, {
        authorization: basicFor(who),
        body: { requestedBy: 'me', initialShardCount: 1 },
      });
    for (let i = 0; i < 3; i++) expect((await create('writer')).status).toBe(201);
    const limited = await create('writer');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('40');
    expect(limited.json).toMatchObject({ errorCode: 'RATE_LIMIT_EXCEEDED' });
    expect((await create('admin')).status).toBe(201);
    // Heartbeats are never counted.
    const p = uniquePrefix('budget-hb');
    s.stack.clock.set((Math.floor(s.stack.clock.now() / MINUTE) + 1) * MINUTE);
    expect((await create('admin')).status).toBe(201);
    for (let i = 0; i < 5; i++) {
      const hb = await s.send('POST', `/coord/v1/streams/${p}/groups/${p}/members/m-1/heartbeat`, {
        body: heartbeatBody('m-1', p, { epoch: 0, mv: 0 }),
      });
      expect(hb.status).toBe(200);
    }
    expect((await create('writer')).status).toBe(201);
  });
});
