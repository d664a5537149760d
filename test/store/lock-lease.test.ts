/**
 * A holder of the stream mutex that died (no renewals, no release) blocks the stream only until
 * its short lease runs out. How a live section keeps and loses the lease is
 * in the Store contract (contract-lease.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type FaultyStack, faultyStack } from '../support/faulty-store.js';
import { backends, uniquePrefix } from '../support/redis.js';

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
