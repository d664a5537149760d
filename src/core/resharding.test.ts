/**
 * Pure outcomes of the resharding functions on hand-built stream states. Everything that needs
 * members, drain evidence or the coordinator's passes runs on the production path in
 * `test/resharding/state-machine.test.ts` and `test/resharding/property.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import { newGroupDoc } from './group.js';
import { DEFAULT_PROTOCOL_CONFIG } from './model.js';
import { activateMigration, newGroupProvisioning, requestScale, rollbackMigration } from './resharding.js';
import { advanceResharding } from './resharding-advance.js';
import type { StreamState } from './stream-state.js';

const CONFIG = DEFAULT_PROTOCOL_CONFIG;
const T0 = 1_700_000_000_000;

/** A stream of `shardCount` shards with groups g1 and g2, no member and no migration. */
function streamState(shardCount: number): StreamState {
  const groups = ['g1', 'g2'];
  return {
    stream: {
      streamPrefix: 'orders',
      shardCount,
      removedShards: [],
      migrations: [],
      activeReshardingId: null,
      groups,
      createdAt: T0,
      updatedAt: T0,
    },
    groups: Object.fromEntries(groups.map((g) => [g, newGroupDoc('orders', g, T0)])),
  };
}

/** `state` with migration `id` to `target` requested and activated. */
function scaledTo(state: StreamState, target: number, id = 'r1'): StreamState {
  const requested = requestScale(state, { targetShardCount: target, reshardingId: id }, T0).state;
  return activateMigration(requested, id, T0, CONFIG);
}

describe('resharding > scale request', () => {
  it('resumes a PREPARING migration with the same target and refuses any other', () => {
    const s = requestScale(streamState(4), { targetShardCount: 8, reshardingId: 'r1' }, T0).state;
    const again = requestScale(s, { targetShardCount: 8, reshardingId: 'r2' }, T0);
    expect(again.outcome).toBe('resumed');
    expect(again.migration.reshardingId).toBe('r1');
    expect(() => requestScale(s, { targetShardCount: 6, reshardingId: 'r3' }, T0)).toThrow(
      expect.objectContaining({ code: 'ACTIVE_MIGRATION_EXISTS' }),
    );
  });

  it('answers the synthetic noop for the current count', () => {
    const s = streamState(4);
    const d = requestScale(s, { targetShardCount: 4, reshardingId: 'r1' }, T0);
    expect(d.outcome).toBe('noop');
    expect(d.migration).toMatchObject({
      reshardingId: 'noop',
      fromShardCount: 4,
      toShardCount: 4,
      state: 'DEPRECATED',
    });
    expect(d.state).toBe(s);
  });
});

describe('resharding > interplay', () => {
  it('provisions a group added mid-migration on every consumable and every target shard', () => {
    expect(newGroupProvisioning(scaledTo(streamState(4), 2).stream)).toEqual({
      create: [0, 1],
      existing: [2, 3],
    });
    const prep = requestScale(streamState(4), { targetShardCount: 6, reshardingId: 'r1' }, T0).state;
    expect(newGroupProvisioning(prep.stream)).toEqual({ create: [0, 1, 2, 3, 4, 5], existing: [] });
  });

  it('takes a scale-in through activation, its first pass and a rollback', () => {
    const s1 = requestScale(streamState(4), { targetShardCount: 2, reshardingId: 'r1' }, T0).state;
    const s2 = activateMigration(s1, 'r1', T0, CONFIG);
    const s3 = advanceResharding(s2, {}, T0, CONFIG);
    expect(s3.stream.migrations[0]!.state).toBe('DRAINING');
    const s4 = rollbackMigration(s3, 'r1', new Map(), T0, CONFIG).state;
    expect(s4.stream.migrations[0]!.state).toBe('ROLLED_BACK');
  });
});
