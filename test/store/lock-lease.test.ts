/**
 * The stream mutex is a short lease renewed while its critical section runs (issue 12 defect 2):
 * a long section keeps it and commits; a section that lost it never commits; a holder that died
 * (no renewals, no release) blocks the stream only until its short lease runs out.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { isCoordinatorError } from '../../src/core/errors.js';
import type { StreamDoc } from '../../src/core/model.js';
import { type CriticalSectionOptions, runCritical } from '../../src/store/critical-section.js';
import { IoredisStore } from '../../src/store/ioredis-store.js';
import { streamKeys } from '../../src/store/keys.js';
import { streamHeadOf } from '../../src/store/stream-head.js';
import { type FaultyStack, faultyStack } from '../support/faulty-store.js';
import { backends, uniquePrefix } from '../support/redis.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const protocol = {
  heartbeatIntervalMs: 500,
  memberLeaseTtlMs: 3000,
  rebalanceTimeoutMs: 10_000,
  staleMemberRetentionMs: 600_000,
};

function createPlan(prefix: string) {
  const doc: StreamDoc = {
    streamPrefix: prefix,
    shardCount: 1,
    removedShards: [],
    migrations: [],
    activeReshardingId: null,
    groups: ['g'],
    createdAt: 1,
    updatedAt: 1,
  };
  return {
    stream: { doc, head: streamHeadOf(doc, protocol.heartbeatIntervalMs) },
    groups: [
      { name: 'g', create: { groupEpoch: 1, assignmentEpoch: 1, metadataVersion: 1, at: 1 }, ops: [] },
    ],
  };
}

describe.each(backends)('store > stream mutex lease ($name)', (backend) => {
  const client = backend.make();
  const ns = uniquePrefix('ns');
  const store = new IoredisStore(client, { namespace: ns });
  const opts = (lockTtlMs: number): CriticalSectionOptions => ({
    lockWaitMs: 5000,
    lockTtlMs,
    maxAttempts: 3,
    protocol,
  });
  afterAll(async () => {
    await client.quit();
  });

  it('renews the lease of a section that runs longer than it, and commits', async () => {
    const p = uniquePrefix('long');
    let running = true;
    let stolen = 0;
    // Tries the mutex every 25 ms from the moment the section holds it until its commit; on the
    // section's own connection, so an acquire sent before the commit is answered before the release.
    const contend = async () => {
      while (running) {
        const during = running;
        if (await store.tryLock(p, 'contender', 10_000)) {
          if (during) stolen++;
          await store.unlock(p, 'contender');
        }
        await sleep(25);
      }
    };
    let contender: Promise<void> = Promise.resolve();
    const o = { ...opts(300), onCommit: () => (running = false) };
    await runCritical(store, p, [], o, async (s) => {
      expect(s).toBeNull();
      contender = contend();
      await sleep(1000);
      return { commit: createPlan(p), result: undefined };
    });
    await contender;
    expect(stolen).toBe(0);
    expect(await store.load(p, [])).not.toBeNull();
    expect(await client.exists(streamKeys(ns, p).lock)).toBe(0);
  });

  it('never commits after its lease was lost and taken by another holder', async () => {
    const p = uniquePrefix('lost');
    const key = streamKeys(ns, p).lock;
    const err = await runCritical(store, p, [], opts(300), async () => {
      // The lease ran out (say, a stalled process) and someone else holds the mutex now.
      await client.del(key);
      expect(await store.tryLock(p, 'other', 10_000)).toBe(true);
      return { commit: createPlan(p), result: undefined };
    }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isCoordinatorError(err) && err.code).toBe('COORDINATOR_STATE_MUTEX_UNAVAILABLE');
    expect(await store.load(p, [])).toBeNull();
    expect(await client.get(key)).toBe('other');
  });

  it('stops a section whose renewal found the lease lost before it commits', async () => {
    const p = uniquePrefix('lost-renewal');
    const key = streamKeys(ns, p).lock;
    const err = await runCritical(store, p, [], opts(300), async () => {
      await client.del(key);
      expect(await store.tryLock(p, 'other', 10_000)).toBe(true);
      await sleep(400);
      return { commit: createPlan(p), result: undefined };
    }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isCoordinatorError(err) && err.code).toBe('COORDINATOR_STATE_MUTEX_UNAVAILABLE');
    expect(await store.load(p, [])).toBeNull();
  });
});

describe.each(backends)('a killed lock holder ($name)', (backend) => {
  const stacks: FaultyStack[] = [];
  afterEach(async () => {
    await Promise.all(stacks.splice(0).map((s) => s.close()));
  });

  /** Kills `dead` inside its critical section (after it took the mutex); the time of death. */
  function killInsideSection(dead: FaultyStack): Promise<number> {
    return new Promise((resolve) => {
      let locked = false;
      dead.faults.onCall = (method) => {
        if (method === 'tryLock') locked = true;
        if (locked && method === 'load' && !dead.faults.dead) {
          dead.faults.dead = true;
          resolve(Date.now());
        }
      };
    });
  }

  const pair = () => {
    const a = faultyStack(backend);
    const b = faultyStack(backend, { COORDINATOR_KEY_PREFIX: a.config.keyPrefix });
    stacks.push(a, b);
    return [a, b] as const;
  };

  it('blocks a create only until its lease runs out (within the default 2 s and a margin)', async () => {
    const waits: number[] = [];
    for (let run = 0; run < 3; run++) {
      const [a, b] = pair();
      const p = uniquePrefix('killed');
      const died = killInsideSection(a);
      void a.call('POST', `/coord/v1/streams/${p}`, { initialShardCount: 2, requestedBy: 'dead' });
      const diedAt = await died;
      const res = await b.call('POST', `/coord/v1/streams/${p}`, { initialShardCount: 2, requestedBy: 't' });
      expect(res.status).toBe(201);
      waits.push(Date.now() - diedAt);
    }
    waits.sort((x, y) => x - y);
    console.log(`recovery after a killed holder (create), ms: ${waits.join(', ')}; median ${waits[1]}`);
    expect(waits[2]).toBeLessThan(2000 + 600);
  });

  it('blocks a scale only until its lease runs out', async () => {
    const [a, b] = pair();
    const p = uniquePrefix('killed-scale');
    expect(
      (await b.call('POST', `/coord/v1/streams/${p}`, { initialShardCount: 2, requestedBy: 't' })).status,
    ).toBe(201);
    const died = killInsideSection(a);
    const body = { targetShardCount: 3, requestedBy: 't', reason: 'r' };
    void a.call('POST', `/coord/v1/streams/${p}/scale`, body);
    const diedAt = await died;
    const res = await b.call('POST', `/coord/v1/streams/${p}/scale`, body);
    const wait = Date.now() - diedAt;
    console.log(`recovery after a killed holder (scale), ms: ${wait}`);
    expect(res.status).toBe(202);
    expect(wait).toBeLessThan(2000 + 600);
  });
});
