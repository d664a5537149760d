/**
 * Keys the coordinator did not create against real Redis (standalone and 6-node
 * Cluster): a scale-out never adopts an existing key as a new shard — 409 SHARD_KEY_EXISTS
 * naming it, nothing written — whether the key is a foreign application's or another
 * coordinator namespace's; and a removed shard whose key carries a consumer group the
 * coordinator does not manage is never deleted.
 */
import { describe, expect, it } from 'vitest';
import { streamKeys } from '../../src/store/keys.js';
import { backends } from '../support/redis.js';
import { type Stack, stacksPerTest } from '../support/stack.js';
import {
  createStream,
  exists,
  failProvisioning,
  fill,
  groupsOn,
  migration,
  migrations,
  readAndAck,
  rollback,
  scale,
  sweepUntil,
} from './support.js';

describe.each(backends)('resharding > keys the coordinator did not create ($name)', (backend) => {
  const stackOf = stacksPerTest(backend);
  /** The stored stream hash (revision and document) of `p` in `stack`'s namespace. */
  const streamHash = (stack: Stack, p: string) =>
    stack.redis.hgetall(streamKeys(stack.config.keyPrefix, p).stream);

  it('a foreign p:3 with its own group: scale 3 → 4 answers 409 naming the key, and writes nothing', async () => {
    const stack = stackOf();
    const p = await createStream(stack, 3);
    const victim = `${p}:3`;
    await stack.redis.xgroup('CREATE', victim, 'victim-app', '$', 'MKSTREAM');
    await stack.redis.xadd(victim, '*', 'secret', 'v');
    const before = await streamHash(stack, p);

    const res = await scale(stack, p, 4);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ status: 'CONFLICT', errorCode: 'SHARD_KEY_EXISTS' });
    expect(res.body.message).toContain(`"${victim}"`);
    expect(await streamHash(stack, p)).toEqual(before);
    expect((await groupsOn(stack.redis, victim)).map((g) => g.name)).toEqual(['victim-app']);
    const g = (await stack.call('GET', `/coord/v1/streams/${p}/groups/${p}`)).body;
    expect(g).toMatchObject({ shardCount: 3, activeMigration: null });
  });

  it('a key of another type at a new index is refused the same way (never overwritten)', async () => {
    const stack = stackOf();
    const p = await createStream(stack, 2);
    await stack.redis.set(`${p}:3`, 'not a stream');
    const res = await scale(stack, p, 5);
    expect(res.status).toBe(409);
    expect(res.body.errorCode).toBe('SHARD_KEY_EXISTS');
    expect(res.body.message).toContain(`"${p}:3"`);
    expect(await stack.redis.get(`${p}:3`)).toBe('not a stream');
    expect(await exists(stack.redis, `${p}:2`)).toBe(false);
  });

  it('a removed shard still draining is ours: scaling back out over it is accepted', async () => {
    const stack = stackOf();
    const p = await createStream(stack, 2);
    const id = (await scale(stack, p, 4)).body.migrations[0].reshardingId;
    // Rolled back: shards 2 and 3 are removed but consumable (DRAINING), their keys still there.
    expect((await rollback(stack, p, p, id)).status).toBe(202);
    expect(await exists(stack.redis, `${p}:3`)).toBe(true);
    const again = await scale(stack, p, 4);
    expect(again.status).toBe(202);
    expect(again.body.migrations[0]).toMatchObject({ fromShardCount: 2, toShardCount: 4, state: 'ACTIVE' });
  });

  it('a foreign key appearing while a migration is PREPARING is not adopted when provisioning resumes', async () => {
    const stack = stackOf();
    const p = await createStream(stack, 2);
    const heal = failProvisioning(stack, `${p}:3`);
    expect((await scale(stack, p, 4)).status).toBe(503);
    heal();
    await stack.redis.xgroup('CREATE', `${p}:3`, 'victim-app', '$', 'MKSTREAM');
    const res = await scale(stack, p, 4);
    expect(res.status).toBe(409);
    expect(res.body.errorCode).toBe('SHARD_KEY_EXISTS');
    expect(res.body.message).toContain(`"${p}:3"`);
    expect((await groupsOn(stack.redis, `${p}:3`)).map((g) => g.name)).toEqual(['victim-app']);
    const g = (await stack.call('GET', `/coord/v1/streams/${p}/groups/${p}`)).body;
    expect(g).toMatchObject({ shardCount: 2, activeMigration: { state: 'PREPARING' } });
    // Once the foreign key is gone, the same request resumes over what the first attempt created.
    await stack.redis.del(`${p}:3`);
    expect((await scale(stack, p, 4)).status).toBe(202);
  });

  it('two coordinator namespaces on one Redis: the second one scaling out onto the first one’s keys is refused', async () => {
    const b = stackOf();
    const a = stackOf();
    // B's stream exists first and is scaled in to nothing: its keys are retired (deleted).
    const p = await createStream(b, 1);
    const id = (await scale(b, p, 0)).body.migrations[0].reshardingId;
    await sweepUntil(b, async () => (await migration(b, p, id)).state === 'DEPRECATED', 5);
    expect(await exists(b.redis, `${p}:0`)).toBe(false);
    // A (another COORDINATOR_KEY_PREFIX) now creates the same prefix: its keys carry the same group name.
    const created = await a.call('POST', `/coord/v1/streams/${p}`, {
      initialShardCount: 2,
      requestedBy: 'test',
    });
    expect(created.status).toBe(201);
    const before = await streamHash(b, p);

    const res = await scale(b, p, 2);
    expect(res.status).toBe(409);
    expect(res.body.errorCode).toBe('SHARD_KEY_EXISTS');
    expect(res.body.message).toContain(`"${p}:0"`);
    expect(await streamHash(b, p)).toEqual(before);
    for (const i of [0, 1]) expect((await groupsOn(a.redis, `${p}:${i}`)).map((g) => g.name)).toEqual([p]);
  });

  it('a removed shard whose key got a foreign group is never deleted, even once everything is read', async () => {
    const stack = stackOf();
    const p = await createStream(stack, 3);
    const key = `${p}:2`;
    const id = (await scale(stack, p, 2)).body.migrations[0].reshardingId;
    await stack.redis.xgroup('CREATE', key, 'intruder', '$');
    await fill(stack.redis, key, 2);
    await readAndAck(stack.redis, key, p, 'plain');
    await readAndAck(stack.redis, key, 'intruder', 'x');
    for (let s = 0; s < 4; s++) {
      await stack.coordinator.sweep(stack.clock.now());
      stack.clock.advance(stack.config.heartbeatIntervalMs);
    }
    expect(await exists(stack.redis, key)).toBe(true);
    expect((await groupsOn(stack.redis, key)).map((g) => g.name).sort()).toEqual(['intruder', p].sort());
    expect((await migration(stack, p, id)).state).toBe('DRAINING');
    const [shard] = (await migrations(stack, p)).removedShards;
    expect(shard).toMatchObject({ shardIndex: 2, state: 'DRAINING' });
    expect(shard.reason).toContain('"intruder" is not managed by the coordinator');
  });
});
