import { describe, expect, it } from 'vitest';
import {
  FakeCoordinator,
  type FakeOptions,
  snapshotFixture,
  testConfig,
} from '../../test/support/http-fakes.js';
import { assignmentSummaries, invariantViolations } from '../core/group-view.js';
import { HEARTBEAT_STATUSES, type HeartbeatStatus } from '../core/model.js';
import { redisSlot } from '../routing/slot.js';
import { type AppDeps, createApp } from './app.js';

const BASE = '/coord/v1';

function setup(options: FakeOptions = {}, deps: Partial<AppDeps> = {}) {
  const fake = new FakeCoordinator(options);
  const logs: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  const app = createApp({
    coordinator: fake,
    config: testConfig(),
    log: (level, msg, fields) => logs.push({ level, msg, fields }),
    ...deps,
  });
  const send = async (method: string, path: string, body?: unknown) => {
    const init: RequestInit = { method };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers = { 'content-type': 'application/json' };
    }
    const res = await app.request(path, init);
    const text = await res.text();
    return { res, status: res.status, json: text === '' ? undefined : JSON.parse(text) };
  };
  return { app, fake, logs, send };
}

const heartbeatBody = (memberId = 'm-1') => ({
  protocolVersion: 1,
  requestId: 'req-1',
  memberId,
  memberName: null,
  memberEpoch: 2,
  metadataVersion: 2,
  runtimeConsumerCapacity: { runtimeMaxConcurrency: 4, availableConcurrency: 3 },
  ownedShards: [{ shardIndex: 1 }, { shardIndex: 0 }, { shardIndex: 1 }],
  revokingShards: [
    { shard: { shardIndex: 2 }, state: 'REVOKED', inFlight: null, ackedAt: '2026-05-24T00:00:03.123456Z' },
  ],
  shardProgress: [
    {
      shard: { shardIndex: 0 },
      streamKey: 'orders:0',
      lastDeliveredId: '5-0',
      lastAckedId: null,
      pendingCount: 1,
      updatedAt: null,
    },
  ],
});

const GROUP_KEYS = [
  'streamPrefix',
  'consumerGroup',
  'state',
  'groupEpoch',
  'assignmentEpoch',
  'metadataVersion',
  'shardCount',
  'activeMigration',
  'targetAssignmentSummary',
  'currentAssignmentSummary',
];

