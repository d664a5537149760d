import { describe, expect, it } from 'vitest';
import type { ShardReading } from './drain-evidence.js';
import { newGroupDoc } from './group.js';
import type { HeartbeatOutput } from './heartbeat-types.js';
import { assignableShards, consumableShards, type GroupDoc } from './model.js';
import {
  activateMigration,
  newGroupProvisioning,
  requestScale,
  reshard,
  rollbackMigration,
  rollbackReadsNeeded,
} from './resharding.js';
import { advanceResharding, ioNeeded, type ReshardIo, streamWorkDue } from './resharding-advance.js';
import { processStreamHeartbeat } from './stream-heartbeat.js';
import type { StreamState } from './stream-state.js';
import { CONFIG, deepFreeze, hb, T0 } from './testing/fixtures.js';

const drainedReading = (groups = ['g1', 'g2']): ShardReading => ({
  kind: 'stream',
  length: 3,
  entriesAdded: 3,
  groups: groups.map((name) => ({ name, pending: 0, lag: 0 })),
});
const backlogReading: ShardReading = {
  kind: 'stream',
  length: 3,
  entriesAdded: 3,
  groups: [
    { name: 'g1', pending: 1, lag: 2 },
    { name: 'g2', pending: 0, lag: 0 },
  ],
};

/** A test bench: a stream with groups g1 and g2 and a clock; members beat through the full path. */
class Bench {
  state: StreamState;
  now = T0;
  private epochs = new Map<string, { epoch: number; mv: number; owned: number[] }>();

