/**
 * Two instances on one group, on real Redis: instance 1's maintenance reads a member's rebalance
 * deadline as due and decides to fence it, and before it commits, instance 2 (whose clock is a
 * little behind) runs an assignment round that gives the member its shard back, so its target
 * changes and its deadline is cleared. Instance 1's commit must be refused (its decision read a
 * target and a deadline that are gone) and re-read, and nothing is fenced
 * (docs/protocol.md#rebalance-timeout, docs/protocol.md#invariants).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { GroupDoc } from '../../src/core/model.js';
import type { CommitOutcome, StreamPlan } from '../../src/store/store.js';
import { type HbSpec, hb, T0 } from '../support/heartbeat-fixtures.js';
import { backends, uniquePrefix } from '../support/redis.js';
import { makeStack, manualClock, type Stack } from '../support/stack.js';

const REBALANCE_MS = 1000;
const CONFIG = {
  COORDINATOR_HEARTBEAT_INTERVAL_MS: '3000',
  COORDINATOR_MEMBER_LEASE_TTL_MS: '15000',
  COORDINATOR_REBALANCE_TIMEOUT_MS: String(REBALANCE_MS),
};

const stacks: Stack[] = [];
afterEach(async () => {
  for (const s of stacks.splice(0)) await s.close();
});

/** True when `plan` fences member `id`. */
function fences(plan: StreamPlan, id: string): boolean {
  return plan.groups.some((g) =>
    g.ops.some((op) => op.k === 'record' && op.member === id && op.record.state === 'FENCED'),
  );
}

describe('commit read-set > a maintenance fence races an assignment round', () => {
  it('refuses the fence whose deadline and target an instance cleared meanwhile, and re-reads', async () => {
    const c1 = manualClock(T0);
    const c2 = manualClock(T0);
    const one = makeStack(backends[0]!, { clock: c1, config: CONFIG });
    const two = makeStack(backends[0]!, { clock: c2, config: CONFIG, namespace: one.config.keyPrefix });
    stacks.push(one, two);
    const p = uniquePrefix('race');
    await one.coordinator.createStream(p, {
      initialShardCount: 4,
      consumerGroup: p,
      requestedBy: 'test',
      reason: null,
    });
    const beat = (s: Stack, id: string, spec: HbSpec) => s.coordinator.heartbeat(p, p, hb(id, spec, p));
    const group = async (): Promise<GroupDoc> => (await one.store.load(p, [p]))!.groups[p]!;

    // A on [0, 1], B on [2, 3], settled at epoch 3.
    const a = await beat(one, 'A', { epoch: 0, mv: 0 });
    await beat(one, 'A', { epoch: a.memberEpoch, mv: 2, owned: [0, 1, 2, 3] });
    await beat(one, 'B', { epoch: 0, mv: 0 });
    await beat(one, 'A', { epoch: 2, mv: 2, owned: [0, 1, 2, 3] });
    await beat(one, 'A', { epoch: 3, mv: 3, owned: [0, 1] });
    const b = await beat(one, 'B', { epoch: 3, mv: 3 });
    await beat(one, 'B', { epoch: 3, mv: 3, owned: b.assignedShards });
    // C joins: its round moves shard 3 from B's target to C's and gives B a deadline.
    const c = await beat(one, 'C', { epoch: 0, mv: 0 });
    let g = await group();
    expect(g.targetAssignments).toEqual({ A: [0, 1], B: [2], C: [3] });
    expect(g.members.B).toMatchObject({ currentAssignment: [2, 3], rebalanceDeadlineAt: T0 + REBALANCE_MS });

    // Instance 1 reaches B's deadline; instance 2's clock is half a timeout behind.
    c1.set(T0 + REBALANCE_MS);
    c2.set(T0 + REBALANCE_MS / 2);
    const outcomes: CommitOutcome[] = [];
    let raced = false;
    const commit = one.store.commit.bind(one.store);
    one.store.commit = async (plan: StreamPlan) => {
      if (fences(plan, 'B') && !raced) {
        raced = true;
        // Between instance 1's read and its commit, C leaves on instance 2: the round that
        // follows gives shard 3 back to B and clears B's deadline.
        await beat(two, 'C', { epoch: -1, mv: c.metadataVersion });
        const between = await group();
        expect(between.targetAssignments).toEqual({ A: [0, 1], B: [2, 3] });
        expect(between.members.B).toMatchObject({ state: 'ACTIVE', rebalanceDeadlineAt: null });
        const res = await commit(plan);
        outcomes.push(res);
        return res;
      }
      return commit(plan);
    };

    // A's heartbeat on instance 1 maintains B first (its deadline is due there).
    const answer = await beat(one, 'A', { epoch: 3, mv: 3, owned: [0, 1] });
    expect(raced).toBe(true);
    expect(outcomes.map((o) => o.ok)).toEqual([false]);
    expect(answer.status).toBe('OK');
    g = await group();
    expect(g.members.B).toMatchObject({
      state: 'ACTIVE',
      fence: null,
      currentAssignment: [2, 3],
      rebalanceDeadlineAt: null,
    });
    expect(g.targetAssignments.B).toEqual([2, 3]);
  });
});
