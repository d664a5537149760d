/**
 * A stream-wide commit whose reply is lost, or that the client sends twice, is recognised as the
 * request's own (6): the request answers as on success and goes on with what
 * follows the commit (provisioning after a create), instead of 409/404/503.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { shardKey, streamKeys } from '../../src/store/keys.js';
import { type FaultyStack, faultyStack } from '../support/faulty-store.js';
import { backends, uniquePrefix } from '../support/redis.js';

type Fault = 'loseReply' | 'resend';
const FAULTS: Fault[] = ['loseReply', 'resend'];

describe.each(backends)('in-doubt stream-wide commits ($name)', (backend) => {
  const stacks: FaultyStack[] = [];
  afterEach(async () => {
    await Promise.all(stacks.splice(0).map((s) => s.close()));
  });
  const stack = () => {
    const s = faultyStack(backend);
    stacks.push(s);
    return s;
  };
  const groupsOn = async (s: FaultyStack, key: string): Promise<string[]> => {
    const info = (await s.redis.xinfo('GROUPS', key)) as unknown[][];
    return info.map((g) => String(g[1])).sort();
  };

  it.each(FAULTS)(
    'a create whose commit is in doubt (%s) answers 201 and provisions every shard',
    async (fault) => {
      const s = stack();
      const p = uniquePrefix('create');
      s.faults[fault] = 1;
      const res = await s.call('POST', `/coord/v1/streams/${p}`, { initialShardCount: 3, requestedBy: 't' });
      expect(res.status).toBe(201);
      expect(s.faults[fault]).toBe(0);
      for (let i = 0; i < 3; i++) expect(await groupsOn(s, shardKey(p, i))).toEqual([p]);
      expect(await s.store.listStreams()).toContain(p);
      // A repeat is the ordinary conflict.
      const again = await s.call('POST', `/coord/v1/streams/${p}`, {
        initialShardCount: 3,
        requestedBy: 't',
      });
      expect(again.body.errorCode).toBe('STREAM_PREFIX_ALREADY_EXISTS');
    },
  );

  it('a create whose commit applied while Redis stayed unreachable through every resend is provisioned by the retry', async () => {
    const s = stack();
    const p = uniquePrefix('create-down');
    s.faults.loseReply = 100;
    const res = await s.call('POST', `/coord/v1/streams/${p}`, { initialShardCount: 3, requestedBy: 't' });
    expect(res.status).toBe(503);
    s.faults.loseReply = 0;
    // The client retries: the stream exists (409), and it is usable.
    const again = await s.call('POST', `/coord/v1/streams/${p}`, { initialShardCount: 3, requestedBy: 't' });
    expect(again.body.errorCode).toBe('STREAM_PREFIX_ALREADY_EXISTS');
    for (let i = 0; i < 3; i++) expect(await groupsOn(s, shardKey(p, i))).toEqual([p]);
  });

  it.each(FAULTS)(
    'adding a group whose commit is in doubt (%s) answers 201 with the group provisioned',
    async (fault) => {
      const s = stack();
      const p = uniquePrefix('add');
      expect(
        (await s.call('POST', `/coord/v1/streams/${p}`, { initialShardCount: 2, requestedBy: 't' })).status,
      ).toBe(201);
      s.faults[fault] = 1;
      const res = await s.call('POST', `/coord/v1/streams/${p}/groups/extra`, { requestedBy: 't' });
      expect(res.status).toBe(201);
      expect(res.body.consumerGroup).toBe('extra');
      expect(s.faults[fault]).toBe(0);
      for (let i = 0; i < 2; i++) expect(await groupsOn(s, shardKey(p, i))).toEqual(['extra', p].sort());
      expect((await s.call('GET', `/coord/v1/streams/${p}/groups/extra`)).status).toBe(200);
    },
  );

  it.each(FAULTS)(
    'creating a stream through add-group whose commit is in doubt (%s) answers 201',
    async (fault) => {
      const s = stack();
      const p = uniquePrefix('add-new');
      s.faults[fault] = 1;
      const res = await s.call('POST', `/coord/v1/streams/${p}/groups/g1`, {
        initialShardCount: 2,
        requestedBy: 't',
      });
      expect(res.status).toBe(201);
      for (let i = 0; i < 2; i++) expect(await groupsOn(s, shardKey(p, i))).toEqual(['g1']);
    },
  );

  it.each(FAULTS)('deleting a group whose commit is in doubt (%s) answers success', async (fault) => {
    const s = stack();
    const p = uniquePrefix('del');
    expect(
      (await s.call('POST', `/coord/v1/streams/${p}`, { initialShardCount: 2, requestedBy: 't' })).status,
    ).toBe(201);
    expect((await s.call('POST', `/coord/v1/streams/${p}/groups/other`, { requestedBy: 't' })).status).toBe(
      201,
    );
    s.faults[fault] = 1;
    const res = await s.call('DELETE', `/coord/v1/streams/${p}/groups/other`, {
      requestedBy: 't',
      reason: 'r',
    });
    expect(res.status).toBe(200);
    expect(res.body.consumerGroup).toBe('other');
    expect((await s.call('GET', `/coord/v1/streams/${p}/groups/other`)).status).toBe(404);
    // The last group: the stream goes too, and leaves the listing.
    s.faults[fault] = 1;
    const last = await s.call('DELETE', `/coord/v1/streams/${p}/groups/${p}`, {
      requestedBy: 't',
      reason: 'r',
    });
    expect(last.status).toBe(200);
    expect(await s.redis.exists(streamKeys(s.config.keyPrefix, p).stream)).toBe(0);
    expect(await s.store.listStreams()).not.toContain(p);
  });

  it.each(FAULTS)('a scale whose commit is in doubt (%s) answers the migration it started', async (fault) => {
    const s = stack();
    const p = uniquePrefix('scale');
    expect(
      (await s.call('POST', `/coord/v1/streams/${p}`, { initialShardCount: 2, requestedBy: 't' })).status,
    ).toBe(201);
    s.faults[fault] = 1;
    const res = await s.call('POST', `/coord/v1/streams/${p}/scale`, {
      targetShardCount: 4,
      requestedBy: 't',
      reason: 'in doubt',
    });
    expect(res.status).toBe(202);
    expect((await s.store.load(p, []))?.stream.shardCount).toBe(4);
    for (let i = 0; i < 4; i++) expect(await groupsOn(s, shardKey(p, i))).toEqual([p]);
  });
});
