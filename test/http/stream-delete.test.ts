/**
 * `DELETE /coord/v1/streams/{p}` against real Redis (standalone and Cluster): it
 * deletes the stream, every group's metadata and the shard keys, so the name can be created
 * again; without force it loses nothing (refused with live members or unconsumed entries, a
 * key that is not a stream is never touched); with force the keys go whatever they hold.
 */
import { describe, expect, it } from 'vitest';
import { shardKey, streamKeys } from '../../src/store/keys.js';
import { backends, uniquePrefix } from '../support/redis.js';
import { heartbeat, type Stack, stacksPerTest } from '../support/stack.js';

const meta = { requestedBy: 'delete-test', reason: 'cleanup' };

describe.each(backends)('stream delete ($name)', (backend) => {
  const stackOf = stacksPerTest(backend);
  /** A stream of `shards` shards with groups `g1` and `g2`. */
  const arrange = async (stack: Stack, shards = 2) => {
    const p = uniquePrefix('del');
    const body = { initialShardCount: shards, consumerGroup: 'g1', ...meta };
    expect((await stack.call('POST', `/coord/v1/streams/${p}`, body)).status).toBe(201);
    expect((await stack.call('POST', `/coord/v1/streams/${p}/groups/g2`, meta)).status).toBe(201);
    return p;
  };
  const del = (stack: Stack, p: string, force?: boolean) =>
    stack.call('DELETE', `/coord/v1/streams/${p}`, { ...meta, ...(force === undefined ? {} : { force }) });
  const exists = async (stack: Stack, p: string, shards: number) =>
    (await Promise.all([...Array(shards).keys()].map((i) => stack.redis.exists(shardKey(p, i))))).reduce(
      (a, b) => a + b,
      0,
    );

  it('deletes the groups, the shard keys and the stream, and the name can be created again', async () => {
    const stack = stackOf();
    const p = await arrange(stack, 3);
    expect(await exists(stack, p, 3)).toBe(3);
    const res = await del(stack, p);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      streamPrefix: p,
      deletedGroups: ['g1', 'g2'],
      deletedShardKeys: [0, 1, 2].map((i) => shardKey(p, i)),
      keptShardKeys: [],
    });
    expect(await exists(stack, p, 3)).toBe(0);
    expect(await stack.redis.exists(streamKeys(stack.config.keyPrefix, p).stream)).toBe(0);
    expect(await stack.store.listStreams()).not.toContain(p);
    expect((await stack.call('GET', `/coord/v1/streams/${p}/groups/g1`)).status).toBe(404);
    expect((await del(stack, p)).body.errorCode).toBe('STREAM_NOT_FOUND');
    const again = await stack.call('POST', `/coord/v1/streams/${p}`, { initialShardCount: 2, ...meta });
    expect(again.status, JSON.stringify(again.body)).toBe(201);
  });

  it('refuses while a group has a live member, unless forced', async () => {
    const stack = stackOf();
    const p = await arrange(stack);
    expect((await heartbeat(stack, p, 'g2', 'm1', { epoch: 0, mv: 0 })).body.status).toBe('OK');
    const refused = await del(stack, p);
    expect(refused.status).toBe(409);
    expect(refused.body.errorCode).toBe('GROUP_HAS_ACTIVE_MEMBERS');
    expect(refused.body.message).toContain('g2/m1');
    expect(await exists(stack, p, 2)).toBe(2);
    expect((await stack.call('GET', `/coord/v1/streams/${p}/groups/g2`)).status).toBe(200);
    expect((await del(stack, p, true)).status).toBe(200);
    expect(await exists(stack, p, 2)).toBe(0);
  });

  it('refuses while an entry is not read and acknowledged by every group, losing nothing; force deletes', async () => {
    const stack = stackOf();
    const p = await arrange(stack);
    await stack.redis.xadd(shardKey(p, 1), '*', 'order', '1');
    // g1 reads and acknowledges it; g2 never reads it (lag 1).
    const read = (await stack.redis.xreadgroup('GROUP', 'g1', 'c', 'STREAMS', shardKey(p, 1), '>')) as Array<
      [string, Array<[string, string[]]>]
    >;
    await stack.redis.xack(shardKey(p, 1), 'g1', read[0]![1][0]![0]);
    const refused = await del(stack, p);
    expect(refused.status).toBe(409);
    expect(refused.body.errorCode).toBe('STREAM_NOT_DRAINED');
    expect(refused.body.message).toContain(`"${shardKey(p, 1)}"`);
    expect(refused.body.message).toContain('consumer group "g2": 1 entries not yet delivered');
    // The drained shard 0 may be gone; the entry and the stream are not.
    expect(await stack.redis.xlen(shardKey(p, 1))).toBe(1);
    expect((await stack.call('GET', `/coord/v1/streams/${p}/groups/g1`)).status).toBe(200);
    const forced = await del(stack, p, true);
    expect(forced.status).toBe(200);
    expect(forced.body.deletedShardKeys).toContain(shardKey(p, 1));
    expect(await exists(stack, p, 2)).toBe(0);
  });

  it('never deletes a shard key that is not a stream, even forced', async () => {
    const stack = stackOf();
    const p = await arrange(stack);
    await stack.redis.del(shardKey(p, 0));
    await stack.redis.set(shardKey(p, 0), 'someone else');
    const res = await del(stack, p, true);
    expect(res.status).toBe(200);
    expect(res.body.keptShardKeys).toEqual([
      { streamKey: shardKey(p, 0), reason: 'not a stream: not ours to delete' },
    ]);
    expect(await stack.redis.get(shardKey(p, 0))).toBe('someone else');
    await stack.redis.del(shardKey(p, 0));
  });

  it('leaves the keys to the operator when provisioning is off', async () => {
    const stack = stackOf({ COORDINATOR_PROVISIONING: 'false' });
    const p = uniquePrefix('del');
    for (const i of [0, 1]) await stack.redis.xgroup('CREATE', shardKey(p, i), 'g1', '$', 'MKSTREAM');
    const body = { initialShardCount: 2, consumerGroup: 'g1', ...meta };
    expect((await stack.call('POST', `/coord/v1/streams/${p}`, body)).status).toBe(201);
    const res = await del(stack, p);
    expect(res.status).toBe(200);
    expect(res.body.deletedShardKeys).toEqual([]);
    expect(res.body.keptShardKeys.map((k: { streamKey: string }) => k.streamKey)).toEqual([
      shardKey(p, 0),
      shardKey(p, 1),
    ]);
    expect(await exists(stack, p, 2)).toBe(2);
    await stack.redis.del(shardKey(p, 0));
    await stack.redis.del(shardKey(p, 1));
  });

  it('refuses a body without requestedBy or reason with 400, deleting nothing', async () => {
    const stack = stackOf();
    const p = await arrange(stack);
    const res = await stack.call('DELETE', `/coord/v1/streams/${p}`, { requestedBy: 'x' });
    expect(res.status).toBe(400);
    expect(res.body.errorCode).toBe('INVALID_REQUEST');
    expect(await exists(stack, p, 2)).toBe(2);
  });
});
