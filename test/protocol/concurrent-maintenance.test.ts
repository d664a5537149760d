/**
 * Heartbeats that arrive together at one coordinator all read the same members as due (the
 * earliest lapsed leases) and maintain them before deciding (docs/protocol.md#processing-order).
 * They share one maintenance: each one starting its own made all but the first commit fail on the
 * records the first one changed, and with many lapsed leases (a coordinator starved of CPU during
 * a cold start) every heartbeat kept re-reading and re-committing them, which starved it further.
 */
import { describe, expect, it } from 'vitest';
import type { CommitOutcome, StreamPlan } from '../../src/store/store.js';
import { hb, T0 } from '../support/heartbeat-fixtures.js';
import { backends, uniquePrefix } from '../support/redis.js';
import { stacksPerTest } from '../support/stack.js';

const LEASE_MS = 15_000;
const LIVE = ['A', 'B', 'C', 'D', 'E', 'F'];
const SILENT = ['X', 'Y', 'Z'];

/** True when `plan` expires a member (maintenance). */
function expires(plan: StreamPlan): boolean {
  return plan.groups.some((g) => g.ops.some((op) => op.k === 'record' && op.record.state === 'EXPIRED'));
}

describe('maintenance > concurrent heartbeats on one coordinator', () => {
  const stack = stacksPerTest(backends[0]!);

  it('share one maintenance of the members they all read as due, and every one is answered', async () => {
    const s = stack({
      COORDINATOR_HEARTBEAT_INTERVAL_MS: '3000',
      COORDINATOR_MEMBER_LEASE_TTL_MS: String(LEASE_MS),
    });
    s.clock.set(T0);
    const p = uniquePrefix('herd');
    await s.coordinator.createStream(p, {
      initialShardCount: 8,
      consumerGroup: p,
      requestedBy: 'test',
      reason: null,
    });
    const epochs = new Map<string, { epoch: number; mv: number }>();
    const beat = async (id: string) => {
      const at = epochs.get(id) ?? { epoch: 0, mv: 0 };
      const r = await s.coordinator.heartbeat(p, p, hb(id, { epoch: at.epoch, mv: at.mv }, p));
      const lost = r.status === 'FENCED_MEMBER_EPOCH' || r.status === 'UNKNOWN_MEMBER_ID';
      epochs.set(id, lost ? { epoch: 0, mv: 0 } : { epoch: r.memberEpoch, mv: r.metadataVersion });
      return r;
    };
    for (const id of [...LIVE, ...SILENT]) await beat(id);
    // The live members renew; the silent ones' leases lapse.
    s.clock.set(T0 + LEASE_MS / 2);
    for (const id of LIVE) await beat(id);
    s.clock.set(T0 + LEASE_MS + 1);

    const reads = { members: 0 };
    const maintenance: CommitOutcome[] = [];
    const readMembers = s.store.readMembers.bind(s.store);
    s.store.readMembers = (...args: Parameters<typeof readMembers>) => {
      reads.members++;
      return readMembers(...args);
    };
    const commit = s.store.commit.bind(s.store);
    s.store.commit = async (plan: StreamPlan) => {
      const out = await commit(plan);
      if (expires(plan)) maintenance.push(out);
      return out;
    };
    const answers = await Promise.all(LIVE.map((id) => beat(id)));

    expect(answers.map((a) => a.status)).toEqual(LIVE.map(() => 'OK'));
    expect(reads.members).toBe(1);
    expect(maintenance.map((m) => m.ok)).toEqual([true]);
    const g = (await s.store.load(p, [p]))!.groups[p]!;
    for (const id of SILENT) expect(g.members[id]?.state).toBe('EXPIRED');
  });
});
