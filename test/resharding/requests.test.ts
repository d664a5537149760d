/**
 * Scale requests over HTTP against real Redis (standalone and 6-node Cluster): validation
 * (docs/protocol.md#scale-requests), not-found and conflict answers, the synthetic noop, the compat group route,
 * and a migration interrupted between PREPARING and ACTIVE that the same request or the sweep
 * resumes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { backends } from '../support/redis.js';
import { heartbeat, makeStack, type Stack } from '../support/stack.js';
import {
  createStream,
  failProvisioning,
  fill,
  groupsOn,
  migrations,
  rollback,
  routedShards,
  scale,
} from './support.js';

describe.each(backends)('resharding > scale requests ($name)', (backend) => {
  let stack: Stack;
  afterEach(async () => {
    await stack?.close();
  });

  const group = async (p: string) => (await stack.call('GET', `/coord/v1/streams/${p}/groups/${p}`)).body;

  it.each<[string, unknown]>([
    ['a missing targetShardCount', { requestedBy: 't', reason: 'r' }],
    ['a negative target', { targetShardCount: -1, requestedBy: 't', reason: 'r' }],
    ['a fractional target', { targetShardCount: 2.5, requestedBy: 't', reason: 'r' }],
    ['a target as text', { targetShardCount: '4', requestedBy: 't', reason: 'r' }],
    ['a target above the configured maximum', { targetShardCount: 17, requestedBy: 't', reason: 'r' }],
    ['a blank requestedBy', { targetShardCount: 4, requestedBy: ' ', reason: 'r' }],
    ['a missing reason', { targetShardCount: 4, requestedBy: 't' }],
    ['a blank reason', { targetShardCount: 4, requestedBy: 't', reason: '' }],
    ['malformed JSON', '{"targetShardCount": 4,'],
  ])('400 INVALID_REQUEST for %s', async (_label, body) => {
    stack = makeStack(backend, { config: { COORDINATOR_MAX_SHARD_COUNT: '16' } });
    const p = await createStream(stack, 2);
    for (const path of [`/coord/v1/streams/${p}/scale`, `/coord/v1/streams/${p}/groups/${p}/scale`]) {
      const res = await stack.call('POST', path, body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ status: 'BAD_REQUEST', errorCode: 'INVALID_REQUEST' });
    }
    expect((await group(p)).activeMigration).toBeNull();
  });

  it('accepts and ignores deprecatedAfter; the compat route answers the Migration itself', async () => {
    stack = makeStack(backend);
    const p = await createStream(stack, 2);
    const res = await stack.call('POST', `/coord/v1/streams/${p}/groups/${p}/scale`, {
      targetShardCount: 3,
      requestedBy: 't',
      reason: 'r',
      deprecatedAfter: '2026-06-01T00:00:00Z',
    });
    expect(res.status).toBe(202);
    expect(Object.keys(res.body).sort()).toEqual(
      ['createdAt', 'fromShardCount', 'reshardingId', 'state', 'toShardCount', 'updatedAt'].sort(),
    );
    expect(res.body).toMatchObject({ fromShardCount: 2, toShardCount: 3, state: 'ACTIVE' });
  });

  it('404 STREAM_NOT_FOUND on the stream route, GROUP_NOT_FOUND on the group route', async () => {
    stack = makeStack(backend);
    const p = await createStream(stack, 2);
    const s = await scale(stack, `${p}-none`, 3);
    expect(s.status).toBe(404);
    expect(s.body.errorCode).toBe('STREAM_NOT_FOUND');
    const g = await stack.call('POST', `/coord/v1/streams/${p}/groups/none/scale`, {
      targetShardCount: 3,
      requestedBy: 't',
      reason: 'r',
    });
    expect(g.status).toBe(404);
    expect(g.body.errorCode).toBe('GROUP_NOT_FOUND');
  });

  it('answers the synthetic noop for the current count and stores nothing', async () => {
    stack = makeStack(backend);
    const p = await createStream(stack, 2);
    const res = await scale(stack, p, 2);
    expect(res.status).toBe(202);
    expect(res.body.migrations).toEqual([
      expect.objectContaining({
        reshardingId: 'noop',
        fromShardCount: 2,
        toShardCount: 2,
        state: 'DEPRECATED',
      }),
    ]);
    expect((await migrations(stack, p)).migrations).toEqual([]);
    expect((await group(p)).activeMigration).toBeNull();
  });

  it('409 ACTIVE_MIGRATION_EXISTS while a migration is under way', async () => {
    stack = makeStack(backend);
    const p = await createStream(stack, 4);
    await fill(stack.redis, `${p}:3`, 1);
    expect((await scale(stack, p, 3)).status).toBe(202);
    const res = await scale(stack, p, 2);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ status: 'CONFLICT', errorCode: 'ACTIVE_MIGRATION_EXISTS' });
  });

  it('409 METADATA_SYNC_IN_PROGRESS for scale and rollback while a correction round is open', async () => {
    stack = makeStack(backend);
    const p = await createStream(stack, 2);
    await fill(stack.redis, `${p}:1`, 1);
    const id = (await scale(stack, p, 1)).body.migrations[0].reshardingId;
    const a1 = await heartbeat(stack, p, p, 'A', { epoch: 0, mv: 0 });
    // A member reports a newer metadata version than stored: a correction round opens.
    const sync = await heartbeat(stack, p, p, 'A', {
      epoch: a1.body.memberEpoch,
      mv: a1.body.metadataVersion + 5,
    });
    expect(sync.body.status).toBe('SYNC_METADATA');
    const s = await scale(stack, p, 3);
    expect(s.status).toBe(409);
    expect(s.body.errorCode).toBe('METADATA_SYNC_IN_PROGRESS');
    const r = await rollback(stack, p, p, id);
    expect(r.status).toBe(409);
    expect(r.body.errorCode).toBe('METADATA_SYNC_IN_PROGRESS');
  });

  it('interrupted between PREPARING and ACTIVE: 503, PREPARING persisted; the same request resumes', async () => {
    stack = makeStack(backend);
    const p = await createStream(stack, 4);
    const heal = failProvisioning(stack, `${p}:6`);
    const failed = await scale(stack, p, 8);
    expect(failed.status).toBe(503);
    expect(failed.body).toMatchObject({
      status: 'SERVICE_UNAVAILABLE',
      errorCode: 'REDIS_STREAM_PROVISIONING_FAILED',
    });
    const g = await group(p);
    expect(g).toMatchObject({ shardCount: 4, activeMigration: { state: 'PREPARING', toShardCount: 8 } });
    expect(await routedShards(stack, p)).toBe(4);
    expect((await scale(stack, p, 6)).body.errorCode).toBe('ACTIVE_MIGRATION_EXISTS');

    heal();
    const resumed = await scale(stack, p, 8);
    expect(resumed.status).toBe(202);
    expect(resumed.body.migrations[0]).toMatchObject({
      reshardingId: g.activeMigration.reshardingId,
      state: 'ACTIVE',
    });
    expect(await routedShards(stack, p)).toBe(8);
    expect((await groupsOn(stack.redis, `${p}:6`)).map((x) => x.name)).toEqual([p]);
  });

  it('interrupted between PREPARING and ACTIVE: the sweep resumes once Redis accepts the shard', async () => {
    stack = makeStack(backend);
    const p = await createStream(stack, 2);
    const heal = failProvisioning(stack, `${p}:2`);
    expect((await scale(stack, p, 3)).status).toBe(503);
    const id = (await group(p)).activeMigration.reshardingId;
    await stack.coordinator.sweep(stack.clock.now());
    expect((await group(p)).activeMigration).toMatchObject({ reshardingId: id, state: 'PREPARING' });

    heal();
    stack.clock.advance(stack.config.heartbeatIntervalMs);
    await stack.coordinator.sweep(stack.clock.now());
    const g = await group(p);
    expect(g.shardCount).toBe(3);
    expect(g.activeMigration === null || g.activeMigration.state === 'ACTIVE').toBe(true);
    const m = await stack.call('GET', `/coord/v1/streams/${p}/groups/${p}/migrations/${id}`);
    expect(['ACTIVE', 'DEPRECATED']).toContain(m.body.state);
  });
});
