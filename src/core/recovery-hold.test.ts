import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HeartbeatOutput } from './heartbeat-types.js';
import type { GroupHeader } from './member-view.js';
import { holdNewGrants, isHeld, underHold } from './recovery-hold.js';

const header: GroupHeader = {
  groupEpoch: 3,
  assignmentEpoch: 3,
  metadataVersion: 3,
  correction: null,
  createdAt: 0,
  updatedAt: 0,
};

function ok(assigned: number[], pending: number[] = []): HeartbeatOutput {
  return {
    status: 'OK',
    memberId: 'm',
    memberEpoch: 3,
    groupEpoch: 3,
    assignmentEpoch: 3,
    metadataVersion: 3,
    assignedShards: assigned,
    pendingShards: pending,
    assignmentMetadataVersion: 3,
  };
}

describe('recovery hold after a Redis restart', () => {
  it('lasts until recoveringUntil, and not at all without it', () => {
    expect(isHeld(header, 1000)).toBe(false);
    expect(isHeld({ ...header, recoveringUntil: 1000 }, 999)).toBe(true);
    expect(isHeld({ ...header, recoveringUntil: 1000 }, 1000)).toBe(false);
  });

  it('keeps what the member reports and moves every other grant to pending', () => {
    expect(holdNewGrants(ok([0, 1, 2], [5]), [1, 7])).toMatchObject({
      assignedShards: [1],
      pendingShards: [0, 2, 5],
    });
    expect(holdNewGrants(ok([0, 1]), [])).toMatchObject({ assignedShards: [], pendingShards: [0, 1] });
    const same = ok([0, 1]);
    expect(holdNewGrants(same, [0, 1, 2])).toBe(same);
  });

  it('changes nothing outside the hold', () => {
    const r = ok([0, 1]);
    expect(underHold(r, { ...header, recoveringUntil: 10 }, [], 10)).toBe(r);
    expect(underHold(r, { ...header, recoveringUntil: 11 }, [], 10).assignedShards).toEqual([]);
  });

  it('never grants a shard the member does not report, and loses none (property)', () => {
    const shards = fc.uniqueArray(fc.integer({ min: 0, max: 63 }), { maxLength: 20 });
    fc.assert(
      fc.property(shards, shards, (assigned, owned) => {
        const sorted = [...assigned].sort((a, b) => a - b);
        const out = holdNewGrants(ok(sorted), owned);
        for (const s of out.assignedShards) expect(owned).toContain(s);
        expect([...out.assignedShards, ...out.pendingShards].sort((a, b) => a - b)).toEqual(sorted);
      }),
    );
  });
});