describe('http > admin routes', () => {
  it('creates a stream: 201 StreamCreateResponse with the first group', async () => {
    const { send, fake } = setup();
    const r = await send('POST', `${BASE}/streams/orders`, {
      initialShardCount: 4,
      requestedBy: 'ops',
      reason: null,
    });
    expect(r.status).toBe(201);
    expect(r.json).toEqual({
      streamPrefix: 'orders',
      consumerGroup: 'orders',
      shardCount: 4,
      metadataVersion: 9,
    });
    expect(fake.calls).toEqual([
      {
        method: 'createStream',
        args: [
          'orders',
          { initialShardCount: 4, consumerGroup: null, requestedBy: 'ops', principal: null, reason: null },
        ],
      },
    ]);
  });

  it('passes an explicit first consumer group and defaults omitted fields to null', async () => {
    const { send, fake } = setup();
    const r = await send('POST', `${BASE}/streams/orders`, { consumerGroup: 'billing', requestedBy: 'ops' });
    expect(r.status).toBe(201);
    expect(r.json.consumerGroup).toBe('billing');
    expect(fake.calls[0]!.args[1]).toEqual({
      initialShardCount: null,
      consumerGroup: 'billing',
      requestedBy: 'ops',
      principal: null,
      reason: null,
    });
  });

  it('creates a group: 201 GroupResponse', async () => {
    const { send, fake } = setup();
    const r = await send('POST', `${BASE}/streams/orders/groups/billing`, {
      initialShardCount: null,
      requestedBy: 'ops',
      reason: 'new consumer',
    });
    expect(r.status).toBe(201);
    for (const k of GROUP_KEYS) expect(r.json).toHaveProperty(k);
    expect(r.json.consumerGroup).toBe('billing');
    expect(fake.calls[0]).toEqual({
      method: 'createGroup',
      args: [
        'orders',
        'billing',
        { initialShardCount: null, requestedBy: 'ops', principal: null, reason: 'new consumer' },
      ],
    });
  });

  it('reads a group: GroupResponse with the active migration and ISO timestamps', async () => {
    const { send } = setup();
    const snap = snapshotFixture('orders', 'orders');
    const r = await send('GET', `${BASE}/streams/orders/groups/orders`);
    expect(r.status).toBe(200);
    expect(Object.keys(r.json)).toEqual(expect.arrayContaining(GROUP_KEYS));
    expect(r.json).toMatchObject({
      streamPrefix: 'orders',
      consumerGroup: 'orders',
      state: 'RECONCILING',
      groupEpoch: 7,
      assignmentEpoch: 7,
      metadataVersion: 9,
      shardCount: 4,
      activeMigration: {
        reshardingId: 'reshard-1',
        fromShardCount: 6,
        toShardCount: 4,
        state: 'DRAINING',
        createdAt: '2026-05-24T00:00:00.100Z',
        updatedAt: '2026-05-24T00:00:00.200Z',
      },
      consumableShards: [0, 1, 2, 3, 5].map((shardIndex) => ({ shardIndex })),
      removedShards: [
        {
          shardIndex: 5,
          state: 'DRAINING',
          reason: 'lag 3 on group orders',
          updatedAt: '2026-05-24T00:00:00.600Z',
        },
      ],
    });
    const summaries = assignmentSummaries(snap.group);
    expect(r.json.targetAssignmentSummary).toEqual(summaries.target);
    expect(r.json.currentAssignmentSummary).toEqual(summaries.current);
  });

  it('renders activeMigration as null when no migration is active', async () => {
    const snapshot = snapshotFixture();
    snapshot.stream.activeReshardingId = null;
    const { send } = setup({ snapshot });
    const r = await send('GET', `${BASE}/streams/orders/groups/orders`);
    expect(r.json.activeMigration).toBeNull();
  });

  it('deletes a group: 200 with the pre-delete GroupResponse; force defaults to false', async () => {
    const { send, fake } = setup();
    const r = await send('DELETE', `${BASE}/streams/orders/groups/orders`, {
      requestedBy: 'ops',
      reason: 'retired',
    });
    expect(r.status).toBe(200);
    expect(r.json.groupEpoch).toBe(7);
    expect(fake.calls[0]).toEqual({
      method: 'deleteGroup',
      args: ['orders', 'orders', { requestedBy: 'ops', principal: null, reason: 'retired', force: false }],
    });
    await send('DELETE', `${BASE}/streams/orders/groups/orders`, {
      requestedBy: 'ops',
      reason: 'x',
      force: true,
    });
    expect((fake.calls[1]!.args[2] as { force: boolean }).force).toBe(true);
  });

  it('decodes percent-encoded path segments as the Python client sends them', async () => {
    const { send, fake } = setup();
    const r = await send('GET', `${BASE}/streams/orders%2Dx/groups/g%20one`);
    expect(r.status).toBe(200);
    expect(fake.calls[0]!.args).toEqual(['orders-x', 'g one']);
    await send('GET', `${BASE}/streams/a%2Fb/groups/%E2%9C%93`);
    expect(fake.calls[1]!.args).toEqual(['a/b', '✓']);
  });
});

