/**
 * The resharding state machine on the production path, with two consumer groups: members
 * heartbeat through `Coordinator.heartbeat`, the migration moves through the coordinator's scale,
 * rollback, sweep and the lazy pass of heartbeats, and the stream is read back from Redis after
 * every step. Drain evidence is what Redis holds (entries written with XADD, read and
 * acknowledged with XREADGROUP / XACK as the groups); only a failed read, a retire script that
 * cannot run and a refused provisioning are injected through the store.
 */
import { describe, expect, it } from 'vitest';
import { assignableShards, consumableShards } from '../../src/core/model.js';
import { rollbackReadsNeeded } from '../../src/core/resharding.js';
import { ioNeeded } from '../../src/core/resharding-advance.js';
import { hb, ReshardDriver } from '../support/reshard-driver.js';

const MEMBERS: Array<[string, string]> = [
  ['g1', 'a'],
  ['g1', 'b'],
  ['g2', 'c'],
];

const UNAVAILABLE = 'Redis is unavailable (test fault)';

/** Gives each listed shard three entries no group has read: it cannot drain. */
async function backlog(d: ReshardDriver, shards: number[]): Promise<void> {
  for (const s of shards) await d.fill(s, 3);
}

/** Three entries on `shard`, read and acknowledged by every group: drained. */
async function drained(d: ReshardDriver, shard: number): Promise<void> {
  await d.fill(shard, 3);
  await d.drain(shard);
}

/** Records, at each retire script, the state of the listed shards as the coordinator committed it. */
function watchRetirements(d: ReshardDriver, shards: number[]): Array<Record<number, string | undefined>> {
  const seen: Array<Record<number, string | undefined>> = [];
  d.faults.beforeRetire = async () => {
    const snap = await d.store.load(d.prefix, 'all');
    const state = (s: number) => snap?.stream.removedShards.find((r) => r.shard === s)?.state;
    seen.push(Object.fromEntries(shards.map((s) => [s, state(s)])));
  };
  return seen;
}

describe('resharding > scale request', () => {
  it('creates a PREPARING migration without touching any counter', async () => {
    const d = await ReshardDriver.open(4);
    await d.rounds(MEMBERS);
    const before = structuredClone(d.snapshot.groups);
    // Provisioning refused: the migration is created and stays PREPARING.
    d.faults.refuseProvision = () => true;
    await expect(d.scale(8)).rejects.toMatchObject({ code: 'REDIS_STREAM_PROVISIONING_FAILED' });
    expect(d.stream.migrations).toHaveLength(1);
    const m = d.stream.migrations[0]!;
    expect(m).toMatchObject({
      reshardingId: expect.stringMatching(/^reshard-/),
      fromShardCount: 4,
      toShardCount: 8,
      state: 'PREPARING',
    });
    expect(d.stream.activeReshardingId).toBe(m.reshardingId);
    expect(d.stream.shardCount).toBe(4);
    expect(d.snapshot.groups).toEqual(before);
  });

  it('waits for an open metadata-correction round in any group', async () => {
    const d = await ReshardDriver.open(4);
    await d.rounds(MEMBERS);
    // c reports a newer metadata version than g2 stores: a correction round opens in g2 only.
    const c = d.member('g2', 'c');
    const sync = await d.send(
      'g2',
      hb(
        'c',
        { epoch: c.memberEpoch, mv: d.g('g2').metadataVersion + 4, owned: c.currentAssignment },
        d.prefix,
      ),
    );
    expect(sync.status).toBe('SYNC_METADATA');
    expect(d.g('g2').metadataCorrection).not.toBeNull();
    expect(d.g('g1').metadataCorrection).toBeNull();
    await expect(d.scale(8)).rejects.toMatchObject({ code: 'METADATA_SYNC_IN_PROGRESS' });
    expect(d.stream).toMatchObject({ shardCount: 4, activeReshardingId: null, migrations: [] });
  });
});

