/**
 * Redis Cluster master failover (`CLUSTER FAILOVER` on the replica) during heartbeats and a
 * scale, on a Cluster of its own: every answer is a 200 or a retryable 503, the
 * promoted master's other run id starts the recovery hold, no shard is read by two members, and
 * the scale completes once the hold ends.
 */
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { groupKeys } from '../../src/store/keys.js';
import { type Backend, uniquePrefix } from '../support/redis.js';
import { type ClusterRedis, startCluster } from '../support/redis-server.js';
import { heartbeat, idx, makeStack, type Stack } from '../support/stack.js';

const LEASE_MS = 3000;

describe('Redis Cluster master failover', () => {
  let cluster: ClusterRedis;
  let stack: Stack;
  beforeAll(async () => {
    cluster = await startCluster();
    const own: Backend = {
      name: 'cluster',
      make: () => new Cluster(cluster.nodes, { redisOptions: { protocol: 2, maxRetriesPerRequest: 1 } }),
    };
    stack = makeStack(own, { config: { COORDINATOR_MEMBER_LEASE_TTL_MS: String(LEASE_MS) } });
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
    await cluster?.stop();
  });

  /** The replica of the master that serves `key`. */
  async function replicaOf(key: string): Promise<Redis> {
    const slot = Number(await stack.redis.cluster('KEYSLOT', key));
    for (const n of cluster.nodes) {
      const node = new Redis(n.port, n.host, { protocol: 2 });
      const lines = String(await node.cluster('NODES'))
        .trim()
        .split('\n');
      const myself = lines.find((l) => l.includes('myself'))?.split(' ') ?? [];
      const masterId = myself[3];
      const master = lines.find((l) => l.split(' ')[0] === masterId);
      const ranges = master?.split(' ').slice(8) ?? [];
      const serves = ranges.some((r) => {
        const [a, b] = r.split('-').map(Number);
        return slot >= (a ?? -1) && slot <= (b ?? a ?? -1);
      });
      if (myself[2]?.includes('slave') && serves) return node;
      node.disconnect();
    }
    throw new Error(`no replica found for slot ${slot}`);
  }

  it('keeps answering 200 or 503, holds new grants after the failover, and completes a scale', async () => {
    const p = uniquePrefix('orders');
    expect(
      (await stack.call('POST', `/coord/v1/streams/${p}`, { initialShardCount: 2, requestedBy: 't' })).status,
    ).toBe(201);
    const joined = await heartbeat(stack, p, p, 'A', { epoch: 0, mv: 0 });
    let a = { epoch: joined.body.memberEpoch, mv: joined.body.metadataVersion };
    const statuses: number[] = [];
    const beatA = async (owned: number[]) => {
      const r = await heartbeat(stack, p, p, 'A', { ...a, owned });
      statuses.push(r.status);
      if (r.status === 200 && r.body.status === 'OK')
        a = { epoch: r.body.memberEpoch, mv: r.body.metadataVersion };
      return r;
    };
    expect(idx((await beatA([0, 1])).body.assignment.assignedShards)).toEqual([0, 1]);

    const header = groupKeys(stack.config.keyPrefix, p, p).header;
    const replica = await replicaOf(header);
    try {
      await replica.cluster('FAILOVER');
      // Heartbeats and a scale while the replica takes over.
      const scale = stack.call('POST', `/coord/v1/streams/${p}/scale`, {
        targetShardCount: 4,
        reason: 'failover test',
        requestedBy: 't',
      });
      const until = Date.now() + 3000;
      while (Date.now() < until) {
        await beatA([0, 1]);
        await new Promise((r) => setTimeout(r, 50));
      }
      const scaled = await scale;
      statuses.push(scaled.status);
      await vi.waitFor(async () => expect((await replica.role())[0]).toBe('master'), { timeout: 10_000 });
    } finally {
      replica.disconnect();
    }
    expect(
      statuses.every((s) => s === 200 || s === 202 || s === 503),
      `statuses ${statuses}`,
    ).toBe(true);
    // The scale may have answered 503 while the slot moved: ask again until it is accepted.
    await vi.waitFor(
      async () => {
        const r = await stack.call('GET', `/coord/v1/streams/${p}/groups/${p}`);
        if (r.status === 200 && r.body.shardCount === 4) return;
        const again = await stack.call('POST', `/coord/v1/streams/${p}/scale`, {
          targetShardCount: 4,
          reason: 'failover test',
          requestedBy: 't',
        });
        expect([200, 202, 409]).toContain(again.status);
        throw new Error('not scaled yet');
      },
      { timeout: 10_000, interval: 200 },
    );

    // The promoted master is another run: the hold is on, A keeps what it reads, B gets nothing.
    const kept = await beatA([0, 1]);
    expect(idx(kept.body.assignment.assignedShards)).toEqual([0, 1]);
    expect(Number(await stack.redis.hget(header, 'rc'))).toBeGreaterThan(0);
    const b = await heartbeat(stack, p, p, 'B', { epoch: 0, mv: 0 });
    expect(idx(b.body.assignment.assignedShards)).toEqual([]);

    // After the hold the new shards are assigned; A and B never share one.
    let bState = { epoch: b.body.memberEpoch, mv: b.body.metadataVersion };
    let aShards: number[] = [0, 1];
    let bShards: number[] = [];
    for (let t = 0; t < 4 * LEASE_MS; t += 500) {
      stack.clock.advance(500);
      const ra = await beatA(aShards);
      if (ra.body.status === 'OK') aShards = idx(ra.body.assignment.assignedShards);
      const rb = await heartbeat(stack, p, p, 'B', { ...bState, owned: bShards });
      if (rb.body.status === 'OK') {
        bState = { epoch: rb.body.memberEpoch, mv: rb.body.metadataVersion };
        bShards = idx(rb.body.assignment.assignedShards);
      }
      expect(aShards.filter((s) => bShards.includes(s))).toEqual([]);
      if (aShards.length + bShards.length === 4) break;
    }
    expect([...aShards, ...bShards].sort()).toEqual([0, 1, 2, 3]);
  }, 60_000);
});
