/**
 * Fail closed (docs/protocol.md#invariants): corrupted stored metadata answers a clear 5xx on every endpoint of
 * the group and is never overwritten; deleted metadata answers the protocol's not-found.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { groupKeyList, groupKeys, streamKeys } from '../../src/store/keys.js';
import { backends, uniquePrefix } from '../support/redis.js';
import { heartbeat, makeStack, type Stack } from '../support/stack.js';

describe.each(backends)('stored metadata failures ($name)', (backend) => {
  let stack: Stack;
  afterEach(async () => {
    await stack?.close();
  });

  async function steadyGroup(): Promise<{ p: string; epoch: number }> {
    const p = uniquePrefix('corrupt');
    expect(
      (await stack.call('POST', `/coord/v1/streams/${p}`, { initialShardCount: 2, requestedBy: 't' })).status,
    ).toBe(201);
    const a = await heartbeat(stack, p, p, 'A', { epoch: 0, mv: 0 });
    // Two steady heartbeats: the second one is served by the fast path.
    await heartbeat(stack, p, p, 'A', {
      epoch: a.body.memberEpoch,
      mv: a.body.metadataVersion,
      owned: [0, 1],
    });
    await heartbeat(stack, p, p, 'A', {
      epoch: a.body.memberEpoch,
      mv: a.body.metadataVersion,
      owned: [0, 1],
    });
    return { p, epoch: a.body.memberEpoch };
  }

  const endpoints = (p: string) => [
    ['GET', `/coord/v1/streams/${p}/groups/${p}`],
    ['GET', `/coord/v1/streams/${p}/groups/${p}/producer-routing`],
    ['GET', `/coord/v1/monitoring/streams/${p}/groups/${p}`],
    ['GET', `/coord/v1/monitoring/streams/${p}/groups/${p}/members`],
    ['GET', `/coord/v1/monitoring/streams/${p}/groups/${p}/assignments`],
    ['GET', `/coord/v1/monitoring/streams/${p}/groups/${p}/consumption`],
  ];

  it.each([
    ['group header has an unreadable group epoch', 'group', 'ge', '{"groupEpoch": 3,'],
    ['group header has an unreadable metadata version', 'group', 'mv', 'x'],
    ['stream document is not JSON', 'stream', 'doc', 'garbage'],
    ['stream document has a wrong type', 'stream', 'doc', '{"streamPrefix":"x","shardCount":"many"}'],
  ])('%s → 500 METADATA_CORRUPT everywhere, value untouched', async (_n, which, field, value) => {
    stack = makeStack(backend);
    const { p, epoch } = await steadyGroup();
    const key =
      which === 'group'
        ? groupKeys(stack.config.keyPrefix, p, p).header
        : streamKeys(stack.config.keyPrefix, p).stream;
    await stack.redis.hset(key, field!, value!);
    const stored = await stack.redis.hgetall(key);

    for (const [method, path] of endpoints(p)) {
      const res = await stack.call(method!, path!);
      expect(res.status, path).toBe(500);
      expect(res.body.errorCode).toBe('METADATA_CORRUPT');
      expect(res.body.message).not.toMatch(/redis:\/\//);
    }
    const hb = await heartbeat(stack, p, p, 'A', { epoch, mv: 2, owned: [0, 1] });
    expect(hb.status).toBe(500);
    expect(hb.body.errorCode).toBe('METADATA_CORRUPT');
    const join = await heartbeat(stack, p, p, 'B', { epoch: 0, mv: 0 });
    expect(join.status).toBe(500);
    const del = await stack.call('DELETE', `/coord/v1/streams/${p}/groups/${p}`, {
      requestedBy: 't',
      reason: 'r',
      force: true,
    });
    expect(del.status).toBe(500);
    if (which === 'stream') {
      // The stream document is shared by every group: adding a group must fail closed too.
      const add = await stack.call('POST', `/coord/v1/streams/${p}/groups/other`, { requestedBy: 't' });
      expect(add.status).toBe(500);
    }
    const list = await stack.call('GET', '/coord/v1/monitoring/groups');
    expect(list.status).toBe(500);

    expect(await stack.redis.hgetall(key)).toEqual(stored);
  });

  it.each([
    ['the group header', 'group'],
    ['the stream document', 'stream'],
  ])('deleting %s → 500 METADATA_CORRUPT everywhere, nothing recreated', async (_n, which) => {
    stack = makeStack(backend);
    const { p, epoch } = await steadyGroup();
    const g = groupKeys(stack.config.keyPrefix, p, p);
    const key = which === 'group' ? g.header : streamKeys(stack.config.keyPrefix, p).stream;
    await stack.redis.del(key);
    for (const [method, path] of endpoints(p)) {
      const res = await stack.call(method!, path!);
      expect(res.status, path).toBe(500);
      expect(res.body.errorCode).toBe('METADATA_CORRUPT');
    }
    const hb = await heartbeat(stack, p, p, 'A', { epoch, mv: 2, owned: [0, 1] });
    expect(hb.status).toBe(500);
    expect(hb.body.errorCode).toBe('METADATA_CORRUPT');
    const recreate = await stack.call('POST', `/coord/v1/streams/${p}/groups/${p}`, { requestedBy: 't' });
    expect(recreate.status).toBe(500);
    expect(await stack.redis.exists(key)).toBe(0);
  });

  it('a stream whose metadata was removed entirely is simply unknown (404, UNKNOWN_MEMBER_ID)', async () => {
    stack = makeStack(backend);
    const { p, epoch } = await steadyGroup();
    const g = groupKeys(stack.config.keyPrefix, p, p);
    await stack.redis.del(...groupKeyList(g));
    await stack.redis.del(streamKeys(stack.config.keyPrefix, p).stream);
    expect((await stack.call('GET', `/coord/v1/streams/${p}/groups/${p}`)).status).toBe(404);
    const hb = await heartbeat(stack, p, p, 'A', { epoch, mv: 2, owned: [0, 1] });
    expect(hb.body.status).toBe('UNKNOWN_MEMBER_ID');
  });
});
