/**
 * A member that cannot tell the coordinator it let a revoked shard go (its heartbeats fail from
 * the moment it learns of the revoke) stops reading the shards it was allowed to keep before the
 * coordinator's rebalance deadline: the coordinator then fences it with every holding released
 * and grants them to the others at once, so a local lease that ran on would mean two readers.
 * The member rejoins once the coordinator answers again. The coordinator runs on the harness
 * Redis; its member lease (8 s) is far longer than its rebalance timeout (2.5 s).
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { FetchLike } from '../../src/client/transport.js';
import { standaloneClient } from '../support/redis.js';
import type { Stack } from '../support/stack.js';
import { watchDeadline } from './outage-support.js';
import {
  collect,
  controlledFetch,
  eventually,
  newStream,
  publish,
  realStack,
  type SeenHeartbeat,
  testConsumer,
} from './support.js';

const REBALANCE_TIMEOUT_MS = 2500;
const stack = realStack(
  { name: 'standalone', make: standaloneClient },
  {
    COORDINATOR_HEARTBEAT_INTERVAL_MS: '250',
    COORDINATOR_MEMBER_LEASE_TTL_MS: '8000',
    COORDINATOR_REBALANCE_TIMEOUT_MS: String(REBALANCE_TIMEOUT_MS),
  },
);
const redis = standaloneClient();
afterAll(async () => {
  await stack.close();
  await redis.quit();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A fetch into `s` that answers 503 to everything once `cut` is set, and sets it itself right
 * after passing on the first heartbeat answer that takes a shard the member reads away.
 */
function cutAtRevoke(s: Stack): {
  fetch: FetchLike;
  cut: boolean;
  keptShard: number | null;
  cutAt: number;
  heartbeats: SeenHeartbeat[];
} {
  const ctl = controlledFetch(s);
  const state = {
    heartbeats: ctl.heartbeats,
    cut: false,
    keptShard: null as number | null,
    cutAt: 0,
    fetch: (async (url, init) => {
      ctl.mode = state.cut ? '503' : 'pass';
      const res = await ctl.fetch(url, init);
      const seen = ctl.heartbeats.at(-1);
      if (!state.cut && url.endsWith('/heartbeat') && seen && seen.body.memberEpoch > 0) {
        const owned: number[] = seen.body.ownedShards.map((x: { shardIndex: number }) => x.shardIndex);
        const assigned: number[] = (seen.answer.assignment?.assignedShards ?? []).map(
          (x: { shardIndex: number }) => x.shardIndex,
        );
        if (owned.some((sh) => !assigned.includes(sh))) {
          state.cut = true;
          state.cutAt = Date.now();
          state.keptShard = owned.find((sh) => assigned.includes(sh)) ?? null;
        }
      }
      return res;
    }) as FetchLike,
  };
  return state;
}

describe('consumer > revoke it cannot report', () => {
  it('stops reading its kept shards before the rebalance deadline when the REVOKED report gets no answer, then rejoins', async () => {
    const p = await newStream(stack, 2, 'unrep');
    const aNet = cutAtRevoke(stack);
    const handled: Array<{ shard: number; at: number }> = [];
    const a = testConsumer({
      streamPrefix: p,
      redis,
      fetch: aNet.fetch,
      handler: (rec) => {
        handled.push({ shard: rec.shard, at: Date.now() });
        return 'ack';
      },
    });
    const b = testConsumer({
      streamPrefix: p,
      redis,
      fetch: controlledFetch(stack).fetch,
      handler: () => 'ack',
    });
    const aOwnership = collect(a, 'ownership');
    const bOwnership = collect(b, 'ownership');
    const aLeaseLost = collect(a, 'lease-lost');
    const deadline = watchDeadline(stack, p, a.memberIds[0]!);
    let publishing = true;
    try {
      a.start();
      await eventually(() => expect(a.status()[0]!.reading).toEqual([0, 1]));
      // Records keep coming on both shards: who hands them to a handler, and when, is the check.
      const publisher = (async () => {
        for (let i = 0; publishing; i++) {
          await publish(redis, p, 0, 1, `t${i}`);
          await publish(redis, p, 1, 1, `t${i}`);
          await sleep(50);
        }
      })();
      b.start();
      await eventually(() => expect(aNet.cut).toBe(true), 5000);
      const kept = aNet.keptShard!;
      expect(kept === 0 || kept === 1).toBe(true);
      // Fenced at the deadline with everything released: B reads both shards.
      await eventually(() => expect(b.status()[0]!.reading).toEqual([0, 1]), REBALANCE_TIMEOUT_MS + 5000);
      const deadlineAt = deadline.first();
      expect(deadlineAt).not.toBeNull();
      await sleep(Math.max(0, deadlineAt! + 500 - Date.now()));

      const aKept = aOwnership.filter((o) => o.shard === kept);
      const aEnd = aKept.find((o) => o.end !== null)?.end ?? null;
      const bStart = bOwnership.find((o) => o.shard === kept)!.start;
      console.info(
        `kept shard ${kept}: A ended ${aEnd === null ? 'never' : aEnd - deadlineAt!} ms after the coordinator's deadline, B started ${bStart - deadlineAt!} ms after it`,
      );
      expect(aEnd).not.toBeNull();
      expect(aEnd!).toBeLessThanOrEqual(deadlineAt!);
      expect(aEnd!).toBeLessThanOrEqual(bStart);
      expect(Math.max(...handled.filter((h) => h.shard === kept).map((h) => h.at))).toBeLessThan(deadlineAt!);
      expect(aLeaseLost.map((e) => e.shards)).toEqual([[kept]]);
      expect(a.status()[0]).toMatchObject({ reading: [], draining: [], leaseValid: false });

      // The coordinator answers again: A rejoins (epoch 0) and gets a shard back.
      const heard = Date.now();
      const answeredBefore = aNet.heartbeats.length;
      aNet.cut = false;
      await eventually(() => expect(a.status()[0]!.reading.length).toBe(1), 5000);
      const after = aNet.heartbeats.slice(answeredBefore);
      expect(after[0]!.answer.status).toBe('FENCED_MEMBER_EPOCH');
      expect(after.some((h) => h.body.memberEpoch === 0)).toBe(true);
      await eventually(() => expect(b.status()[0]!.reading.length).toBe(1), 5000);
      expect(a.status()[0]!.memberEpoch).toBeGreaterThan(0);
      console.info(`rejoined and reading again ${Date.now() - heard} ms after the coordinator answered`);
      publishing = false;
      await publisher;
    } finally {
      publishing = false;
      deadline.stop();
      await Promise.all([a.close(), b.close()]);
    }
  }, 30_000);
});
