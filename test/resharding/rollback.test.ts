/**
 * Rollback in every eligible and ineligible state (docs/protocol.md#resharding), over HTTP against real Redis
 * (standalone and 6-node Cluster).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { backends } from '../support/redis.js';
import { makeStack, type Stack } from '../support/stack.js';
import {
  createStream,
  exists,
  failProvisioning,
  fill,
  migration,
  migrations,
  readingMembers,
  rollback,
  round,
  roundsUntil,
  routedShards,
  scale,
  sweepUntil,
} from './support.js';

describe.each(backends)('resharding > rollback ($name)', (backend) => {
  let stack: Stack;
  afterEach(async () => {
    await stack?.close();
  });

  async function scaled(from: number, to: number, members = 0) {
    const p = await createStream(stack, from);
    const team = readingMembers(p, p, members);
    for (let r = 0; r < 3; r++) await round(stack, team);
    const res = await scale(stack, p, to);
    expect(res.status).toBe(202);
    return { p, team, id: res.body.migrations[0].reshardingId as string };
  }

  const group = async (p: string) => (await stack.call('GET', `/coord/v1/streams/${p}/groups/${p}`)).body;

  it('scale-out in ACTIVE with no record on an added shard: rolled back; added shards drain and retire while never deleted when held', async () => {
    stack = makeStack(backend);
    const { p, team, id } = await scaled(4, 6, 2);
    const before = await group(p);
    expect((await migrations(stack, p)).rollback).toEqual({ allowed: true, reason: null });
    const res = await rollback(stack, p, p, id);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      reshardingId: id,
      fromShardCount: 4,
      toShardCount: 6,
      state: 'ROLLED_BACK',
    });
    expect(await routedShards(stack, p)).toBe(4);
    const after = await group(p);
    expect(after).toMatchObject({ shardCount: 4, activeMigration: null });
    expect(after.groupEpoch).toBe(before.groupEpoch + 1);
    expect(after.metadataVersion).toBe(before.metadataVersion + 1);
    expect(
      after.removedShards.map((r: { shardIndex: number; state: string }) => [r.shardIndex, r.state]),
    ).toEqual([
      [4, 'DRAINING'],
      [5, 'DRAINING'],
    ]);
    // Members drain (nothing) and release them; then they are deleted.
    await roundsUntil(stack, team, async () => (await group(p)).removedShards.length === 0);
    expect(await exists(stack.redis, `${p}:4`)).toBe(false);
    expect(await exists(stack.redis, `${p}:5`)).toBe(false);

    // Rolling back again answers 202 with the migration unchanged.
    const again = await rollback(stack, p, p, id);
    expect(again.status).toBe(202);
    expect(again.body).toEqual(res.body);
  });

  it('scale-out after a record was written to an added shard: 422', async () => {
    stack = makeStack(backend);
    const { p, id } = await scaled(4, 6, 1);
    await fill(stack.redis, `${p}:5`, 1);
    const view = await migrations(stack, p);
    expect(view.rollback.allowed).toBe(false);
    expect(view.rollback.reason).toContain('added shard 5');
    const res = await rollback(stack, p, p, id);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ status: 'UNPROCESSABLE_ENTITY', errorCode: 'ROLLBACK_NOT_ALLOWED' });
    expect(res.body.message).toContain('added shard 5');
  });

  it('scale-in right after activation and scale-in while DRAINING: removed shards return to routing', async () => {
    stack = makeStack(backend);
    const first = await scaled(4, 2, 1);
    await fill(stack.redis, `${first.p}:3`, 2);
    const res = await rollback(stack, first.p, first.p, first.id);
    expect(res.status).toBe(202);
    expect(res.body.state).toBe('ROLLED_BACK');
    expect(await routedShards(stack, first.p)).toBe(4);
    expect(await group(first.p)).toMatchObject({ shardCount: 4, removedShards: [] });

    const second = await scaled(4, 2);
    await fill(stack.redis, `${second.p}:2`, 1);
    await fill(stack.redis, `${second.p}:3`, 2);
    await stack.coordinator.sweep(stack.clock.now());
    expect((await migration(stack, second.p, second.id)).state).toBe('DRAINING');
    expect((await rollback(stack, second.p, second.p, second.id)).status).toBe(202);
    expect(await routedShards(stack, second.p)).toBe(4);
    expect(await exists(stack.redis, `${second.p}:3`)).toBe(true);
  });

  it('scale-in once a removed shard is RETIRED: 422', async () => {
    stack = makeStack(backend);
    const { p, id } = await scaled(4, 2);
    await fill(stack.redis, `${p}:3`, 2);
    await sweepUntil(stack, async () => (await group(p)).removedShards.length === 1, 3);
    expect((await migration(stack, p, id)).state).toBe('DRAINING');
    const res = await rollback(stack, p, p, id);
    expect(res.status).toBe(422);
    expect(res.body.message).toContain('RETIRED');
  });

  it('DEPRECATED: 422', async () => {
    stack = makeStack(backend);
    const { p, id } = await scaled(4, 2);
    await sweepUntil(stack, async () => (await migration(stack, p, id)).state === 'DEPRECATED', 3);
    const res = await rollback(stack, p, p, id);
    expect(res.status).toBe(422);
    expect(res.body.message).toContain('DEPRECATED');
  });

  it('PREPARING (provisioning failed): 422', async () => {
    stack = makeStack(backend);
    const p = await createStream(stack, 2);
    failProvisioning(stack, `${p}:3`);
    const res = await scale(stack, p, 4);
    expect(res.status).toBe(503);
    const id = (await group(p)).activeMigration.reshardingId;
    const rb = await rollback(stack, p, p, id);
    expect(rb.status).toBe(422);
    expect(rb.body.message).toContain('PREPARING');
  });

  it('unknown migration and unknown group: 404; a blank reason: 400', async () => {
    stack = makeStack(backend);
    const { p } = await scaled(2, 3);
    const unknown = await rollback(stack, p, p, 'reshard-nope');
    expect(unknown.status).toBe(404);
    expect(unknown.body.errorCode).toBe('MIGRATION_NOT_FOUND');
    expect(
      (await stack.call('GET', `/coord/v1/streams/${p}/groups/${p}/migrations/reshard-nope`)).body.errorCode,
    ).toBe('MIGRATION_NOT_FOUND');
    expect((await rollback(stack, p, 'nope', 'reshard-nope')).body.errorCode).toBe('GROUP_NOT_FOUND');
    const blank = await stack.call('POST', `/coord/v1/streams/${p}/groups/${p}/migrations/x/rollback`, {
      requestedBy: 'test',
      reason: '  ',
    });
    expect(blank.status).toBe(400);
    expect(blank.body.errorCode).toBe('INVALID_REQUEST');
  });
});
