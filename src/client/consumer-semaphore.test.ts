import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FairSemaphore } from './consumer-semaphore.js';

const tick = () => new Promise((r) => setImmediate(r));

describe('fair semaphore', () => {
  it('grants at once while permits are free, then queues', async () => {
    const s = new FairSemaphore(2);
    expect(await s.acquire(0)).toBe(true);
    expect(await s.acquire(0)).toBe(true);
    let third = false;
    void s.acquire(0).then(() => {
      third = true;
    });
    await tick();
    expect(third).toBe(false);
    expect(s.waiting).toBe(1);
    s.release();
    await tick();
    expect(third).toBe(true);
    expect(s.inUse).toBe(2);
  });

  it('serves waiting shards round-robin, so a busy shard cannot starve the others', async () => {
    const s = new FairSemaphore(1);
    await s.acquire(0);
    const order: number[] = [];
    const wait = (lane: number) => s.acquire(lane).then(() => order.push(lane));
    // Shard 0 queues ten records before shards 5 and 9 queue one each.
    const all = [...Array.from({ length: 10 }, () => wait(0)), wait(5), wait(9)];
    for (let i = 0; i < 12; i++) {
      s.release();
      await tick();
    }
    await Promise.all(all);
    expect(order).toEqual([0, 5, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('wakes the waiters of a cancelled shard with false and keeps the permits', async () => {
    const s = new FairSemaphore(1);
    await s.acquire(1);
    const a = s.acquire(2);
    const b = s.acquire(3);
    s.cancel(2);
    expect(await a).toBe(false);
    s.release();
    expect(await b).toBe(true);
    expect(s.inUse).toBe(1);
  });

  it('never grants more than its permits and grants every waiter eventually (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 40 }),
        async (permits, lanes) => {
          const s = new FairSemaphore(permits);
          let held = 0;
          let maxHeld = 0;
          let granted = 0;
          const done = lanes.map((lane) =>
            s.acquire(lane).then(async (ok) => {
              expect(ok).toBe(true);
              held++;
              granted++;
              maxHeld = Math.max(maxHeld, held);
              await tick();
              held--;
              s.release();
            }),
          );
          await Promise.all(done);
          expect(maxHeld).toBeLessThanOrEqual(permits);
          expect(granted).toBe(lanes.length);
          expect(s.inUse).toBe(0);
        },
      ),
      { numRuns: 50 },
    );
  });
});
