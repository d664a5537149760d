import { describe, expect, it } from 'vitest';
import type { PlanOp } from './commit-plan.js';
import { opDueAt, planDueAt } from './due.js';

const T = 1_000_000;
const record = {} as Extract<PlanOp, { k: 'record' }>['record'];

/**
 * Every kind of plan operation with the due time it creates: a row per kind (the type fails to
 * compile when a kind is added without one), so a new kind of time-driven work cannot be left
 * out of the due index by accident.
 */
const ROWS = {
  'group-exists': [{ k: 'group-exists' }, null],
  'record-rev': [{ k: 'record-rev', member: 'm', rev: 1 }, null],
  'target-is': [{ k: 'target-is', member: 'm', target: [] }, null],
  'deadline-is': [{ k: 'deadline-is', member: 'm', at: T }, null],
  'status-is': [{ k: 'status-is', member: 'm', status: 'A' }, null],
  'owner-is': [{ k: 'owner-is', shard: 0, owner: null }, null],
  'owner-mine': [{ k: 'owner-mine', shard: 0, member: 'm' }, null],
  'lease-at-most': [{ k: 'lease-at-most', member: 'm', lease: T }, null],
  'live-below': [{ k: 'live-below', member: 'm', count: 1 }, null],
  'round-is': [{ k: 'round-is', round: null }, null],
  'token-is': [{ k: 'token-is', token: 't' }, null],
  'members-are': [{ k: 'members-are', count: 1 }, null],
  'reset-group': [
    { k: 'reset-group', groupEpoch: 2, metadataVersion: 2, createdAt: 0, at: T, holdUntil: T + 5 },
    T,
  ],
  'wipe-index': [{ k: 'wipe-index', index: 'leases' }, null],
  record: [{ k: 'record', member: 'm', rev: 1, record }, null],
  'joined-record': [{ k: 'joined-record', member: 'm', rev: 1, record, floor: 1 }, null],
  'delete-member': [{ k: 'delete-member', member: 'm' }, null],
  status: [{ k: 'status', member: 'm', status: 'A' }, null],
  target: [{ k: 'target', member: 'm', target: [0] }, null],
  'delete-target': [{ k: 'delete-target', member: 'm' }, null],
  owner: [{ k: 'owner', shard: 0, owner: { memberId: 'm', kind: 'c' } }, null],
  'release-owner': [{ k: 'release-owner', shard: 0, member: 'm' }, null],
  lease: [{ k: 'lease', member: 'm', at: T + 1 }, T + 1],
  'drop-lease': [{ k: 'drop-lease', member: 'm' }, null],
  live: [{ k: 'live', member: 'm', at: T, progress: null }, null],
  deadline: [{ k: 'deadline', member: 'm', at: T + 2, ifAbsent: true }, T + 2],
  'drop-deadline': [{ k: 'drop-deadline', member: 'm' }, null],
  timer: [{ k: 'timer', member: 'm', at: T + 3 }, T + 3],
  'drop-timer': [{ k: 'drop-timer', member: 'm' }, null],
  bump: [{ k: 'bump', group: 1, metadata: 1, at: T + 4 }, T + 4],
  'assignment-epoch': [{ k: 'assignment-epoch', value: 2, at: T }, null],
  round: [{ k: 'round', round: null, freshAcks: false }, null],
  ack: [{ k: 'ack', member: 'm' }, null],
  touch: [{ k: 'touch', at: T }, null],
  fingerprint: [{ k: 'fingerprint', member: 'm', fingerprint: {} as never }, null],
  'release-lock': [{ k: 'release-lock', token: 't', ms: 0 }, null],
} satisfies { [K in PlanOp['k']]: [Extract<PlanOp, { k: K }>, number | null] };

describe('due index > the time-driven work each plan operation creates', () => {
  it.each(Object.entries(ROWS))('%s', (_kind, [op, due]) => {
    expect(opDueAt(op as PlanOp)).toBe(due);
  });

  it('a lease renewal creates nothing the index does not cover already; a fresh lease does', () => {
    expect(opDueAt({ k: 'lease', member: 'm', at: T, renewal: true })).toBeNull();
    expect(opDueAt({ k: 'lease', member: 'm', at: T })).toBe(T);
  });

  it('a plan is due at its earliest operation; a deleted group creates nothing', () => {
    const lease: PlanOp = { k: 'lease', member: 'm', at: T + 10 };
    const timer: PlanOp = { k: 'timer', member: 'n', at: T + 5 };
    expect(planDueAt({ groups: [{ ops: [lease] }, { ops: [timer] }] })).toBe(T + 5);
    expect(planDueAt({ groups: [{ delete: true, ops: [timer] }] })).toBeNull();
    expect(planDueAt({ groups: [{ ops: [{ k: 'touch', at: T }] }] })).toBeNull();
  });
});
