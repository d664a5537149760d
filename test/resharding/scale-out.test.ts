/**
 * Scale-out over HTTP against real Redis (standalone and 6-node Cluster): one migration for the
 * stream, provisioning, convergence of live members, completion without members
 * (docs/protocol.md#deviation-scale-out-and-rollback), and a group added while a migration is under way.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { backends } from '../support/redis.js';
import { makeStack, type Stack } from '../support/stack.js';
import {
  addGroup,
  createStream,
  groupsOn,
  migration,
  produce,
  readingMembers,
  round,
  roundsUntil,
  routedShards,
  scale,
  sweepUntil,
} from './support.js';

describe.each(backends)('resharding > scale-out ($name)', (backend) => {
  let stack: Stack;
  afterEach(async () => {
    await stack?.close();
  });

  it('4 → 8 with live members: provisions, converges, reaches DEPRECATED; one migration for every group', async () => {
    stack = makeStack(backend);
    const p = await createStream(stack, 4);
    await addGroup(stack, p, 'audit');
    const members = [...readingMembers(p, p, 3), ...readingMembers(p, 'audit', 2)];
    for (let r = 0; r < 3; r++) await round(stack, members);
    const before = (await stack.call('GET', `/coord/v1/streams/${p}/groups/${p}`)).body;

    const res = await scale(stack, p, 8);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      streamPrefix: p,
      targetShardCount: 8,
      affectedConsumerGroups: ['audit', p].sort(),
    });
    const ids = res.body.migrations.map((m: { reshardingId: string }) => m.reshardingId);
    expect(new Set(ids).size).toBe(1);
    expect(ids[0]).toMatch(/^reshard-[0-9a-f-]{36}$/);
    expect(res.body.migrations[0]).toMatchObject({ fromShardCount: 4, toShardCount: 8, state: 'ACTIVE' });
    const id = ids[0];

    // Routing moves at once; both groups exist on every new shard at its tail.
    expect(await routedShards(stack, p)).toBe(8);
    for (let i = 4; i < 8; i++) {
      const groups = await groupsOn(stack.redis, `${p}:${i}`);
      expect(groups.map((g) => g.name).sort()).toEqual(['audit', p].sort());
    }
    const after = (await stack.call('GET', `/coord/v1/streams/${p}/groups/${p}`)).body;
    expect(after.groupEpoch).toBe(before.groupEpoch + 1);
    expect(after.metadataVersion).toBe(before.metadataVersion + 1);
    expect(after.activeMigration).toMatchObject({ reshardingId: id, state: 'ACTIVE' });

    // Heartbeats alone (no sweep) advance it: the lazy pass of the full path.
    await roundsUntil(stack, members, async () => (await migration(stack, p, id)).state === 'DEPRECATED');
    const audit = await migration(stack, p, id, 'audit');
    expect(audit.state).toBe('DEPRECATED');
    const view = await stack.call('GET', `/coord/v1/monitoring/streams/${p}/groups/audit/migrations`);
    expect(view.body).toMatchObject({
      activeReshardingId: null,
      migrations: [{ reshardingId: id, state: 'DEPRECATED' }],
    });

    // Every new shard is read: a record written there reaches a member.
    const written = await produce(stack.redis, p, 8, 16);
    for (let r = 0; r < 3; r++) await round(stack, members);
    const readByMain = members.filter((m) => m.group === p).flatMap((m) => m.read);
    for (const w of written) expect(readByMain).toContain(w);
    const owned = members.filter((m) => m.group === p).flatMap((m) => m.owned);
    expect(owned.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('4 → 8 with no live member still completes (docs/protocol.md#deviation-scale-out-and-rollback)', async () => {
    stack = makeStack(backend);
    const p = await createStream(stack, 4);
    const res = await scale(stack, p, 8);
    expect(res.status).toBe(202);
    const id = res.body.migrations[0].reshardingId;
    await sweepUntil(stack, async () => (await migration(stack, p, id)).state === 'DEPRECATED', 2);
    // A later scale is not blocked by it.
    expect((await scale(stack, p, 6)).status).toBe(202);
  });

  it('provisions a group added mid-migration on every consumable shard and the target count', async () => {
    stack = makeStack(backend);
    const p = await createStream(stack, 4);
    const members = readingMembers(p, p, 2);
    for (let r = 0; r < 3; r++) await round(stack, members);
    expect((await scale(stack, p, 2)).status).toBe(202);
    await addGroup(stack, p, 'late');
    for (let i = 0; i < 4; i++) {
      expect((await groupsOn(stack.redis, `${p}:${i}`)).map((g) => g.name)).toContain('late');
    }
    const g = (await stack.call('GET', `/coord/v1/streams/${p}/groups/late`)).body;
    expect(g.shardCount).toBe(2);
    expect(g.consumableShards).toEqual([0, 1, 2, 3].map((shardIndex) => ({ shardIndex })));
  });
});
