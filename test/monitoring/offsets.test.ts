/**
 * `GET …/offsets` against real Redis (standalone and Cluster): exact lengths, lag and pending
 * for a group in a known state, totals, Cluster placement, the consumable set, null lag after
 * an XDEL past the group, and no change to consumer-group state.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.js';
import { redisSlot } from '../../src/routing/slot.js';
import { backends } from '../support/redis.js';
import { type Arranged, arrangeGroup, groupStates, markRemoved } from './arrange.js';

describe.each(backends)('monitoring > offsets ($name)', (backend) => {
  let a: Arranged;
  let keys: string[];
  let before: unknown[];
  const offsets = () => a.get(`/streams/${a.p}/groups/${a.p}/offsets`);

  beforeAll(async () => {
    a = await arrangeGroup(backend);
    keys = [0, 1, 2, 3].map((i) => `${a.p}:${i}`);
    before = await groupStates(a.stack, keys);
  });
  afterAll(async () => {
    await a.stack.close();
  });

  it('reports length, ids, pending and lag per shard from XINFO', async () => {
    const res = await offsets();
    expect(res.status).toBe(200);
    const [s0, s1, s2] = res.body.shards;
    expect(res.body.shards).toHaveLength(3);
    expect(s0).toMatchObject({
      streamPrefix: a.p,
      consumerGroup: a.p,
      shard: { shardIndex: 0 },
      streamKey: `${a.p}:0`,
      redisSlot: redisSlot(`${a.p}:0`),
      streamLength: 10,
      firstRecordId: a.ids[0]![0],
      lastRecordId: a.ids[0]![9],
      lastGeneratedId: a.ids[0]![9],
      groupLastDeliveredId: a.ids[0]![5],
      consumerLastDeliveredId: a.ids[0]![5],
      consumerLastAckedId: a.ids[0]![3],
      pendingCount: 2,
      lag: 4,
      ownerMemberIds: ['A'],
      removed: false,
    });
    expect(s1).toMatchObject({ streamLength: 4, pendingCount: 0, lag: 4, groupLastDeliveredId: '0-0' });
    expect(s1.consumerLastDeliveredId).toBeNull();
    expect(s2).toMatchObject({
      streamLength: 0,
      firstRecordId: null,
      lastRecordId: null,
      pendingCount: 0,
      lag: 0,
    });
    for (const s of res.body.shards) expect(s.memoryUsageBytes).toBeGreaterThan(0);
  });

  it('sums the totals', async () => {
    const { body } = await offsets();
    const memory = body.shards.reduce(
      (n: number, s: { memoryUsageBytes: number }) => n + s.memoryUsageBytes,
      0,
    );
    expect(body).toMatchObject({
      totalStreamLength: 14,
      totalPendingCount: 2,
      totalLag: 8,
      totalMemoryUsageBytes: memory,
      memoryUsageKnown: true,
    });
  });

  it(`names the Cluster node of each slot only on Cluster`, async () => {
    const { body } = await offsets();
    for (const s of body.shards) {
      if (backend.name === 'cluster') {
        expect(s.redisNodeEndpoint).toMatch(/^127\.0\.0\.1:\d+$/);
        expect(s.redisNodeId).toMatch(/^[0-9a-f]{40}$/);
        expect(s.redisSlotRangeStart).toBeLessThanOrEqual(s.redisSlot);
        expect(s.redisSlotRangeEnd).toBeGreaterThanOrEqual(s.redisSlot);
      } else {
        expect(s).toMatchObject({
          redisNodeEndpoint: null,
          redisNodeId: null,
          redisSlotRangeStart: null,
          redisSlotRangeEnd: null,
        });
      }
    }
  });

  it('covers removed-but-consumable shards and marks them', async () => {
    // Shard 3 was removed by a scale-in and still has a record and the group on it.
    await a.stack.redis.xgroup('CREATE', `${a.p}:3`, a.p, '0', 'MKSTREAM');
    await a.stack.redis.xadd(`${a.p}:3`, '*', 'payload', 'late');
    await markRemoved(a.stack, a.p, 3);
    const { body } = await offsets();
    expect(body.shards.map((s: { shard: { shardIndex: number } }) => s.shard.shardIndex)).toEqual([
      0, 1, 2, 3,
    ]);
    expect(body.shards[3]).toMatchObject({ removed: true, streamLength: 1, lag: 1, pendingCount: 0 });
    expect(body.totalStreamLength).toBe(15);
    expect(body.totalLag).toBe(9);
    before = await groupStates(a.stack, keys);
  });

  it('makes the shard lag and the total lag null after an XDEL beyond the group position', async () => {
    await a.stack.redis.xdel(`${a.p}:1`, a.ids[1]![2]!);
    const { body } = await offsets();
    expect(body.shards[1]).toMatchObject({ streamLength: 3, lag: null });
    expect(body.shards[0].lag).toBe(4);
    expect(body.totalLag).toBeNull();
    before = await groupStates(a.stack, keys);
  });

  it('answers 404 for an unknown group and 400 for an invalid prefix', async () => {
    expect((await a.get(`/streams/${a.p}/groups/nope/offsets`)).body.errorCode).toBe('GROUP_NOT_FOUND');
    const bad = await a.get(`/streams/${encodeURIComponent('x{y}')}/groups/g/offsets`);
    expect(bad.status).toBe(400);
    expect(bad.body.errorCode).toBe('INVALID_REQUEST');
  });

  it('answers 503 REDIS_NOT_CONFIGURED on Redis-reading routes when the app has no inspector', async () => {
    const app = createApp({ coordinator: a.stack.coordinator, config: a.stack.config });
    const q = `streamPrefix=${a.p}&consumerGroup=${a.p}`;
    for (const path of [
      `/streams/${a.p}/groups/${a.p}/offsets`,
      `/streams/${a.p}/groups/${a.p}/shards/0/messages`,
      '/grafana/groups',
      `/grafana/shards?${q}`,
      `/grafana/messages?${q}`,
    ]) {
      const res = await app.request(`/coord/v1/monitoring${path}`);
      expect(res.status, path).toBe(503);
      expect(await res.json()).toMatchObject({ errorCode: 'REDIS_NOT_CONFIGURED' });
    }
    // Routes that need no Redis reads keep working.
    for (const path of [
      `/grafana/members?${q}`,
      `/grafana/assignments?${q}`,
      `/grafana/options/shards?${q}`,
    ]) {
      expect((await app.request(`/coord/v1/monitoring${path}`)).status, path).toBe(200);
    }
  });

  it('changes no consumer-group state', async () => {
    await offsets();
    await offsets();
    expect(await groupStates(a.stack, keys)).toEqual(before);
  });
});
