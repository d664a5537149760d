/**
 * What the Worker costs in Upstash requests (each one is a Workers subrequest), counted at the
 * REST bridge: one steady-state heartbeat is a single EVALSHA, any other heartbeat two, a join
 * six (docs/protocol.md#concurrency, docs/performance.md#targets).
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { uniquePrefix } from '../support/redis.js';
import { heartbeatBody } from '../support/stack.js';
import { startUpstashBridge, type UpstashBridge } from '../support/upstash-bridge.js';
import { type RunningWorker, startWorker } from '../support/worker.js';

describe('worker > Upstash requests per operation', () => {
  let bridge: UpstashBridge;
  let worker: RunningWorker;
  beforeAll(async () => {
    bridge = await startUpstashBridge({ redisUrl: inject('redisUrl') });
    worker = await startWorker({
      UPSTASH_REDIS_REST_URL: bridge.url,
      UPSTASH_REDIS_REST_TOKEN: bridge.token,
      COORDINATOR_OPEN_MODE: 'true',
      COORDINATOR_KEY_PREFIX: uniquePrefix('cost'),
    });
  });
  afterAll(async () => {
    await worker.close();
    await bridge.close();
  });

  const post = async (path: string, body: unknown) => {
    const res = await worker.fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return (await res.json()) as { status: string; memberEpoch: number; metadataVersion: number };
  };

  it('answers a steady-state heartbeat with one request (EVALSHA of the fast path)', async () => {
    const p = uniquePrefix('steady');
    await post(`/coord/v1/streams/${p}`, { requestedBy: 't', initialShardCount: 4 });
    const hb = `/coord/v1/streams/${p}/groups/${p}/members/m1/heartbeat`;
    const join = await post(hb, heartbeatBody('m1', p, { epoch: 0, mv: 0 }));
    const args = { epoch: join.memberEpoch, mv: join.metadataVersion, owned: [0, 1, 2, 3] };
    // The first report after the join settles the group (full path) and records the fingerprint.
    await post(hb, heartbeatBody('m1', p, args));
    bridge.reset();
    const steady = await post(hb, heartbeatBody('m1', p, args));
    expect(steady.status).toBe('OK');
    expect(bridge.requests).toHaveLength(1);
    expect(bridge.requests[0]?.commands[0]?.[0]?.toUpperCase()).toBe('EVALSHA');

    // A join takes no stream mutex: its read and commit, the assignment round (a read that
    // takes the group's assignment lock, a commit that releases it), and the joiner's grant
    // (read and commit). A join skips the fast path. The join's new lease and m1's new rebalance
    // deadline are time-driven work, which each commit lists in the due index in the same script
    // (docs/architecture.md#the-due-index).
    bridge.reset();
    const m2 = await post(hb.replace('/m1/', '/m2/'), heartbeatBody('m2', p, { epoch: 0, mv: 0 }));
    expect(bridge.requests.map((r) => r.commands[0]?.[0]?.toUpperCase())).toEqual(Array(6).fill('EVALSHA'));

    // Any other full-path heartbeat is a read and a commit (the fast path's miss is the read).
    bridge.reset();
    await post(hb, heartbeatBody('m1', p, { ...args, owned: [0, 1] }));
    expect(bridge.requests).toHaveLength(2);
    expect(m2.status).toBe('OK');
  });
});