describe('http > producer routing', () => {
  it('lists shards 0..shardCount-1 with stream keys and Redis slots', async () => {
    const { send, fake } = setup();
    const r = await send('GET', `${BASE}/streams/orders/groups/orders/producer-routing`);
    expect(r.status).toBe(200);
    expect(fake.calls[0]).toEqual({ method: 'getRouting', args: ['orders', 'orders'] });
    expect(r.json).toEqual({
      streamPrefix: 'orders',
      consumerGroup: 'orders',
      metadataVersion: 9,
      shardCount: 4,
      streamKeyPattern: 'orders:{shardIndex}',
      shards: [
        { shardIndex: 0, streamKey: 'orders:0', redisSlot: 8578 },
        { shardIndex: 1, streamKey: 'orders:1', redisSlot: 12707 },
        { shardIndex: 2, streamKey: 'orders:2', redisSlot: 448 },
        { shardIndex: 3, streamKey: 'orders:3', redisSlot: 4577 },
      ],
    });
  });

  it('returns an empty shard list for a fully drained stream', async () => {
    const snapshot = snapshotFixture();
    snapshot.stream.shardCount = 0;
    const { send } = setup({ snapshot });
    const r = await send('GET', `${BASE}/streams/orders/groups/orders/producer-routing`);
    expect(r.json).toMatchObject({ shardCount: 0, shards: [] });
  });

  it('computes slots for other prefixes too', async () => {
    const { send } = setup();
    const r = await send('GET', `${BASE}/streams/create-order/groups/g/producer-routing`);
    expect(r.json.shards[0]).toEqual({ shardIndex: 0, streamKey: 'create-order:0', redisSlot: 9192 });
    expect(r.json.shards[3].redisSlot).toBe(redisSlot('create-order:3'));
  });
});

