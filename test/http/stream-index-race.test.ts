/**
 * The streams index (`K:streams`, listing and sweeps) never misses a live stream, even when a
 * stream's last group is deleted while another instance re-creates the stream: the index lives in another slot than the stream, so it cannot be in the commit.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Coordinator } from '../../src/coordinator.js';
import { backends, uniquePrefix } from '../support/redis.js';
import { makeStack, type Stack } from '../support/stack.js';

const ROUNDS = 20;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe.each(backends)('streams index under delete/re-create races ($name)', (backend) => {
  const stacks: Stack[] = [];
  afterEach(async () => {
    await Promise.all(stacks.splice(0).map((s) => s.close()));
  });

  it('lists the stream after every round in which it exists', async () => {
    // Provisioning off: a re-create is not refused for the shard keys the deleted stream left.
    const config = { COORDINATOR_PROVISIONING: 'false' };
    const a = makeStack(backend, { config });
    const b = makeStack(backend, { config, namespace: a.config.keyPrefix });
    stacks.push(a, b);
    const meta = { requestedBy: 't', reason: 'race' };
    const settle = (p: Promise<unknown>) =>
      p.then(
        () => 'ok',
        (e: { code?: string }) => e.code ?? 'error',
      );
    let missing = 0;
    let recreated = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const p = uniquePrefix('race');
      await a.coordinator.createStream(p, { initialShardCount: 1, consumerGroup: 'g', ...meta });
      const creator: Coordinator = round % 2 === 0 ? b.coordinator : a.coordinator;
      const outcomes = await Promise.all([
        settle(a.coordinator.deleteGroup(p, 'g', { ...meta, force: true })),
        settle(
          // Varying head starts for the delete, so both orders of the two critical sections occur.
          sleep(round % 5).then(() =>
            round % 4 < 2
              ? creator.createStream(p, { initialShardCount: 1, consumerGroup: 'g2', ...meta })
              : creator.createGroup(p, 'g2', { initialShardCount: 1, ...meta }),
          ),
        ),
      ]);
      expect(outcomes[0]).toBe('ok');
      const exists = (await a.store.load(p, [])) !== null;
      if (exists) recreated++;
      const listed = (await a.store.listStreams()).includes(p);
      if (exists && !listed) missing++;
      // Never listed while absent either, once both requests are done.
      if (!exists && listed) missing++;
    }
    expect(missing).toBe(0);
    expect(recreated).toBeGreaterThan(0);
  });
});
