/**
 * End to end on the 6-node Redis Cluster (shorter): three consumer processes through scale
 * 4 → 6 → 2 → 0 under continuous production, one SIGKILLed and one SIGSTOPped past its lease.
 */
import { afterAll, describe, expect, inject, it } from 'vitest';
import { clusterClient } from '../support/redis.js';
import { runScenario } from './e2e-scenario.js';

const redis = clusterClient();
afterAll(() => {
  redis.disconnect();
});

describe('consumer > end to end (Redis Cluster)', () => {
  it('handles every published record at least once with exclusive shard ownership through 4 → 6 → 2 → 0', {
    timeout: 90_000,
  }, async () => {
    const r = await runScenario({
      redis,
      redisEnv: { REDIS_CLUSTER_NODES: inject('redisClusterNodes') },
      plan: [4, 6, 2, 0],
      produceMs: 1000,
    });
    console.log(
      `e2e cluster: ${r.published} published, ${r.handledTotal} handled, ${r.duplicates} duplicates, ` +
        `${r.publishFailures} failed publishes, ${r.intervals} ownership intervals, revokes ${JSON.stringify(r.revokes)}, leases lost ${r.leaseLost.join(',')}, ${r.refusedAcks} fenced (refused) acks (${r.refusedInDoubt} in doubt), ${(r.elapsedMs / 1000).toFixed(1)} s\n${r.log.join('\n')}`,
    );
    expect(r.published).toBeGreaterThan(200);
    expect(r.missing).toEqual([]);
    expect(r.overlaps).toEqual([]);
    expect(r.outsideIntervals).toEqual([]);
    // No zombie ack was applied: every ack the fence refused left its record pending, handled again.
    expect(r.refusedNotRedelivered).toEqual([]);
    // The stopped process found its leases lapsed when it resumed.
    expect(r.leaseLost).toEqual(expect.arrayContaining(r.stoppedMembers!));
  });
});