describe('resharding > scale-out', () => {
  it('activates with G+1 and M+1 in every group and targets over the new count', async () => {
    const d = await ReshardDriver.open(4);
    await d.rounds(MEMBERS);
    const before = structuredClone(d.snapshot.groups);
    await d.scale(8);
    expect(d.stream.shardCount).toBe(8);
    expect(d.stream.migrations[0]!.state).toBe('ACTIVE');
    for (const g of ['g1', 'g2']) {
      expect(d.g(g).groupEpoch).toBe(before[g]!.groupEpoch + 1);
      expect(d.g(g).metadataVersion).toBe(before[g]!.metadataVersion + 1);
      expect(Object.values(d.g(g).targetAssignments).flat().sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    }
  });

  it('reaches DEPRECATED (M+1 only) once every added shard is current with its target owner', async () => {
    const d = await ReshardDriver.open(4);
    await d.rounds(MEMBERS);
    await d.scale(8);
    const id = d.activeId();
    await d.sweep();
    expect(d.stream.activeReshardingId).toBe(id);
    await d.rounds(MEMBERS, 4);
    expect(d.stream.activeReshardingId).toBeNull();
    expect(d.stream.migrations[0]!.state).toBe('DEPRECATED');
  });

  it('completes at once when no group has a live member', async () => {
    const d = await ReshardDriver.open(4);
    await d.scale(8);
    const before = structuredClone(d.snapshot.groups);
    await d.sweep();
    expect(d.stream.migrations[0]!.state).toBe('DEPRECATED');
    expect(d.g('g1').metadataVersion).toBe(before.g1!.metadataVersion + 1);
    expect(d.g('g1').groupEpoch).toBe(before.g1!.groupEpoch);
  });
});

describe('resharding > scale-in drain and retirement', () => {
  async function scaledIn(): Promise<ReshardDriver> {
    const d = await ReshardDriver.open(4);
    await d.rounds(MEMBERS);
    await d.scale(2);
    return d;
  }

  it('keeps removed shards consumable and assignable while they drain; routing shrinks at once', async () => {
    const d = await scaledIn();
    const id = d.activeId();
    expect(d.stream.shardCount).toBe(2);
    expect(d.stream.removedShards.map((r) => [r.shard, r.state, r.reshardingId])).toEqual([
      [2, 'DRAINING', id],
      [3, 'DRAINING', id],
    ]);
    expect(consumableShards(d.stream)).toEqual([0, 1, 2, 3]);
    expect(assignableShards(d.stream)).toEqual([0, 1, 2, 3]);
    expect(Object.values(d.g('g2').targetAssignments).flat().sort()).toEqual([0, 1, 2, 3]);
  });

  it('moves ACTIVE → DRAINING at the first pass without bumping', async () => {
    const d = await scaledIn();
    await backlog(d, [2, 3]);
    const before = structuredClone(d.snapshot.groups);
    await d.sweep();
    expect(d.stream.migrations[0]!.state).toBe('DRAINING');
    expect(d.snapshot.groups).toEqual(before);
  });

  it('stays DRAINING on negative evidence and records why', async () => {
    const d = await scaledIn();
    // Shard 2: g1 has one entry delivered and not acknowledged, two not delivered; g2 read all.
    await d.fill(2, 3);
    await d.deliver(2, 'g1', 1);
    await d.drain(2, ['g2']);
    await d.sweep();
    expect(d.removed(2)).toMatchObject({ state: 'DRAINING', evidence: { checkedAt: d.now, drained: false } });
    expect(d.removed(2)!.evidence!.consumerGroups).toEqual([
      { name: 'g1', pending: 1, lag: 2, lastDeliveredId: expect.any(String), entryAfterLastDelivered: true },
      { name: 'g2', pending: 0, lag: 0, lastDeliveredId: expect.any(String), entryAfterLastDelivered: false },
    ]);
    expect(d.removed(2)!.reason).toContain('"g1": 1 pending');
  });

  it('drains on evidence (G+1, leaves targets), waits for holders, then retires and deprecates', async () => {
    const d = await scaledIn();
    const id = d.activeId();
    await backlog(d, [2, 3]);
    await d.sweep();
    const g1 = d.g('g1').groupEpoch;
    // Both groups read and acknowledge shard 3; its evidence is read again one interval later.
    await d.drain(3);
    d.advance(d.config.heartbeatIntervalMs);
    await d.sweep();
    expect(d.removed(3)!.state).toBe('DRAINED');
    expect(d.removed(3)!.reason).toMatch(/waiting for g1\/\w, g2\/c to release it/);
    expect(d.g('g1').groupEpoch).toBe(g1 + 1);
    expect(Object.values(d.g('g1').targetAssignments).flat()).not.toContain(3);
    expect(assignableShards(d.stream)).toEqual([0, 1, 2]);
    // Members are told to stop (3 disappears from assigned) and report it released.
    await d.beatUntil(MEMBERS, () => d.removed(3)!.state !== 'DRAINED', 2);
    expect(d.removed(3)!.state).toBe('RETIRING');
    expect(ioNeeded(d.stream, d.now, d.config.heartbeatIntervalMs).retirements).toEqual([3]);
    expect(await d.exists(3)).toBe(true);
    await d.sweep();
    expect(d.removed(3)).toMatchObject({ state: 'RETIRED', reason: null });
    expect(await d.exists(3)).toBe(false);
    expect(consumableShards(d.stream)).toEqual([0, 1, 2]);
    expect(d.stream.activeReshardingId).toBe(id);

    const before = structuredClone(d.snapshot.groups);
    d.advance(d.config.heartbeatIntervalMs);
    await d.drain(2);
    await d.sweep();
    expect(d.removed(2)!.state).toBe('DRAINED');
    await d.beatUntil(MEMBERS, () => d.removed(2)!.state !== 'DRAINED', 2);
    expect(d.removed(2)!.state).toBe('RETIRING');
    // The key went away meanwhile: the retire script finds it absent.
    await d.redis.del(d.key(2));
    await d.sweep();
    expect(d.stream.migrations[0]!.state).toBe('DEPRECATED');
    expect(d.stream.activeReshardingId).toBeNull();
    expect(d.g('g1').metadataVersion).toBeGreaterThan(before.g1!.metadataVersion);
  });

  it('assigns removed DRAINING shards to members (within their authority) and revokes DRAINED ones', async () => {
    const d = await ReshardDriver.open(4, ['g1']);
    await d.rounds([['g1', 'a']]);
    await backlog(d, [2, 3]);
    await d.scale(2);
    const draining = await d.beat('g1', 'a');
    expect(draining.status).toBe('OK');
    expect(draining.assignedShards).toEqual([0, 1, 2, 3]);
    await d.drain(3);
    d.advance(d.config.heartbeatIntervalMs);
    await d.sweep();
    const revoked = await d.beat('g1', 'a');
    expect(revoked.status).toBe('OK');
    expect(revoked.assignedShards).toEqual([0, 1, 2]);
    expect(d.removed(3)!.state).toBe('DRAINED');
    await d.beat('g1', 'a');
    expect(d.removed(3)!.state).toBe('RETIRING');
    expect(d.member('g1', 'a').state).toBe('ACTIVE');
  });

  it('puts a shard back to DRAINING (G+1, assignable again) when the re-check fails', async () => {
    const d = await ReshardDriver.open(4);
    await d.scale(2);
    await backlog(d, [2]);
    await drained(d, 3);
    let atRetire: { state: string | undefined; epoch: number } | null = null;
    d.faults.beforeRetire = async (shard) => {
      const snap = await d.store.load(d.prefix, 'all');
      atRetire = {
        state: snap?.stream.removedShards.find((r) => r.shard === shard)?.state,
        epoch: snap!.groups.g1!.groupEpoch,
      };
      // A late write lands between the evidence and the atomic re-check.
      await d.fill(shard, 1);
    };
    await d.sweep();
    expect(atRetire).toEqual({ state: 'RETIRING', epoch: expect.any(Number) });
    expect(d.removed(3)!.state).toBe('DRAINING');
    expect(d.removed(3)!.reason).toContain('re-check before deletion failed');
    expect(d.g('g1').groupEpoch).toBe(atRetire!.epoch + 1);
    expect(assignableShards(d.stream)).toContain(3);
    expect(await d.exists(3)).toBe(true);
  });

  it('keeps RETIRING when the retire script could not run', async () => {
    const d = await ReshardDriver.open(4);
    await d.scale(2);
    await backlog(d, [2]);
    await drained(d, 3);
    d.faults.failRetire.set(3, UNAVAILABLE);
    await d.sweep();
    expect(d.calls.retires).toContain(3);
    expect(d.removed(3)).toMatchObject({ state: 'RETIRING' });
    expect(d.removed(3)!.reason).toContain('Redis is unavailable');
    expect(await d.exists(3)).toBe(true);
    // Retried once the script runs again.
    d.faults.failRetire.clear();
    await d.sweep();
    expect(d.removed(3)!.state).toBe('RETIRED');
    expect(await d.exists(3)).toBe(false);
  });

  it('never treats a null lag or a failed read as evidence', async () => {
    const d = await ReshardDriver.open(4);
    await d.scale(2);
    // Shard 2: g2 read and acknowledged everything; g1 read the first entry, and an entry beyond
    // its position was deleted (Redis then reports its lag as null).
    const ids = await d.fill(2, 3);
    await d.drain(2, ['g2']);
    await d.ack(2, 'g1', await d.deliver(2, 'g1', 1));
    await d.redis.xdel(d.key(2), ids[1]!);
    expect(await d.readShard(2)).toMatchObject({
      kind: 'stream',
      groups: [
        { name: 'g1', pending: 0, lag: null },
        { name: 'g2', pending: 0, lag: 0 },
      ],
    });
    // Shard 3 is drained, but reading it fails.
    await drained(d, 3);
    d.faults.failRead.set(3, 'ERR no such key');
    await d.sweep();
    expect(d.removed(2)!.state).toBe('DRAINING');
    expect(d.removed(2)!.reason).toContain('lag unknown (null');
    expect(d.removed(3)!.state).toBe('DRAINING');
    expect(await d.exists(2)).toBe(true);
    expect(await d.exists(3)).toBe(true);
  });

  it('reads evidence at most once per heartbeat interval per shard', async () => {
    const d = await ReshardDriver.open(4);
    await d.scale(2);
    await backlog(d, [2, 3]);
    await d.sweep();
    expect([...d.calls.reads].sort()).toEqual([2, 3]);
    // Within the interval neither the sweep nor the lazy pass of heartbeats reads again.
    d.calls.reads.length = 0;
    d.advance(1);
    await d.rounds(MEMBERS, 1);
    await d.sweep();
    expect(d.calls.reads).toEqual([]);
    // One interval after the reads, each shard is read once more.
    d.advance(d.config.heartbeatIntervalMs - 1);
    await d.rounds(MEMBERS, 1);
    await d.sweep();
    expect([...d.calls.reads].sort()).toEqual([2, 3]);
  });

  it('skips revoke waits for expired members: evidence alone decides', async () => {
    const d = await scaledIn();
    await backlog(d, [2]);
    await drained(d, 3);
    d.advance(d.config.memberLeaseTtlMs + 1);
    const seen = watchRetirements(d, [3]);
    await d.sweep();
    expect(seen).toEqual([{ 3: 'RETIRING' }]);
    expect(d.removed(3)!.state).toBe('RETIRED');
  });

  it('counts blocking-fenced holders until their lease runs out', async () => {
    const d = await ReshardDriver.open(4);
    await d.rounds([['g1', 'a']]);
    // A report outside its authority (shard 9 does not exist) fences `a` with blocking holdings.
    const { memberEpoch, metadataVersion } = d.member('g1', 'a');
    await d.send(
      'g1',
      hb('a', { epoch: memberEpoch, mv: metadataVersion, owned: [0, 1, 2, 3, 9] }, d.prefix),
    );
    expect(d.member('g1', 'a')).toMatchObject({ state: 'FENCED', fence: 'BLOCKING' });
    await d.scale(2);
    await backlog(d, [2]);
    await drained(d, 3);
    await d.sweep();
    expect(d.removed(3)!.state).toBe('DRAINED');
    d.now = d.member('g1', 'a').memberLeaseExpiresAt + 1;
    const seen = watchRetirements(d, [3]);
    await d.sweep();
    expect(seen).toEqual([{ 3: 'RETIRING' }]);
  });

  it('full drain to 0 shards: no routing, everything removed and consumable', async () => {
    const d = await ReshardDriver.open(3);
    await d.rounds(MEMBERS);
    await backlog(d, [0, 1, 2]);
    await d.scale(0);
    expect(d.stream.shardCount).toBe(0);
    expect(consumableShards(d.stream)).toEqual([0, 1, 2]);
    for (const s of [0, 1, 2]) await d.drain(s);
    d.advance(d.config.heartbeatIntervalMs);
    await d.sweep();
    await d.rounds(MEMBERS, 2);
    await d.sweep();
    expect(d.stream.migrations[0]!.state).toBe('DEPRECATED');
    expect(consumableShards(d.stream)).toEqual([]);
    for (const s of [0, 1, 2]) expect(await d.exists(s)).toBe(false);
  });
});

describe('resharding > rollback', () => {
  it('rolls back a clean scale-out: added shards drain through the normal path (G+1, M+1)', async () => {
    const d = await ReshardDriver.open(4);
    await d.rounds(MEMBERS);
    await d.scale(6);
    const m = d.stream.migrations[0]!;
    expect(rollbackReadsNeeded(d.stream, m)).toEqual([4, 5]);
    const before = structuredClone(d.snapshot.groups);
    d.calls.reads.length = 0;
    const out = await d.rollback(m.reshardingId);
    expect(out.state).toBe('ROLLED_BACK');
    expect([...d.calls.reads].sort()).toEqual([4, 5]);
    expect(d.stream).toMatchObject({ shardCount: 4, activeReshardingId: null });
    expect(d.stream.removedShards.map((r) => [r.shard, r.state])).toEqual([
      [4, 'DRAINING'],
      [5, 'DRAINING'],
    ]);
    expect(d.g('g1').groupEpoch).toBe(before.g1!.groupEpoch + 1);
    expect(d.g('g1').metadataVersion).toBe(before.g1!.metadataVersion + 1);
  });

  it('refuses a scale-out rollback once a record was written to an added shard', async () => {
    const d = await ReshardDriver.open(4);
    await d.scale(6);
    await d.fill(5, 1);
    await expect(d.rollback(d.activeId())).rejects.toMatchObject({
      code: 'ROLLBACK_NOT_ALLOWED',
      message: expect.stringContaining('shard 5'),
    });
    // An added shard nobody wrote to, but whose read fails, is no evidence either.
    const u = await ReshardDriver.open(4);
    await u.scale(6);
    u.faults.failRead.set(5, 'WRONGTYPE Operation against a key holding the wrong kind of value');
    await expect(u.rollback(u.activeId())).rejects.toMatchObject({ code: 'ROLLBACK_NOT_ALLOWED' });
    u.faults.failRead.clear();
    expect((await u.rollback(u.activeId())).state).toBe('ROLLED_BACK');
  });

  it('returns the removed shards of a scale-in to routing, in ACTIVE and in DRAINING', async () => {
    for (const passes of [0, 1]) {
      const d = await ReshardDriver.open(4);
      await d.scale(2);
      await backlog(d, [2, 3]);
      for (let i = 0; i < passes; i++) await d.sweep();
      expect(d.stream.migrations[0]!.state).toBe(passes === 0 ? 'ACTIVE' : 'DRAINING');
      await d.rollback(d.activeId());
      expect(d.stream).toMatchObject({ shardCount: 4, removedShards: [], activeReshardingId: null });
    }
  });

  it('refuses a scale-in rollback once a removed shard is RETIRING or RETIRED', async () => {
    const d = await ReshardDriver.open(4);
    await d.scale(2);
    const id = d.activeId();
    await backlog(d, [2]);
    await drained(d, 3);
    d.faults.failRetire.set(3, UNAVAILABLE);
    await d.sweep();
    expect(d.removed(3)!.state).toBe('RETIRING');
    await expect(d.rollback(id)).rejects.toMatchObject({
      code: 'ROLLBACK_NOT_ALLOWED',
      message: expect.stringContaining('RETIRING'),
    });
    d.faults.failRetire.clear();
    await d.sweep();
    expect(d.removed(3)!.state).toBe('RETIRED');
    await expect(d.rollback(id)).rejects.toMatchObject({
      code: 'ROLLBACK_NOT_ALLOWED',
      message: expect.stringContaining('RETIRED'),
    });
  });

  it('refuses PREPARING and DEPRECATED, answers an unknown id 404 and a rolled-back one unchanged', async () => {
    const d = await ReshardDriver.open(4);
    d.faults.refuseProvision = () => true;
    await expect(d.scale(6)).rejects.toMatchObject({ code: 'REDIS_STREAM_PROVISIONING_FAILED' });
    const id = d.activeId();
    expect(d.stream.migrations[0]!.state).toBe('PREPARING');
    await expect(d.rollback(id)).rejects.toMatchObject({
      code: 'ROLLBACK_NOT_ALLOWED',
      message: expect.stringContaining('PREPARING'),
    });
    // The same request resumes; with no live member the scale-out completes at the next pass.
    d.faults.refuseProvision = null;
    expect((await d.scale(6)).migration).toMatchObject({ reshardingId: id, state: 'ACTIVE' });
    await d.sweep();
    await expect(d.rollback(id)).rejects.toMatchObject({
      code: 'ROLLBACK_NOT_ALLOWED',
      message: expect.stringContaining('DEPRECATED'),
    });
    await expect(d.rollback('nope')).rejects.toMatchObject({ code: 'MIGRATION_NOT_FOUND' });
    await d.scale(5);
    const second = d.activeId();
    const once = await d.rollback(second);
    const stored = structuredClone(d.snapshot);
    d.advance(5);
    const twice = await d.rollback(second);
    expect(d.snapshot).toEqual(stored);
    expect(twice).toEqual(once);
  });
});

describe('resharding > interplay', () => {
  it('freezes removed shards below the target of a PREPARING migration', async () => {
    const d = await ReshardDriver.open(4);
    await d.scale(6);
    await d.rollback(d.activeId());
    d.faults.refuseProvision = () => true;
    await expect(d.scale(5)).rejects.toMatchObject({ code: 'REDIS_STREAM_PROVISIONING_FAILED' });
    expect(d.stream.migrations.at(-1)).toMatchObject({ state: 'PREPARING', toShardCount: 5 });
    // Shard 4 returns to routing when the migration activates: it must not start retiring meanwhile.
    // (Shard 5's retire script cannot run yet: it stays RETIRING, as the record activation keeps.)
    d.calls.reads.length = 0;
    d.faults.failRetire.set(5, UNAVAILABLE);
    const seen = watchRetirements(d, [4, 5]);
    await d.sweep();
    expect(d.calls.reads).toEqual([5]);
    expect(new Set(d.calls.retires)).toEqual(new Set([5]));
    expect(seen[0]).toEqual({ 4: 'DRAINING', 5: 'RETIRING' });
    expect(d.removed(4)!.state).toBe('DRAINING');
    expect(d.removed(5)!.state).toBe('RETIRING');
    expect(await d.exists(4)).toBe(true);
    d.faults.refuseProvision = null;
    await d.scale(5);
    expect(d.stream.shardCount).toBe(5);
    expect(d.stream.removedShards.map((r) => r.shard)).toEqual([5]);
    d.faults.failRetire.clear();
    await d.sweep();
    expect(d.removed(5)!.state).toBe('RETIRED');
    expect(await d.exists(5)).toBe(false);
    expect(await d.exists(4)).toBe(true);
  });

  it('refuses a scale that would route a shard whose key is being deleted', async () => {
    const d = await ReshardDriver.open(4);
    await d.scale(6);
    const first = d.activeId();
    await d.rollback(first);
    d.faults.failRetire.set(4, UNAVAILABLE);
    d.faults.failRetire.set(5, UNAVAILABLE);
    await d.sweep();
    expect(d.removed(4)!.state).toBe('RETIRING');
    await expect(d.scale(5)).rejects.toMatchObject({
      code: 'ACTIVE_MIGRATION_EXISTS',
      message: expect.stringContaining('shard 4'),
    });
    const created = await d.scale(3);
    expect(created.migration).toMatchObject({ fromShardCount: 4, toShardCount: 3 });
    expect(created.migration.reshardingId).not.toBe(first);
  });
});