  constructor(shardCount: number, groups = ['g1', 'g2']) {
    this.state = {
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

  g(name: string): GroupDoc {
    return this.state.groups[name]!;
  }

  /** One honest heartbeat of `member` in `group` (joins on first use). */
  beat(group: string, member: string, io: ReshardIo = {}): HeartbeatOutput {
    const key = `${group}/${member}`;
    const c = this.epochs.get(key) ?? { epoch: 0, mv: 0, owned: [] };
    const out = processStreamHeartbeat({
      state: deepFreeze(structuredClone(this.state)),
      group,
      request: hb(member, { epoch: c.epoch, mv: c.mv, owned: c.epoch === 0 ? [] : c.owned }),
      io,
      config: CONFIG,
      now: this.now,
    });
    this.state = out.state;
    if (out.response.status === 'OK') {
      this.epochs.set(key, {
        epoch: out.response.memberEpoch,
        mv: out.response.metadataVersion,
        owned: out.response.assignedShards,
      });
    }
    return out.response;
  }

  /** Every listed member beats `times` times. */
  rounds(members: Array<[string, string]>, times = 3): void {
    for (let i = 0; i < times; i++) for (const [g, m] of members) this.beat(g, m);
  }

  advance(io: ReshardIo = {}): StreamState {
    this.state = advanceResharding(deepFreeze(structuredClone(this.state)), io, this.now, CONFIG);
    return this.state;
  }

  scaleTo(target: number, id = 'r1'): void {
    this.state = requestScale(this.state, { targetShardCount: target, reshardingId: id }, this.now).state;
    this.state = activateMigration(this.state, id, this.now, CONFIG);
  }

  removed(shard: number) {
    return this.state.stream.removedShards.find((r) => r.shard === shard);
  }
}

const MEMBERS: Array<[string, string]> = [
  ['g1', 'a'],
  ['g1', 'b'],
  ['g2', 'c'],
];

describe('resharding > scale request', () => {
  it('creates a PREPARING migration without touching any counter', () => {
    const b = new Bench(4);
    b.rounds(MEMBERS);
    const before = structuredClone(b.state.groups);
    const d = requestScale(b.state, { targetShardCount: 8, reshardingId: 'r1' }, b.now);
    expect(d.outcome).toBe('created');
    expect(d.migration).toMatchObject({
      reshardingId: 'r1',
      fromShardCount: 4,
      toShardCount: 8,
      state: 'PREPARING',
    });
    expect(d.state.stream.activeReshardingId).toBe('r1');
    expect(d.state.stream.shardCount).toBe(4);
    expect(d.state.groups).toEqual(before);
  });

  it('resumes a PREPARING migration with the same target and refuses any other', () => {
    const b = new Bench(4);
    b.state = requestScale(b.state, { targetShardCount: 8, reshardingId: 'r1' }, b.now).state;
    const again = requestScale(b.state, { targetShardCount: 8, reshardingId: 'r2' }, b.now);
    expect(again.outcome).toBe('resumed');
    expect(again.migration.reshardingId).toBe('r1');
    expect(() => requestScale(b.state, { targetShardCount: 6, reshardingId: 'r3' }, b.now)).toThrow(
      expect.objectContaining({ code: 'ACTIVE_MIGRATION_EXISTS' }),
    );
  });

  it('answers the synthetic noop for the current count', () => {
    const b = new Bench(4);
    const d = requestScale(b.state, { targetShardCount: 4, reshardingId: 'r1' }, b.now);
    expect(d.outcome).toBe('noop');
    expect(d.migration).toMatchObject({
      reshardingId: 'noop',
      fromShardCount: 4,
      toShardCount: 4,
      state: 'DEPRECATED',
    });
    expect(d.state).toBe(b.state);
  });

  it('waits for an open metadata-correction round in any group', () => {
    const b = new Bench(4);
    b.state.groups.g2 = {
      ...b.g('g2'),
      metadataCorrection: {
        targetMetadataVersion: 1,
        observedMetadataVersion: 5,
        requestedAt: T0,
        updatedAt: T0,
        acknowledgedMembers: [],
      },
    };
    expect(() => requestScale(b.state, { targetShardCount: 8, reshardingId: 'r1' }, b.now)).toThrow(
      expect.objectContaining({ code: 'METADATA_SYNC_IN_PROGRESS' }),
    );
  });
});

describe('resharding > scale-out', () => {
  it('activates with G+1 and M+1 in every group and targets over the new count', () => {
    const b = new Bench(4);
    b.rounds(MEMBERS);
    const before = structuredClone(b.state.groups);
    b.scaleTo(8);
    expect(b.state.stream.shardCount).toBe(8);
    expect(b.state.stream.migrations[0]!.state).toBe('ACTIVE');
    for (const g of ['g1', 'g2']) {
      expect(b.g(g).groupEpoch).toBe(before[g]!.groupEpoch + 1);
      expect(b.g(g).metadataVersion).toBe(before[g]!.metadataVersion + 1);
      expect(Object.values(b.g(g).targetAssignments).flat().sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    }
  });

  it('reaches DEPRECATED (M+1 only) once every added shard is current with its target owner', () => {
    const b = new Bench(4);
    b.rounds(MEMBERS);
    b.scaleTo(8);
    expect(b.advance().stream.activeReshardingId).toBe('r1');
    b.rounds(MEMBERS, 4);
    const s = b.state;
    expect(s.stream.activeReshardingId).toBeNull();
    expect(s.stream.migrations[0]!.state).toBe('DEPRECATED');
  });

  it('completes at once when no group has a live member (reference defect 15)', () => {
    const b = new Bench(4);
    b.scaleTo(8);
    const before = structuredClone(b.state.groups);
    b.advance();
    expect(b.state.stream.migrations[0]!.state).toBe('DEPRECATED');
    expect(b.g('g1').metadataVersion).toBe(before.g1!.metadataVersion + 1);
    expect(b.g('g1').groupEpoch).toBe(before.g1!.groupEpoch);
  });
});

describe('resharding > scale-in drain and retirement', () => {
  function scaledIn(): Bench {
    const b = new Bench(4);
    b.rounds(MEMBERS);
    b.scaleTo(2);
    return b;
  }

  it('keeps removed shards consumable and assignable while they drain; routing shrinks at once', () => {
    const b = scaledIn();
    expect(b.state.stream.shardCount).toBe(2);
    expect(b.state.stream.removedShards.map((r) => [r.shard, r.state, r.reshardingId])).toEqual([
      [2, 'DRAINING', 'r1'],
      [3, 'DRAINING', 'r1'],
    ]);
    expect(consumableShards(b.state.stream)).toEqual([0, 1, 2, 3]);
    expect(assignableShards(b.state.stream)).toEqual([0, 1, 2, 3]);
    expect(Object.values(b.g('g2').targetAssignments).flat().sort()).toEqual([0, 1, 2, 3]);
  });

  it('moves ACTIVE → DRAINING at the first pass without bumping', () => {
    const b = scaledIn();
    const before = structuredClone(b.state.groups);
    b.advance();
    expect(b.state.stream.migrations[0]!.state).toBe('DRAINING');
    expect(b.state.groups).toEqual(before);
  });

  it('stays DRAINING on negative evidence and records why', () => {
    const b = scaledIn();
    b.advance({ readings: new Map([[2, backlogReading]]) });
    expect(b.removed(2)).toMatchObject({ state: 'DRAINING', evidence: { checkedAt: b.now, drained: false } });
    expect(b.removed(2)!.reason).toContain('"g1": 1 pending');
  });

  it('drains on evidence (G+1, leaves targets), waits for holders, then retires and deprecates', () => {
    const b = scaledIn();
    b.advance();
    const g1 = b.g('g1').groupEpoch;
    b.advance({ readings: new Map([[3, drainedReading()]]) });
    expect(b.removed(3)!.state).toBe('DRAINED');
    expect(b.removed(3)!.reason).toMatch(/waiting for g1\/\w, g2\/c to release it/);
    expect(b.g('g1').groupEpoch).toBe(g1 + 1);
    expect(Object.values(b.g('g1').targetAssignments).flat()).not.toContain(3);
    expect(assignableShards(b.state.stream)).toEqual([0, 1, 2]);
    // Members are told to stop (3 disappears from assigned) and report it released.
    b.rounds(MEMBERS, 2);
    expect(b.removed(3)!.state).toBe('RETIRING');
    expect(ioNeeded(b.state.stream, b.now, CONFIG.heartbeatIntervalMs).retirements).toEqual([3]);
    b.advance({ retirements: new Map([[3, { kind: 'deleted' }]]) });
    expect(b.removed(3)).toMatchObject({ state: 'RETIRED', reason: null });
    expect(consumableShards(b.state.stream)).toEqual([0, 1, 2]);
    expect(b.state.stream.activeReshardingId).toBe('r1');

    const before = structuredClone(b.state.groups);
    b.now += CONFIG.heartbeatIntervalMs;
    b.advance({ readings: new Map([[2, drainedReading()]]) });
    b.rounds(MEMBERS, 2);
    b.advance({ retirements: new Map([[2, { kind: 'absent' }]]) });
    expect(b.state.stream.migrations[0]!.state).toBe('DEPRECATED');
    expect(b.state.stream.activeReshardingId).toBeNull();
    expect(b.g('g1').metadataVersion).toBeGreaterThan(before.g1!.metadataVersion);
  });

  it('assigns removed DRAINING shards to members (within their authority) and revokes DRAINED ones', () => {
    const b = new Bench(4, ['g1']);
    b.rounds([['g1', 'a']]);
    b.scaleTo(2);
    const draining = b.beat('g1', 'a');
    expect(draining.status).toBe('OK');
    expect(draining.assignedShards).toEqual([0, 1, 2, 3]);
    b.advance({ readings: new Map([[3, drainedReading(['g1'])]]) });
    const revoked = b.beat('g1', 'a');
    expect(revoked.status).toBe('OK');
    expect(revoked.assignedShards).toEqual([0, 1, 2]);
    expect(b.removed(3)!.state).toBe('DRAINED');
    b.beat('g1', 'a');
    expect(b.removed(3)!.state).toBe('RETIRING');
    expect(b.g('g1').members.a!.state).toBe('ACTIVE');
  });

  it('puts a shard back to DRAINING (G+1, assignable again) when the re-check fails', () => {
    const b = new Bench(4);
    b.scaleTo(2);
    b.advance({ readings: new Map([[3, drainedReading()]]) });
    expect(b.removed(3)!.state).toBe('RETIRING');
    const g = b.g('g1').groupEpoch;
    b.advance({ retirements: new Map([[3, { kind: 'refused', reading: backlogReading }]]) });
    expect(b.removed(3)!.state).toBe('DRAINING');
    expect(b.removed(3)!.reason).toContain('re-check before deletion failed');
    expect(b.g('g1').groupEpoch).toBe(g + 1);
    expect(assignableShards(b.state.stream)).toContain(3);
  });

  it('keeps RETIRING when the retire script could not run', () => {
    const b = new Bench(4);
    b.scaleTo(2);
    b.advance({ readings: new Map([[3, drainedReading()]]) });
    b.advance({ retirements: new Map([[3, { kind: 'error', message: 'Redis is unavailable' }]]) });
    expect(b.removed(3)).toMatchObject({ state: 'RETIRING' });
    expect(b.removed(3)!.reason).toContain('Redis is unavailable');
  });

  it('never treats a null lag or a failed read as evidence', () => {
    const b = new Bench(4);
    b.scaleTo(2);
    const nullLag: ShardReading = {
      kind: 'stream',
      length: 3,
      entriesAdded: 3,
      groups: [
        { name: 'g1', pending: 0, lag: null },
        { name: 'g2', pending: 0, lag: 0 },
      ],
    };
    b.advance({
      readings: new Map<number, ShardReading>([
        [2, nullLag],
        [3, { kind: 'error', message: 'ERR no such key' }],
      ]),
    });
    expect(b.removed(2)!.state).toBe('DRAINING');
    expect(b.removed(2)!.reason).toContain('lag unknown (null');
    expect(b.removed(3)!.state).toBe('DRAINING');
  });

  it('reads evidence at most once per heartbeat interval per shard', () => {
    const b = new Bench(4);
    b.scaleTo(2);
    expect(ioNeeded(b.state.stream, b.now, CONFIG.heartbeatIntervalMs).readings).toEqual([2, 3]);
    b.advance({ readings: new Map([[2, backlogReading]]) });
    expect(ioNeeded(b.state.stream, b.now + 1, CONFIG.heartbeatIntervalMs).readings).toEqual([3]);
    expect(
      ioNeeded(b.state.stream, b.now + CONFIG.heartbeatIntervalMs, CONFIG.heartbeatIntervalMs).readings,
    ).toEqual([2, 3]);
  });

  it('skips revoke waits for expired members: evidence alone decides', () => {
    const b = new Bench(4);
    b.rounds(MEMBERS);
    b.scaleTo(2);
    b.now += CONFIG.memberLeaseTtlMs + 1;
    b.advance({ readings: new Map([[3, drainedReading()]]) });
    expect(b.removed(3)!.state).toBe('RETIRING');
  });

  it('counts blocking-fenced holders until their lease runs out', () => {
    const b = new Bench(4);
    b.rounds([['g1', 'a']]);
    // A stale epoch fences `a` with blocking holdings (SPEC §8.3).
    b.state = processStreamHeartbeat({
      state: b.state,
      group: 'g1',
      request: hb('a', { epoch: 1, mv: 1, owned: [0, 1, 2, 3] }),
      io: {},
      config: CONFIG,
      now: b.now,
    }).state;
    expect(b.g('g1').members.a).toMatchObject({ state: 'FENCED', fence: 'BLOCKING' });
    b.scaleTo(2);
    b.advance({ readings: new Map([[3, drainedReading()]]) });
    expect(b.removed(3)!.state).toBe('DRAINED');
    b.now = b.g('g1').members.a!.memberLeaseExpiresAt + 1;
    b.advance();
    expect(b.removed(3)!.state).toBe('RETIRING');
  });

  it('full drain to 0 shards: no routing, everything removed and consumable', () => {
    const b = new Bench(3);
    b.rounds(MEMBERS);
    b.scaleTo(0);
    expect(b.state.stream.shardCount).toBe(0);
    expect(consumableShards(b.state.stream)).toEqual([0, 1, 2]);
    b.advance({ readings: new Map([0, 1, 2].map((s) => [s, { kind: 'absent' } as ShardReading])) });
    b.rounds(MEMBERS, 2);
    b.advance({ retirements: new Map([0, 1, 2].map((s) => [s, { kind: 'deleted' } as const])) });
    expect(b.state.stream.migrations[0]!.state).toBe('DEPRECATED');
    expect(consumableShards(b.state.stream)).toEqual([]);
  });
});

describe('resharding > rollback', () => {
  const clean = (shards: number[]) => new Map(shards.map((s) => [s, { kind: 'absent' } as ShardReading]));

  it('rolls back a clean scale-out: added shards drain through the normal path (G+1, M+1)', () => {
    const b = new Bench(4);
    b.rounds(MEMBERS);
    b.scaleTo(6);
    const m = b.state.stream.migrations[0]!;
    expect(rollbackReadsNeeded(b.state.stream, m)).toEqual([4, 5]);
    const before = structuredClone(b.state.groups);
    const out = rollbackMigration(b.state, 'r1', clean([4, 5]), b.now, CONFIG);
    expect(out.migration.state).toBe('ROLLED_BACK');
    expect(out.state.stream).toMatchObject({ shardCount: 4, activeReshardingId: null });
    expect(out.state.stream.removedShards.map((r) => [r.shard, r.state])).toEqual([
      [4, 'DRAINING'],
      [5, 'DRAINING'],
    ]);
    expect(out.state.groups.g1!.groupEpoch).toBe(before.g1!.groupEpoch + 1);
    expect(out.state.groups.g1!.metadataVersion).toBe(before.g1!.metadataVersion + 1);
  });

  it('refuses a scale-out rollback once a record was written to an added shard', () => {
    const b = new Bench(4);
    b.scaleTo(6);
    const written = new Map<number, ShardReading>([
      [4, { kind: 'stream', length: 0, entriesAdded: 0, groups: [] }],
      [5, { kind: 'stream', length: 1, entriesAdded: 1, groups: [] }],
    ]);
    expect(() => rollbackMigration(b.state, 'r1', written, b.now, CONFIG)).toThrow(
      expect.objectContaining({ code: 'ROLLBACK_NOT_ALLOWED', message: expect.stringContaining('shard 5') }),
    );
    const unreadable = new Map<number, ShardReading>([
      ...written,
      [5, { kind: 'error', message: 'WRONGTYPE' }],
    ]);
    expect(() => rollbackMigration(b.state, 'r1', unreadable, b.now, CONFIG)).toThrow(
      expect.objectContaining({ code: 'ROLLBACK_NOT_ALLOWED' }),
    );
  });

  it('returns the removed shards of a scale-in to routing, in ACTIVE and in DRAINING', () => {
    for (const passes of [0, 1]) {
      const b = new Bench(4);
      b.scaleTo(2);
      for (let i = 0; i < passes; i++) b.advance({ readings: new Map([[3, backlogReading]]) });
      const out = rollbackMigration(b.state, 'r1', new Map(), b.now, CONFIG);
      expect(out.state.stream).toMatchObject({ shardCount: 4, removedShards: [], activeReshardingId: null });
    }
  });

  it('refuses a scale-in rollback once a removed shard is RETIRING or RETIRED', () => {
    const b = new Bench(4);
    b.scaleTo(2);
    b.advance({ readings: new Map([[3, drainedReading()]]) });
    expect(() => rollbackMigration(b.state, 'r1', new Map(), b.now, CONFIG)).toThrow(
      expect.objectContaining({ code: 'ROLLBACK_NOT_ALLOWED', message: expect.stringContaining('RETIRING') }),
    );
  });

  it('refuses PREPARING and DEPRECATED, answers an unknown id 404 and a rolled-back one unchanged', () => {
    const b = new Bench(4);
    b.state = requestScale(b.state, { targetShardCount: 6, reshardingId: 'r1' }, b.now).state;
    expect(() => rollbackMigration(b.state, 'r1', new Map(), b.now, CONFIG)).toThrow(
      expect.objectContaining({
        code: 'ROLLBACK_NOT_ALLOWED',
        message: expect.stringContaining('PREPARING'),
      }),
    );
    b.state = activateMigration(b.state, 'r1', b.now, CONFIG);
    b.advance();
    expect(() => rollbackMigration(b.state, 'r1', clean([4, 5]), b.now, CONFIG)).toThrow(
      expect.objectContaining({
        code: 'ROLLBACK_NOT_ALLOWED',
        message: expect.stringContaining('DEPRECATED'),
      }),
    );
    expect(() => rollbackMigration(b.state, 'nope', new Map(), b.now, CONFIG)).toThrow(
      expect.objectContaining({ code: 'MIGRATION_NOT_FOUND' }),
    );
    b.scaleTo(5, 'r2');
    const once = rollbackMigration(b.state, 'r2', clean([6]), b.now, CONFIG);
    const twice = rollbackMigration(once.state, 'r2', new Map(), b.now + 5, CONFIG);
    expect(twice.state).toBe(once.state);
    expect(twice.migration).toEqual(once.migration);
  });
});

describe('resharding > interplay', () => {
  const absent = (shards: number[]) => new Map(shards.map((s) => [s, { kind: 'absent' } as ShardReading]));

  it('freezes removed shards below the target of a PREPARING migration', () => {
    const b = new Bench(4);
    b.scaleTo(6);
    b.state = rollbackMigration(b.state, 'r1', absent([4, 5]), b.now, CONFIG).state;
    b.state = requestScale(b.state, { targetShardCount: 5, reshardingId: 'r2' }, b.now).state;
    // Shard 4 returns to routing when r2 activates: it must not start retiring meanwhile.
    expect(ioNeeded(b.state.stream, b.now, CONFIG.heartbeatIntervalMs).readings).toEqual([5]);
    b.advance({
      readings: new Map([
        [4, drainedReading()],
        [5, drainedReading()],
      ]),
    });
    expect(b.removed(4)!.state).toBe('DRAINING');
    expect(b.removed(5)!.state).toBe('RETIRING');
    b.state = activateMigration(b.state, 'r2', b.now, CONFIG);
    expect(b.state.stream.shardCount).toBe(5);
    expect(b.state.stream.removedShards.map((r) => r.shard)).toEqual([5]);
  });

  it('refuses a scale that would route a shard whose key is being deleted', () => {
    const b = new Bench(4);
    b.scaleTo(6);
    b.state = rollbackMigration(b.state, 'r1', absent([4, 5]), b.now, CONFIG).state;
    b.advance({
      readings: new Map([
        [4, drainedReading()],
        [5, drainedReading()],
      ]),
    });
    expect(b.removed(4)!.state).toBe('RETIRING');
    expect(() => requestScale(b.state, { targetShardCount: 5, reshardingId: 'r2' }, b.now)).toThrow(
      expect.objectContaining({
        code: 'ACTIVE_MIGRATION_EXISTS',
        message: expect.stringContaining('shard 4'),
      }),
    );
    expect(requestScale(b.state, { targetShardCount: 3, reshardingId: 'r3' }, b.now).outcome).toBe('created');
  });

  it('provisions a group added mid-migration on every consumable and every target shard', () => {
    const b = new Bench(4);
    b.scaleTo(2);
    expect(newGroupProvisioning(b.state.stream)).toEqual({ create: [0, 1], existing: [2, 3] });
    const prep = new Bench(4);
    prep.state = requestScale(prep.state, { targetShardCount: 6, reshardingId: 'r1' }, prep.now).state;
    expect(newGroupProvisioning(prep.state.stream)).toEqual({ create: [0, 1, 2, 3, 4, 5], existing: [] });
  });

  it('reports whether a pass has work, and reshard() dispatches every input', () => {
    const b = new Bench(4);
    expect(streamWorkDue(b.state, b.now, CONFIG)).toBe(false);
    const s1 = reshard(b.state, { kind: 'scale', targetShardCount: 2, reshardingId: 'r1' }, b.now, CONFIG);
    expect(streamWorkDue(s1, b.now, CONFIG)).toBe(true);
    const s2 = reshard(s1, { kind: 'activate', reshardingId: 'r1' }, b.now, CONFIG);
    const s3 = reshard(s2, { kind: 'advance', io: {} }, b.now, CONFIG);
    expect(s3.stream.migrations[0]!.state).toBe('DRAINING');
    const s4 = reshard(s3, { kind: 'rollback', reshardingId: 'r1', readings: new Map() }, b.now, CONFIG);
    expect(s4.stream.migrations[0]!.state).toBe('ROLLED_BACK');
  });
});