describe('http > heartbeat', () => {
  const path = `${BASE}/streams/orders/groups/orders/members/m-1/heartbeat`;

  it('maps the body to HeartbeatInput (nulls and omissions mean empty, duplicates collapse)', async () => {
    const { send, fake } = setup();
    const r = await send('POST', path, heartbeatBody());
    expect(r.status).toBe(200);
    expect(fake.calls[0]!.method).toBe('heartbeat');
    expect(fake.calls[0]!.args.slice(0, 2)).toEqual(['orders', 'orders']);
    expect(fake.calls[0]!.args[2]).toEqual({
      protocolVersion: 1,
      requestId: 'req-1',
      memberId: 'm-1',
      pathMemberId: 'm-1',
      memberName: null,
      memberEpoch: 2,
      metadataVersion: 2,
      runtimeMaxConcurrency: 4,
      availableConcurrency: 3,
      ownedShards: [1, 0],
      revokingShards: [{ shard: 2, state: 'REVOKED', inFlight: 0, ackedAt: '2026-05-24T00:00:03.123456Z' }],
      shardProgress: [
        {
          shard: 0,
          streamKey: 'orders:0',
          lastDeliveredId: '5-0',
          lastAckedId: null,
          pendingCount: 1,
          updatedAt: null,
        },
      ],
    });
  });

  it('accepts the minimal Python-client body', async () => {
    const { send, fake } = setup();
    const body = {
      protocolVersion: 1,
      requestId: 'r',
      memberId: 'm-1',
      memberName: 'm-1',
      memberEpoch: 0,
      metadataVersion: 0,
      runtimeConsumerCapacity: { runtimeMaxConcurrency: 1, availableConcurrency: 1 },
      ownedShards: [],
    };
    const r = await send('POST', path, body);
    expect(r.status).toBe(200);
    expect(fake.calls[0]!.args[2]).toMatchObject({
      memberName: 'm-1',
      ownedShards: [],
      revokingShards: [],
      shardProgress: [],
    });
  });

  it('answers the HeartbeatResponse with config timings, responseTo and sorted shard lists', async () => {
    const { send } = setup();
    const r = await send('POST', path, heartbeatBody());
    expect(r.json).toEqual({
      responseTo: 'req-1',
      status: 'OK',
      memberId: 'm-1',
      memberEpoch: 7,
      heartbeatIntervalMs: 3000,
      rebalanceTimeoutMs: 60000,
      memberLeaseTtlMs: 15000,
      groupEpoch: 7,
      assignmentEpoch: 7,
      metadataVersion: 9,
      assignment: {
        assignedShards: [{ shardIndex: 1 }, { shardIndex: 3 }],
        pendingShards: [{ shardIndex: 2 }],
        metadataVersion: 9,
      },
      capabilities: ['BATCH_HEARTBEAT'],
    });
  });

  it('takes timings from the configuration', async () => {
    const { send } = setup(
      {},
      { config: testConfig({ heartbeatIntervalMs: 1000, rebalanceTimeoutMs: 5000, memberLeaseTtlMs: 4000 }) },
    );
    const r = await send('POST', path, heartbeatBody());
    expect(r.json).toMatchObject({
      heartbeatIntervalMs: 1000,
      rebalanceTimeoutMs: 5000,
      memberLeaseTtlMs: 4000,
    });
  });

  const statuses: readonly HeartbeatStatus[] = HEARTBEAT_STATUSES;
  it.each(statuses)('carries every field the clients index on %s (HTTP 200)', async (status) => {
    const rejected =
      status === 'UNKNOWN_MEMBER_ID' || status === 'UNSUPPORTED_PROTOCOL' || status === 'INVALID_REQUEST';
    const { send } = setup({
      heartbeat: (input) => ({
        status,
        memberId: input.memberId,
        memberEpoch: input.memberEpoch,
        groupEpoch: rejected ? 0 : 5,
        assignmentEpoch: rejected ? 0 : 5,
        metadataVersion: rejected ? 0 : 6,
        assignedShards: [],
        pendingShards: [],
        assignmentMetadataVersion: rejected ? 0 : 6,
      }),
    });
    const r = await send('POST', path, heartbeatBody());
    expect(r.status).toBe(200);
    const required = [
      'responseTo',
      'status',
      'memberId',
      'memberEpoch',
      'heartbeatIntervalMs',
      'rebalanceTimeoutMs',
      'memberLeaseTtlMs',
      'groupEpoch',
      'assignmentEpoch',
      'metadataVersion',
      'assignment',
    ];
    for (const k of required) {
      expect(r.json[k], k).not.toBeUndefined();
      expect(r.json[k], k).not.toBeNull();
    }
    expect(r.json.status).toBe(status);
    expect(r.json.assignment).toEqual({
      assignedShards: [],
      pendingShards: [],
      metadataVersion: rejected ? 0 : 6,
    });
  });

  it('lets the core answer a protocol version it does not support (no 400)', async () => {
    const { send, fake } = setup();
    const r = await send('POST', path, { ...heartbeatBody(), protocolVersion: 2 });
    expect(r.status).toBe(200);
    expect((fake.calls[0]!.args[2] as { protocolVersion: number }).protocolVersion).toBe(2);
  });

  it('lets the core answer a body memberId that differs from the path (no 400)', async () => {
    const { send, fake } = setup();
    const r = await send('POST', path, heartbeatBody('someone-else'));
    expect(r.status).toBe(200);
    expect(fake.calls[0]!.args[2]).toMatchObject({ memberId: 'someone-else', pathMemberId: 'm-1' });
  });

  it('lets the core answer epochs below -1 (no 400)', async () => {
    const { send, fake } = setup();
    const r = await send('POST', path, { ...heartbeatBody(), memberEpoch: -5 });
    expect(r.status).toBe(200);
    expect(fake.calls).toHaveLength(1);
  });
});

