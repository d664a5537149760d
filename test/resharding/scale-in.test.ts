/**
 * Scale-in over HTTP against real Redis (standalone and 6-node Cluster): removed shards stay
 * consumable until Redis shows them drained, then are retired by an atomic check-and-delete
 * (docs/protocol.md#resharding, docs/protocol.md#deviation-scale-in-drains). Drain evidence must be positive: null lag, pending entries of any group and
 * unread entries keep a shard DRAINING.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { backends } from '../support/redis.js';
import { makeStack, type Stack } from '../support/stack.js';
import {
  createStream,
  exists,
  fill,
  groupsOn,
  migration,
  migrations,
  plainReader,
  produce,
  readAndAck,
  readingMembers,
  round,
  roundsUntil,
  routedShards,
  scale,
  sweepUntil,
} from './support.js';

describe.each(backends)('resharding > scale-in ($name)', (backend) => {
  let stack: Stack;
  afterEach(async () => {
    await stack?.close();
  });

  /** Stream with `shards` shards, a backlog of `backlog` entries per shard, and the migration to `target`. */
  async function scaledIn(shards: number, target: number, backlog: number, members = 0) {
    const p = await createStream(stack, shards);
    const team = readingMembers(p, p, members);
    for (let r = 0; r < 3; r++) await round(stack, team);
    const written: string[] = [];
    for (let i = 0; i < shards; i++) written.push(...(await fill(stack.redis, `${p}:${i}`, backlog)));
    const res = await scale(stack, p, target);
    expect(res.status).toBe(202);
    return { p, team, written, id: res.body.migrations[0].reshardingId as string };
  }

  it('8 → 3 with a backlog: members drain the removed shards while producers use the new layout; keys are deleted', async () => {
    stack = makeStack(backend);
    const { p, team, written, id } = await scaledIn(8, 3, 5, 3);
    expect(await routedShards(stack, p)).toBe(3);
    const group = (await stack.call('GET', `/coord/v1/streams/${p}/groups/${p}`)).body;
    expect(group.shardCount).toBe(3);
    expect(group.consumableShards).toHaveLength(8);
    const early = await migrations(stack, p);
    expect(early).toMatchObject({
      activeReshardingId: id,
      shardCount: 3,
      rollback: { allowed: true, reason: null },
    });
    expect(early.removedShards.map((r: { shardIndex: number }) => r.shardIndex)).toEqual([3, 4, 5, 6, 7]);
    for (const r of early.removedShards) {
      expect(r).toMatchObject({ streamKey: `${p}:${r.shardIndex}`, reshardingId: id, state: 'DRAINING' });
      expect(r.holders).toEqual([{ consumerGroup: p, memberId: expect.any(String), memberState: 'ACTIVE' }]);
      expect(r.liveEvidence).toMatchObject({ drained: false, keyExists: true, streamLength: 5 });
    }

    // Members keep reading removed shards 3..7 through normal assignment; producers write to 0..2.
    let rounds = 0;
    while ((await migration(stack, p, id)).state !== 'DEPRECATED' && rounds++ < 40) {
      written.push(...(await produce(stack.redis, p, 3, 6)));
      expect(await routedShards(stack, p)).toBe(3);
      await round(stack, team);
    }
    expect((await migration(stack, p, id)).state).toBe('DEPRECATED');
    for (let r = 0; r < 2; r++) await round(stack, team);

    const read = new Set(team.flatMap((m) => m.read));
    expect(written.filter((w) => !read.has(w))).toEqual([]);
    for (let i = 3; i < 8; i++) {
      expect(await exists(stack.redis, `${p}:${i}`)).toBe(false);
      // A stale producer's write is refused instead of landing in a deleted shard.
      expect(await stack.redis.xadd(`${p}:${i}`, 'NOMKSTREAM', '*', 'f', 'v')).toBeNull();
    }
    const view = await migrations(stack, p);
    expect(view.activeReshardingId).toBeNull();
    expect(view.shardCount).toBe(3);
    const after = (await stack.call('GET', `/coord/v1/streams/${p}/groups/${p}`)).body;
    expect(after.consumableShards).toEqual([0, 1, 2].map((shardIndex) => ({ shardIndex })));
    const owned = team.flatMap((m) => m.owned).sort();
    expect(owned).toEqual([0, 1, 2]);
  });

  it('with every member expired: stays DRAINING while entries are unread; a plain reader drains, the sweep retires', async () => {
    stack = makeStack(backend);
    const { p, id } = await scaledIn(4, 2, 3, 2);
    stack.clock.advance(stack.config.memberLeaseTtlMs + 1);
    for (let s = 0; s < 3; s++) {
      await stack.coordinator.sweep(stack.clock.now());
      stack.clock.advance(stack.config.heartbeatIntervalMs);
    }
    expect((await migration(stack, p, id)).state).toBe('DRAINING');
    const view = await migrations(stack, p);
    expect(view.removedShards.map((r: { state: string }) => r.state)).toEqual(['DRAINING', 'DRAINING']);
    expect(view.removedShards[0].reason).toMatch(/entries not yet delivered/);
    expect(view.removedShards[0].liveEvidence).toMatchObject({
      drained: false,
      keyExists: true,
      streamLength: 3,
    });
    expect(view.removedShards[0].lastEvidence.consumerGroups).toEqual([
      { consumerGroup: p, pendingCount: 0, lag: 3 },
    ]);
    expect(view.rollback).toEqual({ allowed: true, reason: null });

    expect(await plainReader(stack.redis, p, p, [2, 3])).toHaveLength(6);
    await sweepUntil(stack, async () => (await migration(stack, p, id)).state === 'DEPRECATED', 3);
    expect(await exists(stack.redis, `${p}:2`)).toBe(false);
    expect(await exists(stack.redis, `${p}:3`)).toBe(false);
  });

  it('keeps a shard with a null lag (XDEL beyond the group position) DRAINING and says why', async () => {
    stack = makeStack(backend);
    const { p, id } = await scaledIn(3, 2, 0);
    const ids = await fill(stack.redis, `${p}:2`, 3);
    // The group reads (and acks) the first entry; an entry beyond its position is deleted.
    await stack.redis.xreadgroup('GROUP', p, 'c', 'COUNT', 1, 'STREAMS', `${p}:2`, '>');
    await stack.redis.xack(`${p}:2`, p, ids[0]!);
    await stack.redis.xdel(`${p}:2`, ids[1]!);
    expect((await groupsOn(stack.redis, `${p}:2`))[0]).toMatchObject({ pending: 0, lag: null });

    for (let s = 0; s < 3; s++) {
      await stack.coordinator.sweep(stack.clock.now());
      stack.clock.advance(stack.config.heartbeatIntervalMs);
    }
    expect((await migration(stack, p, id)).state).toBe('DRAINING');
    const [shard] = (await migrations(stack, p)).removedShards;
    expect(shard).toMatchObject({ shardIndex: 2, state: 'DRAINING' });
    expect(shard.reason).toContain('lag unknown (null');
    expect(shard.liveEvidence.consumerGroups).toEqual([{ consumerGroup: p, pendingCount: 0, lag: null }]);
    expect(await exists(stack.redis, `${p}:2`)).toBe(true);
  });

  it('an unmanaged consumer group blocks retirement, acknowledged or not, until it is destroyed', async () => {
    stack = makeStack(backend);
    const { p, id } = await scaledIn(3, 2, 0);
    const key = `${p}:2`;
    await stack.redis.xgroup('CREATE', key, 'audit', '$');
    const ids = await fill(stack.redis, key, 2);
    // The managed group is done; the unmanaged one has read both entries but not acknowledged them.
    await readAndAck(stack.redis, key, p, 'plain');
    await stack.redis.xreadgroup('GROUP', 'audit', 'x', 'STREAMS', key, '>');
    for (let s = 0; s < 3; s++) {
      await stack.coordinator.sweep(stack.clock.now());
      stack.clock.advance(stack.config.heartbeatIntervalMs);
    }
    expect((await migration(stack, p, id)).state).toBe('DRAINING');
    expect(await exists(stack.redis, key)).toBe(true);
    const [shard] = (await migrations(stack, p)).removedShards;
    expect(shard.reason).toContain('"audit": 2 pending');

    expect(await stack.redis.xack(key, 'audit', ...ids)).toBe(2);
    // Everything read and acknowledged, but the key carries a group the coordinator does not manage.
    for (let s = 0; s < 3; s++) {
      await stack.coordinator.sweep(stack.clock.now());
      stack.clock.advance(stack.config.heartbeatIntervalMs);
    }
    expect((await migration(stack, p, id)).state).toBe('DRAINING');
    expect(await exists(stack.redis, key)).toBe(true);
    expect((await migrations(stack, p)).removedShards[0].reason).toContain('"audit" is not managed');

    await stack.redis.xgroup('DESTROY', key, 'audit');
    await sweepUntil(stack, async () => (await migration(stack, p, id)).state === 'DEPRECATED', 3);
    expect(await exists(stack.redis, key)).toBe(false);
  });

  it('targetShardCount 0 drains everything: routing is empty once ACTIVE, members drain, keys are deleted', async () => {
    stack = makeStack(backend);
    const { p, team, written, id } = await scaledIn(3, 0, 4, 2);
    const routing = await stack.call('GET', `/coord/v1/streams/${p}/groups/${p}/producer-routing`);
    expect(routing.body).toMatchObject({ shardCount: 0, shards: [] });
    await roundsUntil(stack, team, async () => (await migration(stack, p, id)).state === 'DEPRECATED');
    const read = new Set(team.flatMap((m) => m.read));
    expect(written.filter((w) => !read.has(w))).toEqual([]);
    for (let i = 0; i < 3; i++) expect(await exists(stack.redis, `${p}:${i}`)).toBe(false);
    const g = (await stack.call('GET', `/coord/v1/streams/${p}/groups/${p}`)).body;
    expect(g).toMatchObject({ shardCount: 0, consumableShards: [], activeMigration: null });
    // Scaling back up from nothing works.
    expect((await scale(stack, p, 2)).status).toBe(202);
    expect(await routedShards(stack, p)).toBe(2);
  });
});
