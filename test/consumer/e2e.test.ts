/**
 * End to end on standalone Redis: three consumer processes through scale 4 → 8 → 3 → 0 under
 * continuous production, with one process SIGKILLed and one SIGSTOPped past its lease.
 */
import { afterAll, describe, expect, inject, it } from 'vitest';
import { standaloneClient } from '../support/redis.js';
import { runScenario } from './e2e-scenario.js';

const redis = standaloneClient();
afterAll(async () => {
  await redis.quit();
});

describe('consumer > end to end (standalone Redis)', () => {
  it('handles every published record at least once with exclusive shard ownership through 4 → 8 → 3 → 0', {
    timeout: 90_000,
  }, async () => {
    const r = await runScenario({
      redis,
      redisEnv: { REDIS_URL: inject('redisUrl') },
      plan: [4, 8, 3, 0],
      produceMs: 2000,
    });
    console.log(
      `e2e standalone: ${r.published} published, ${r.handledTotal} handled, ${r.duplicates} duplicates, ` +
        `${r.publishFailures} failed publishes, ${r.intervals} ownership intervals, revokes ${JSON.stringify(r.revokes)}, leases lost ${r.leaseLost.join(',')}, ${r.refusedAcks} fenced (refused) acks (${r.refusedInDoubt} in doubt), ${(r.elapsedMs / 1000).toFixed(1)} s\n${r.log.join('\n')}`,
    );
    expect(r.published).toBeGreaterThan(500);
    expect(r.missing).toEqual([]);
    expect(r.overlaps).toEqual([]);
    expect(r.outsideIntervals).toEqual([]);
    // No zombie ack was applied: every ack the fence refused left its record pending, handled again.
    expect(r.refusedNotRedelivered).toEqual([]);
    // The stopped process found its leases lapsed when it resumed.
    expect(r.leaseLost).toEqual(expect.arrayContaining(r.stoppedMembers!));
  });
});