describe('http > monitoring', () => {
  it('reports health UP with the coordinator id', async () => {
    const { send } = setup();
    const r = await send('GET', `${BASE}/monitoring/health`);
    expect(r.json).toEqual({ status: 'UP', coordinatorId: 'local-coordinator', redis: 'UP', loop: 'UP' });
  });

  it.each([
    ['DOWN', 'DEGRADED'],
    ['UNKNOWN', 'UP'],
  ] as const)('reports redis %s as status %s', async (redis, status) => {
    const { send } = setup({ redis });
    const r = await send('GET', `${BASE}/monitoring/health`);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ status, redis });
  });

  it('reports DEGRADED when the Redis probe itself fails', async () => {
    const { send } = setup({ redis: new Error('boom') });
    const r = await send('GET', `${BASE}/monitoring/health`);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ status: 'DEGRADED', redis: 'DOWN' });
  });

  it('describes the coordination version with ISO timing defaults', async () => {
    const { send } = setup();
    const r = await send('GET', `${BASE}/monitoring/compatibility`);
    expect(r.json).toEqual({
      currentCoordinationVersion: 1,
      supportedCoordinationVersions: { min: 1, max: 1 },
      coordinationVersions: [
        {
          version: 1,
          status: 'ACTIVE',
          introducedIn: { major: 0, minor: 1, patch: 0, qualifier: null, version: '0.1.0' },
          deprecatedIn: null,
          minimumSupportedUntil: { major: 1, minor: 0, patch: 0, qualifier: null, version: '1.0.0' },
          removedIn: null,
          timingDefaults: { heartbeatInterval: 'PT3S', memberLeaseTtl: 'PT15S', rebalanceTimeout: 'PT1M' },
        },
      ],
      capabilities: ['BATCH_HEARTBEAT'],
      heartbeatBatchMaxItems: 64,
      maxShardCount: 1024,
    });
  });

  it('lists every group', async () => {
    const { send } = setup();
    const r = await send('GET', `${BASE}/monitoring/groups`);
    expect(r.status).toBe(200);
    expect(r.json.groups.map((g: { consumerGroup: string }) => g.consumerGroup)).toEqual([
      'orders',
      'billing',
    ]);
    for (const g of r.json.groups) expect(Object.keys(g)).toEqual(expect.arrayContaining(GROUP_KEYS));
  });

  it('reads one group like GET /streams/{p}/groups/{g}', async () => {
    const { send } = setup();
    const a = await send('GET', `${BASE}/monitoring/streams/orders/groups/orders`);
    const b = await send('GET', `${BASE}/streams/orders/groups/orders`);
    expect(a.status).toBe(200);
    expect(a.json).toEqual(b.json);
  });

  it('lists members sorted by id, in every state, with ISO times', async () => {
    const { send } = setup();
    const r = await send('GET', `${BASE}/monitoring/streams/orders/groups/orders/members`);
    expect(r.json.members.map((m: { memberId: string }) => m.memberId)).toEqual(['a', 'b', 'c']);
    expect(r.json.members[0]).toEqual({
      memberId: 'a',
      memberName: 'a',
      state: 'ACTIVE',
      memberEpoch: 3,
      metadataVersion: 3,
      runtimeMaxConcurrency: 1,
      activeConsumerWorkers: 0,
      currentAssignment: [{ shardIndex: 1 }, { shardIndex: 0 }],
      grantedAssignment: [{ shardIndex: 0 }, { shardIndex: 1 }],
      revoking: [],
      lastHeartbeatAt: '2026-05-24T00:00:01.000Z',
      memberLeaseExpiresAt: '2026-05-24T00:00:16.000Z',
      rebalanceTimeoutMs: 60000,
      rebalanceDeadlineAt: '2026-05-24T00:01:01.000Z',
      shardProgress: [],
    });
    expect(r.json.members[1].shardProgress[0]).toEqual({
      shard: { shardIndex: 3 },
      streamKey: 'orders:3',
      lastDeliveredId: '1-0',
      lastAckedId: '1-0',
      pendingCount: 0,
      updatedAt: '2026-05-24T00:00:01Z',
    });
    expect(r.json.members[2]).toMatchObject({ state: 'EXPIRED', rebalanceDeadlineAt: null });
  });

  it('shows targets, every current set, revoke progress and invariant violations', async () => {
    const { send } = setup();
    const snap = snapshotFixture();
    const r = await send('GET', `${BASE}/monitoring/streams/orders/groups/orders/assignments`);
    const ids = (xs: number[]) => xs.map((shardIndex) => ({ shardIndex }));
    expect(r.json).toEqual({
      targetAssignment: { a: ids([0, 1]), b: ids([2, 3, 5]) },
      currentAssignments: { a: ids([0, 1]), b: ids([2, 3]), c: ids([4]) },
      revokeProgress: { b: ids([5]) },
      invariantViolations: invariantViolations(snap.stream, snap.group),
    });
    expect(Object.keys(r.json.targetAssignment)).toEqual(['a', 'b']);
  });

  it('flattens consumption progress by member then shard', async () => {
    const { send } = setup();
    const r = await send('GET', `${BASE}/monitoring/streams/orders/groups/orders/consumption`);
    expect(r.json).toEqual({
      progress: [
        {
          streamPrefix: 'orders',
          consumerGroup: 'orders',
          memberId: 'b',
          memberName: 'b',
          memberState: 'ACTIVE',
          shard: { shardIndex: 2 },
          streamKey: 'orders:2',
          lastDeliveredId: '2-0',
          lastAckedId: null,
          pendingCount: 1,
          updatedAt: null,
        },
        {
          streamPrefix: 'orders',
          consumerGroup: 'orders',
          memberId: 'b',
          memberName: 'b',
          memberState: 'ACTIVE',
          shard: { shardIndex: 3 },
          streamKey: 'orders:3',
          lastDeliveredId: '1-0',
          lastAckedId: '1-0',
          pendingCount: 0,
          updatedAt: '2026-05-24T00:00:01Z',
        },
      ],
    });
  });

  it('validates monitoring path parameters too', async () => {
    const { send, fake } = setup();
    const r = await send('GET', `${BASE}/monitoring/streams/%7Bx%7D/groups/%20/members`);
    expect(r.status).toBe(400);
    expect(r.json.errorCode).toBe('INVALID_REQUEST');
    expect(r.json.message).toContain('streamPrefix: ');
    expect(r.json.message).toContain('consumerGroup: ');
    expect(fake.calls).toEqual([]);
  });
});

