/**
 * The batched member heartbeat over HTTP against real Redis: each item is exactly
 * what the single route answers for the same body, a per-item refusal stays that item's, the
 * batch is bounded and refuses repeated members, it is advertised (and switched off) by
 * configuration, and it needs what the single heartbeat needs — no more, no less.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { basicFor, credentialsEnv, makeAuthStack } from '../auth/support.js';
import { backends, uniquePrefix } from '../support/redis.js';
import { heartbeatBody, makeStack, manualClock, type Stack, stacksPerTest } from '../support/stack.js';

const meta = { requestedBy: 'batch-test' };
const batchPath = (p: string, g = p) => `/coord/v1/streams/${p}/groups/${g}/heartbeats`;
const singlePath = (p: string, m: string, g = p) =>
  `/coord/v1/streams/${p}/groups/${g}/members/${m}/heartbeat`;
/** A body with a fixed requestId, so two coordinators can be sent the very same heartbeat. */
const body = (m: string, p: string, a: Parameters<typeof heartbeatBody>[2], extra = {}) => ({
  ...heartbeatBody(m, p, a),
  memberId: m,
  requestId: `req-${m}-${a.epoch}`,
  ...extra,
});

describe.each(backends)('heartbeat batch > answers ($name)', (backend) => {
  const stacks: Stack[] = [];
  afterEach(async () => {
    for (const s of stacks.splice(0)) await s.close();
  });
  const stackOf = (config: Record<string, string> = {}) => {
    const s = makeStack(backend, { config, clock: manualClock() });
    stacks.push(s);
    return s;
  };

  it('answers every item exactly as the single route answers the same heartbeat, in order', async () => {
    const single = stackOf();
    const batched = stackOf();
    // Shard keys are global: each coordinator gets its own stream (answers never name it).
    const [ps, p] = [uniquePrefix('hbs'), uniquePrefix('hbb')];
    expect(
      (await single.call('POST', `/coord/v1/streams/${ps}`, { initialShardCount: 4, ...meta })).status,
    ).toBe(201);
    expect(
      (await batched.call('POST', `/coord/v1/streams/${p}`, { initialShardCount: 4, ...meta })).status,
    ).toBe(201);
    const rounds = [
      [body('A', p, { epoch: 0, mv: 0 }), body('B', p, { epoch: 0, mv: 0 })],
      [body('A', p, { epoch: 3, mv: 3 }), body('B', p, { epoch: 3, mv: 3 })],
    ];
    for (const round of rounds) {
      const expected = [];
      for (const b of round) expected.push(await single.call('POST', singlePath(ps, b.memberId), b));
      const res = await batched.call('POST', batchPath(p), { heartbeats: round });
      expect(res.status).toBe(200);
      expect(res.body.results).toEqual(
        expected.map((e, i) => ({
          memberId: round[i]!.memberId,
          httpStatus: e.status,
          heartbeat: e.body,
          error: null,
        })),
      );
    }
    // The rounds really moved the protocol: both joined, then both were answered steadily.
    const members = await batched.call('GET', `/coord/v1/monitoring/streams/${p}/groups/${p}/members`);
    expect(members.body.members.map((m: { memberId: string }) => m.memberId).sort()).toEqual(['A', 'B']);
  });

  it('answers a join beyond the member quota as that item’s 409 MEMBER_LIMIT_REACHED, the others joining', async () => {
    const s = stackOf({ COORDINATOR_MAX_MEMBERS_PER_GROUP: '2' });
    const p = uniquePrefix('hbq');
    await s.call('POST', `/coord/v1/streams/${p}`, { initialShardCount: 2, ...meta });
    const res = await s.call('POST', batchPath(p), {
      heartbeats: ['A', 'B', 'C'].map((m) => body(m, p, { epoch: 0, mv: 0 })),
    });
    expect(res.status).toBe(200);
    const [a, b, c] = res.body.results;
    expect([a.httpStatus, b.httpStatus]).toEqual([200, 200]);
    expect(a.heartbeat.status).toBe('OK');
    expect(c).toMatchObject({ memberId: 'C', httpStatus: 409, heartbeat: null });
    // The same body the single route answers for that join.
    const alone = await s.call('POST', singlePath(p, 'C'), body('C', p, { epoch: 0, mv: 0 }));
    expect(alone.status).toBe(409);
    // Only the request id differs: the single route's error body names its own request.
    const { requestId, ...single } = alone.body;
    expect(requestId).toEqual(expect.any(String));
    expect(c.error).toEqual(single);
    expect(c.error).toMatchObject({ status: 'CONFLICT', errorCode: 'MEMBER_LIMIT_REACHED' });
  });

  it('answers a member id held by another instance as that item’s 409 MEMBER_ID_IN_USE', async () => {
    const s = stackOf();
    const p = uniquePrefix('hbi');
    await s.call('POST', `/coord/v1/streams/${p}`, { initialShardCount: 2, ...meta });
    const held = await s.call(
      'POST',
      singlePath(p, 'A'),
      body('A', p, { epoch: 0, mv: 0 }, { memberInstanceId: 'one' }),
    );
    expect(held.body.status).toBe('OK');
    const res = await s.call('POST', batchPath(p), {
      heartbeats: [
        body('A', p, { epoch: 0, mv: 0 }, { memberInstanceId: 'two' }),
        body('B', p, { epoch: 0, mv: 0 }, { memberInstanceId: 'three' }),
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.results[0]).toMatchObject({
      memberId: 'A',
      httpStatus: 409,
      heartbeat: null,
      error: { status: 'CONFLICT', errorCode: 'MEMBER_ID_IN_USE' },
    });
    expect(res.body.results[1]).toMatchObject({ memberId: 'B', httpStatus: 200, error: null });
    expect(res.body.results[1].heartbeat.status).toBe('OK');
  });

  it('answers an unknown group per item with the protocol status, as the single route does', async () => {
    const s = stackOf();
    const p = uniquePrefix('hbu');
    const res = await s.call('POST', batchPath(p), { heartbeats: [body('A', p, { epoch: 0, mv: 0 })] });
    expect(res.status).toBe(200);
    expect(res.body.results[0].heartbeat.status).toBe('UNKNOWN_MEMBER_ID');
  });
});

describe('heartbeat batch > bounds and switches', () => {
  const backend = backends[0]!;
  const stackOf = stacksPerTest(backend);

  it('refuses an empty batch, more than 64 items, a repeated member and a bad item with 400, writing nothing', async () => {
    const s = stackOf();
    const p = uniquePrefix('hbb');
    await s.call('POST', `/coord/v1/streams/${p}`, { initialShardCount: 2, ...meta });
    const many = Array.from({ length: 65 }, (_, i) => body(`m${i}`, p, { epoch: 0, mv: 0 }));
    const cases = [
      { heartbeats: [] },
      { heartbeats: many },
      { heartbeats: [body('A', p, { epoch: 0, mv: 0 }), body('A', p, { epoch: 0, mv: 0 })] },
      {
        heartbeats: [
          body('A', p, { epoch: 0, mv: 0 }),
          { ...body('B', p, { epoch: 0, mv: 0 }), memberEpoch: 'x' },
        ],
      },
      [body('A', p, { epoch: 0, mv: 0 })],
    ];
    for (const c of cases) {
      const res = await s.call('POST', batchPath(p), c);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body).toMatchObject({ status: 'BAD_REQUEST', errorCode: 'INVALID_REQUEST' });
    }
    expect((await s.call('POST', batchPath(p), { heartbeats: [many[0], many[1]] })).status).toBe(200);
    const dup = await s.call('POST', batchPath(p), { heartbeats: [many[2], many[2]] });
    expect(dup.body.message).toContain('heartbeats[1].memberId: repeats an earlier item');
    const members = await s.call('GET', `/coord/v1/monitoring/streams/${p}/groups/${p}/members`);
    expect(members.body.members.map((m: { memberId: string }) => m.memberId).sort()).toEqual(['m0', 'm1']);
    // 64 is allowed.
    const full = await s.call('POST', batchPath(p), { heartbeats: many.slice(0, 64) });
    expect(full.status).toBe(200);
    expect(full.body.results).toHaveLength(64);
  });

  it('advertises BATCH_HEARTBEAT in heartbeat answers and the compatibility view', async () => {
    const s = stackOf();
    const p = uniquePrefix('hbc');
    await s.call('POST', `/coord/v1/streams/${p}`, { initialShardCount: 1, ...meta });
    const hb = await s.call('POST', singlePath(p, 'A'), body('A', p, { epoch: 0, mv: 0 }));
    expect(hb.body.capabilities).toEqual(['BATCH_HEARTBEAT']);
    const compat = await s.call('GET', '/coord/v1/monitoring/compatibility');
    expect(compat.body).toMatchObject({ capabilities: ['BATCH_HEARTBEAT'], heartbeatBatchMaxItems: 64 });
    expect(compat.body.currentCoordinationVersion).toBe(1);
  });

  it('with COORDINATOR_BATCH_HEARTBEATS=false answers the batch 404 and advertises nothing', async () => {
    const s = stackOf({ COORDINATOR_BATCH_HEARTBEATS: 'false' });
    const p = uniquePrefix('hbo');
    await s.call('POST', `/coord/v1/streams/${p}`, { initialShardCount: 1, ...meta });
    const res = await s.call('POST', batchPath(p), { heartbeats: [body('A', p, { epoch: 0, mv: 0 })] });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ status: 'NOT_FOUND', errorCode: 'NOT_FOUND' });
    const hb = await s.call('POST', singlePath(p, 'A'), body('A', p, { epoch: 0, mv: 0 }));
    expect(hb.body.status).toBe('OK');
    expect(hb.body.capabilities).toEqual([]);
    const compat = await s.call('GET', '/coord/v1/monitoring/compatibility');
    expect(compat.body).toMatchObject({ capabilities: [], heartbeatBatchMaxItems: 0 });
  });

  it('needs what the single heartbeat needs: MEMBER when member auth is on, within the member’s streams', async () => {
    const inScope = uniquePrefix('orders-scoped');
    const outOfScope = uniquePrefix('payments');
    const s = makeAuthStack(
      backend,
      credentialsEnv({ COORDINATOR_MEMBER_STREAMS: 'member=t-orders-scoped-*' }),
    );
    try {
      for (const p of [inScope, outOfScope]) {
        const created = await s.send('POST', `/coord/v1/streams/${p}`, {
          authorization: basicFor('admin'),
          body: { initialShardCount: 1, ...meta },
        });
        expect(created.status).toBe(201);
      }
      const send = (p: string, authorization?: string) =>
        s.send('POST', batchPath(p), {
          ...(authorization ? { authorization } : {}),
          body: { heartbeats: [body('A', p, { epoch: 0, mv: 0 })] },
        });
      expect((await send(inScope)).status).toBe(401);
      expect((await send(inScope, basicFor('reader'))).status).toBe(403);
      const ok = await send(inScope, basicFor('member'));
      expect(ok.status).toBe(200);
      expect(ok.json.results[0].heartbeat.status).toBe('OK');
      const refused = await send(outOfScope, basicFor('member'));
      expect(refused.status).toBe(403);
      expect(refused.text).toBe('');
      expect((await send(outOfScope, basicFor('admin'))).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});
