/**
 * Grafana routes (docs/protocol.md#grafana) against real Redis: every route's rows for a group in a known
 * state, blank-parameter answers, observed rates, and no change to consumer-group state.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../support/redis.js';
import { type Arranged, arrangeGroup, groupStates } from './arrange.js';

describe.each(backends)('monitoring > grafana ($name)', (backend) => {
  let a: Arranged;
  let before: unknown[];
  const keys = () => [0, 1, 2].map((i) => `${a.p}:${i}`);
  const grafana = (path: string) => a.get(`/grafana${path}`);
  const named = (path: string, extra = '') =>
    grafana(`${path}?streamPrefix=${a.p}&consumerGroup=${a.p}${extra}`);

  beforeAll(async () => {
    a = await arrangeGroup(backend);
    // A second group of the same stream (created at the tail: lag 0 everywhere).
    expect(
      (await a.stack.call('POST', `/coord/v1/streams/${a.p}/groups/g2`, { requestedBy: 't' })).status,
    ).toBe(201);
    before = await groupStates(a.stack, keys());
  });
  afterAll(async () => {
    await a.stack.close();
  });

  it('/groups: one overview row per group with counts, totals and no rates on first sight', async () => {
    const res = await grafana('/groups');
    expect(res.status).toBe(200);
    expect(res.body.map((r: { consumerGroup: string }) => r.consumerGroup).sort()).toEqual(
      ['g2', a.p].sort(),
    );
    const row = res.body.find((r: { consumerGroup: string }) => r.consumerGroup === a.p);
    expect(row).toMatchObject({
      streamPrefix: a.p,
      consumerGroup: a.p,
      shardCount: 3,
      activeMembers: 1,
      totalMembers: 1,
      currentShards: 3,
      targetShards: 3,
      assignedShardRatio: '3 / 3',
      revokingShards: 0,
      totalStreamLength: 14,
      totalPendingCount: 2,
      totalLag: 8,
      producedPerSecond: null,
      consumedPerSecond: null,
      memoryUsageKnown: true,
    });
    expect(row.totalMemoryUsageBytes).toBeGreaterThan(0);
    expect(typeof row.groupEpoch).toBe('number');
    const g2 = res.body.find((r: { consumerGroup: string }) => r.consumerGroup === 'g2');
    expect(g2).toMatchObject({
      totalLag: 0,
      totalPendingCount: 0,
      activeMembers: 0,
      assignedShardRatio: '0 / 3',
    });
  });

  it('/groups: rates from successive observations, rounded to 2 decimals', async () => {
    // 2 s later, 3 more records on shard 0: produced 1.5/s; the group read none, so consumed 0.
    a.stack.clock.advance(2000);
    for (let i = 0; i < 3; i++) await a.stack.redis.xadd(`${a.p}:0`, '*', 'payload', `late-${i}`);
    let row = (await grafana('/groups')).body.find((r: { consumerGroup: string }) => r.consumerGroup === a.p);
    expect(row).toMatchObject({ producedPerSecond: 1.5, consumedPerSecond: 0, totalLag: 11 });
    // 3 s later the reader catches up on 7 entries: nothing produced, consumed 7/3 = 2.33/s.
    a.stack.clock.advance(3000);
    await a.stack.redis.xreadgroup('GROUP', a.p, 'reader', 'COUNT', 100, 'STREAMS', `${a.p}:0`, '>');
    row = (await grafana('/groups')).body.find((r: { consumerGroup: string }) => r.consumerGroup === a.p);
    expect(row).toMatchObject({
      producedPerSecond: 0,
      consumedPerSecond: 2.33,
      totalLag: 4,
      totalPendingCount: 9,
    });
    before = await groupStates(a.stack, keys());
  });

  it('/options/streams and /options/consumer-groups list what exists, sorted', async () => {
    expect((await grafana('/options/streams')).body).toEqual([{ __text: a.p, __value: a.p }]);
    const all = (await grafana('/options/consumer-groups')).body;
    expect(all).toEqual(['g2', a.p].sort().map((g) => ({ __text: `${a.p} / ${g}`, __value: g })));
    expect((await grafana(`/options/consumer-groups?streamPrefix=${a.p}`)).body).toEqual(all);
    expect((await grafana('/options/consumer-groups?streamPrefix=')).body).toEqual(all);
    expect((await grafana('/options/consumer-groups?streamPrefix=other')).body).toEqual([]);
  });

  it('/options/shards lists the consumable shards; blank parameters give []', async () => {
    expect((await named('/options/shards')).body).toEqual([
      { __text: ':0', __value: '0' },
      { __text: ':1', __value: '1' },
      { __text: ':2', __value: '2' },
    ]);
    expect((await grafana(`/options/shards?streamPrefix=${a.p}&consumerGroup=`)).body).toEqual([]);
    expect((await grafana('/options/shards?streamPrefix=')).status).toBe(400);
  });

  it('/members: one row per member', async () => {
    const { body } = await named('/members');
    expect(body).toEqual([
      {
        streamPrefix: a.p,
        consumerGroup: a.p,
        memberId: 'A',
        memberName: 'A',
        state: 'ACTIVE',
        memberEpoch: expect.any(Number),
        metadataVersion: expect.any(Number),
        currentShardCount: 3,
        revokingShardCount: 0,
        runtimeMaxConcurrency: 1,
        activeConsumerWorkers: expect.any(Number),
        lastHeartbeatAt: expect.stringMatching(/Z$/),
        memberLeaseExpiresAt: expect.stringMatching(/Z$/),
      },
    ]);
    expect((await grafana(`/members?streamPrefix=&consumerGroup=${a.p}`)).body).toEqual([]);
    expect((await grafana(`/members?streamPrefix=${a.p}&consumerGroup=nope`)).status).toBe(404);
  });

  it('/shards: offset rows with owners, owner state and label', async () => {
    const { body } = await named('/shards');
    expect(body).toHaveLength(3);
    expect(body[0]).toMatchObject({
      streamPrefix: a.p,
      consumerGroup: a.p,
      shardCount: 3,
      shardIndex: 0,
      shardLabel: ':0',
      streamKey: `${a.p}:0`,
      streamLength: 13,
      lag: 0,
      lagKnown: true,
      pendingCount: 9,
      memoryUsageKnown: true,
      targetOwnerMemberIds: 'A',
      currentOwnerMemberIds: 'A',
      ownerMemberIds: 'A',
      ownerState: 'CURRENT',
      removed: false,
    });
    expect(body[0]).toHaveProperty('producedPerSecond');
    expect(body[2]).toMatchObject({ shardIndex: 2, streamLength: 0, lag: 0 });
  });

  it('/shards: blank parameters widen the scope', async () => {
    const both = (await grafana('/shards?streamPrefix=&consumerGroup=')).body;
    expect(both).toHaveLength(6);
    expect((await grafana(`/shards?streamPrefix=${a.p}&consumerGroup=`)).body).toHaveLength(6);
    const g2 = (await grafana('/shards?streamPrefix=&consumerGroup=g2')).body;
    expect(g2).toHaveLength(3);
    expect(g2[0]).toMatchObject({ consumerGroup: 'g2', ownerState: 'UNASSIGNED', ownerMemberIds: '' });
    expect((await grafana('/shards?streamPrefix=nope&consumerGroup=')).body).toEqual([]);
  });

  it('/assignments: target, current and revoking owners per shard', async () => {
    expect((await named('/assignments')).body).toEqual(
      [0, 1, 2].map((shardIndex) => ({
        streamPrefix: a.p,
        consumerGroup: a.p,
        shardIndex,
        targetOwners: 'A',
        currentOwners: 'A',
        revokingOwners: '',
      })),
    );
    expect((await grafana('/assignments?streamPrefix=&consumerGroup=')).body).toEqual([]);
  });

  it('changes no consumer-group state', async () => {
    await grafana('/groups');
    await grafana('/shards?streamPrefix=&consumerGroup=');
    await named('/messages', '&shardIndex=all&limit=3');
    expect(await groupStates(a.stack, keys())).toEqual(before);
  });
});