describe('http > actuator', () => {
  it('serves liveness and info without touching the coordinator', async () => {
    const { send, fake } = setup({}, { version: '1.2.3' });
    expect(await send('GET', '/actuator/health/liveness')).toMatchObject({
      status: 200,
      json: { status: 'UP' },
    });
    expect((await send('GET', '/actuator/info')).json).toEqual({
      app: { name: 'redis-stream-coordinator-edge', version: '1.2.3' },
    });
    expect(fake.calls).toEqual([]);
  });

  it('reports health and readiness UP with their components while Redis answers', async () => {
    const { send } = setup();
    const up = { status: 'UP', components: { redis: { status: 'UP' }, lifecycle: { status: 'UP' } } };
    for (const path of ['/actuator/health', '/actuator/health/readiness']) {
      expect(await send('GET', path)).toMatchObject({ status: 200, json: up });
    }
  });

  it('answers 503 DOWN when Redis is down or its probe fails, and while terminating', async () => {
    const down = { status: 'DOWN', components: { redis: { status: 'DOWN' } } };
    for (const redis of ['DOWN' as const, new Error('probe broke')]) {
      const { send } = setup({ redis });
      for (const path of ['/actuator/health', '/actuator/health/readiness']) {
        expect(await send('GET', path)).toMatchObject({ status: 503, json: down });
      }
      expect((await send('GET', '/actuator/health/liveness')).status).toBe(200);
    }
    const { send } = setup({}, { terminating: () => true });
    const r = await send('GET', '/actuator/health/readiness');
    expect(r.status).toBe(503);
    expect(r.json).toEqual({
      status: 'DOWN',
      components: {
        redis: { status: 'UP' },
        lifecycle: { status: 'DOWN', details: { state: 'terminating' } },
      },
    });
    expect((await send('GET', '/actuator/health/liveness')).status).toBe(200);
  });
});

describe('http > unknown routes and methods', () => {
  it('answers an unknown route with a JSON 404', async () => {
    const { send } = setup();
    for (const path of ['/nope', `${BASE}/streams`, `${BASE}/streams/orders/groups/orders/nope`]) {
      const r = await send('GET', path);
      expect(r.status).toBe(404);
      expect(r.res.headers.get('content-type')).toContain('application/json');
      expect(r.json).toMatchObject({ status: 'NOT_FOUND', errorCode: 'NOT_FOUND' });
    }
  });

  it('answers a known path with a wrong method with a JSON 405 and Allow', async () => {
    const { send, fake } = setup();
    const cases: [string, string, string[]][] = [
      ['PUT', `${BASE}/streams/orders/groups/orders`, ['GET', 'POST', 'DELETE']],
      ['POST', `${BASE}/streams/orders/groups/orders/producer-routing`, ['GET']],
      ['GET', `${BASE}/streams/orders/groups/orders/members/m/heartbeat`, ['POST']],
      ['DELETE', `${BASE}/monitoring/health`, ['GET']],
      ['POST', '/actuator/info', ['GET']],
    ];
    for (const [method, path, allowed] of cases) {
      const r = await send(method, path);
      expect(r.status, `${method} ${path}`).toBe(405);
      expect(r.json).toMatchObject({ status: 'METHOD_NOT_ALLOWED', errorCode: 'METHOD_NOT_ALLOWED' });
      const allow = (r.res.headers.get('allow') ?? '').split(', ');
      expect(allow).toEqual(expect.arrayContaining(allowed));
    }
    expect(fake.calls).toEqual([]);
  });
});

describe('http > terminating mode', () => {
  it('refuses mutations with 503 COORDINATOR_TERMINATING and keeps serving reads', async () => {
    const { send, fake } = setup({}, { terminating: () => true });
    const mutations: [string, string, unknown][] = [
      ['POST', `${BASE}/streams/orders`, { requestedBy: 'ops' }],
      ['POST', `${BASE}/streams/orders/groups/g`, { requestedBy: 'ops' }],
      ['DELETE', `${BASE}/streams/orders/groups/g`, { requestedBy: 'ops', reason: 'x' }],
      ['POST', `${BASE}/streams/orders/groups/g/members/m-1/heartbeat`, heartbeatBody()],
    ];
    for (const [method, path, body] of mutations) {
      const r = await send(method, path, body);
      expect(r.status, `${method} ${path}`).toBe(503);
      expect(r.json).toMatchObject({ status: 'SERVICE_UNAVAILABLE', errorCode: 'COORDINATOR_TERMINATING' });
    }
    expect(fake.calls).toEqual([]);
    expect((await send('GET', `${BASE}/streams/orders/groups/g`)).status).toBe(200);
    expect((await send('GET', `${BASE}/streams/orders/groups/g/producer-routing`)).status).toBe(200);
    expect((await send('GET', `${BASE}/monitoring/health`)).status).toBe(200);
  });

  it('reads the flag on every request', async () => {
    let terminating = false;
    const { send } = setup({}, { terminating: () => terminating });
    expect((await send('POST', `${BASE}/streams/orders`, { requestedBy: 'ops' })).status).toBe(201);
    terminating = true;
    expect((await send('POST', `${BASE}/streams/orders`, { requestedBy: 'ops' })).status).toBe(503);
  });
});

describe('http > request clock', () => {
  it('reads the injected clock once per request', async () => {
    let reads = 0;
    const { send } = setup({}, { now: () => ++reads });
    await send('GET', `${BASE}/monitoring/health`);
    await send('POST', `${BASE}/streams/orders/groups/g/members/m-1/heartbeat`, heartbeatBody());
    expect(reads).toBe(2);
  });
});
