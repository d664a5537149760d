/**
 * Quotas over HTTP against real Redis (standalone and 6-node Cluster): a
 * create beyond COORDINATOR_MAX_STREAMS or COORDINATOR_MAX_GROUPS_PER_STREAM, and a join beyond
 * COORDINATOR_MAX_MEMBERS_PER_GROUP, answer 409 with their own code and write nothing; members
 * already in the group keep heartbeating as before.
 */
import { describe, expect, it } from 'vitest';
import { groupKeys, shardKey, streamKeys } from '../../src/store/keys.js';
import { backends, uniquePrefix } from '../support/redis.js';
import { heartbeat, idx, type Stack, stacksPerTest, type TestResponse } from '../support/stack.js';

const meta = { requestedBy: 'quota-test' };

describe.each(backends)('quotas ($name)', (backend) => {
  const stackOf = stacksPerTest(backend);
  const createStream = (stack: Stack, p: string, group?: string) =>
    stack.call('POST', `/coord/v1/streams/${p}`, { initialShardCount: 2, consumerGroup: group, ...meta });
  const createGroup = (stack: Stack, p: string, g: string) =>
    stack.call('POST', `/coord/v1/streams/${p}/groups/${g}`, meta);
  /** Everything the coordinator keeps of stream `p`, and whether its shard keys exist. */
  const traces = async (stack: Stack, p: string) => ({
    listed: (await stack.store.listStreams()).includes(p),
    stream: await stack.redis.exists(streamKeys(stack.config.keyPrefix, p).stream),
    shards: await stack.redis.exists(shardKey(p, 0)),
  });
  const refused = (res: TestResponse, code: string) => {
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ status: 'CONFLICT', errorCode: code });
  };

  describe('COORDINATOR_MAX_STREAMS', () => {
    it('refuses a stream beyond the limit (either create route) with 409 STREAM_LIMIT_REACHED, writing nothing', async () => {
      const stack = stackOf({ COORDINATOR_MAX_STREAMS: '2' });
      const [a, b, c] = [uniquePrefix('qa'), uniquePrefix('qb'), uniquePrefix('qc')];
      expect((await createStream(stack, a)).status).toBe(201);
      expect((await createGroup(stack, b, 'g')).status).toBe(201);

      const byStream = await createStream(stack, c);
      refused(byStream, 'STREAM_LIMIT_REACHED');
      expect(byStream.body.message).toContain('COORDINATOR_MAX_STREAMS');
      refused(await createGroup(stack, c, 'g'), 'STREAM_LIMIT_REACHED');
      expect(await traces(stack, c)).toEqual({ listed: false, stream: 0, shards: 0 });
      expect((await stack.call('GET', `/coord/v1/streams/${c}/groups/${c}`)).status).toBe(404);

      // The limit counts streams that exist: an existing one is still "already exists", and a
      // deleted stream makes room again.
      refused(await createStream(stack, a), 'STREAM_PREFIX_ALREADY_EXISTS');
      const del = await stack.call('DELETE', `/coord/v1/streams/${a}/groups/${a}`, {
        ...meta,
        reason: 'make room',
      });
      expect(del.status).toBe(200);
      expect((await createStream(stack, c)).status).toBe(201);
      expect(await stack.store.listStreams()).toEqual([b, c].sort());
    });

    it('keeps the limit under concurrent creates of different streams', async () => {
      const stack = stackOf({ COORDINATOR_MAX_STREAMS: '3', COORDINATOR_PROVISIONING: 'false' });
      const prefixes = Array.from({ length: 8 }, (_, i) => uniquePrefix(`qr${i}`));
      const answers = await Promise.all(prefixes.map((p) => createStream(stack, p)));
      const created = prefixes.filter((_, i) => answers[i]!.status === 201);
      expect(created).toHaveLength(3);
      for (const res of answers.filter((r) => r.status !== 201)) refused(res, 'STREAM_LIMIT_REACHED');
      expect(await stack.store.listStreams()).toEqual(created.sort());
    });
  });

  describe('COORDINATOR_MAX_GROUPS_PER_STREAM', () => {
    it('refuses a group beyond the limit with 409 GROUP_LIMIT_REACHED, before provisioning it', async () => {
      const stack = stackOf({ COORDINATOR_MAX_GROUPS_PER_STREAM: '2' });
      const p = uniquePrefix('qg');
      expect((await createStream(stack, p, 'g1')).status).toBe(201);
      expect((await createGroup(stack, p, 'g2')).status).toBe(201);
      const before = await stack.redis.hgetall(streamKeys(stack.config.keyPrefix, p).stream);

      const res = await createGroup(stack, p, 'g3');
      refused(res, 'GROUP_LIMIT_REACHED');
      expect(res.body.message).toContain('COORDINATOR_MAX_GROUPS_PER_STREAM');
      expect(await stack.redis.hgetall(streamKeys(stack.config.keyPrefix, p).stream)).toEqual(before);
      expect(await stack.redis.exists(groupKeys(stack.config.keyPrefix, p, 'g3').header)).toBe(0);
      const onShard = (await stack.redis.xinfo('GROUPS', shardKey(p, 0))) as unknown[][];
      expect(onShard.map((g) => g[1])).toEqual(['g1', 'g2']);
      expect((await stack.call('GET', `/coord/v1/streams/${p}/groups/g3`)).status).toBe(404);
      // An existing group is still "already exists".
      refused(await createGroup(stack, p, 'g2'), 'GROUP_ALREADY_EXISTS');
    });

    it('lets a stream be created with its first group at a limit of one, and refuses the second', async () => {
      const stack = stackOf({ COORDINATOR_MAX_GROUPS_PER_STREAM: '1' });
      const p = uniquePrefix('qg1');
      expect((await createGroup(stack, p, 'only')).status).toBe(201);
      refused(await createGroup(stack, p, 'second'), 'GROUP_LIMIT_REACHED');
    });
  });

  describe('COORDINATOR_MAX_MEMBERS_PER_GROUP', () => {
    /** A stream of 2 shards whose group has live members `ids`, each with its join answer. */
    async function groupWith(stack: Stack, ids: string[]) {
      const p = uniquePrefix('qm');
      expect((await createStream(stack, p)).status).toBe(201);
      const joins = new Map<string, TestResponse>();
      for (const id of ids) {
        const res = await heartbeat(stack, p, p, id, { epoch: 0, mv: 0 });
        expect(res.body).toMatchObject({ status: 'OK' });
        joins.set(id, res);
      }
      return { p, joins, keys: groupKeys(stack.config.keyPrefix, p, p) };
    }

    /** One heartbeat of each member, reporting what its last answer assigned it; the new answers. */
    async function steady(stack: Stack, p: string, last: Map<string, TestResponse>) {
      const next = new Map<string, TestResponse>();
      for (const [id, prev] of last) {
        const res = await heartbeat(stack, p, p, id, {
          epoch: prev.body.memberEpoch,
          mv: prev.body.metadataVersion,
          owned: idx(prev.body.assignment.assignedShards),
        });
        expect(res.status).toBe(200);
        next.set(id, res);
      }
      return next;
    }

    it('refuses a new member id beyond the limit with 409 MEMBER_LIMIT_REACHED; members in the group heartbeat on', async () => {
      const stack = stackOf({ COORDINATOR_MAX_MEMBERS_PER_GROUP: '2' });
      const { p, joins, keys } = await groupWith(stack, ['m1', 'm2']);
      const header = await stack.redis.hgetall(keys.header);

      const res = await heartbeat(stack, p, p, 'm3', { epoch: 0, mv: 0 });
      refused(res, 'MEMBER_LIMIT_REACHED');
      expect(res.body.message).toContain('COORDINATOR_MAX_MEMBERS_PER_GROUP');
      expect(await stack.redis.hexists(keys.members, 'm3')).toBe(0);
      expect(await stack.redis.zscore(keys.leases, 'm3')).toBeNull();
      expect(await stack.redis.hgetall(keys.header)).toEqual(header);

      // The members already in the group keep heartbeating (full path, then fast path).
      let last = joins;
      for (let round = 0; round < 3; round++) last = await steady(stack, p, last);
      for (const r of last.values()) expect(['OK', 'REVOKE_PENDING']).toContain(r.body.status);
    });

    it('counts live members: once one expires a new id joins, and the expired one is then refused', async () => {
      const stack = stackOf({ COORDINATOR_MAX_MEMBERS_PER_GROUP: '2' });
      const { p, joins, keys } = await groupWith(stack, ['m1', 'm2']);
      stack.clock.advance(2000);
      await steady(stack, p, new Map([['m1', joins.get('m1')!]]));
      stack.clock.advance(1500); // m2's 3 s lease has run out; m1's has not.

      const m3 = await heartbeat(stack, p, p, 'm3', { epoch: 0, mv: 0 });
      expect(m3.body).toMatchObject({ status: 'OK' });
      expect(await stack.redis.zcard(keys.leases)).toBe(2);
      refused(await heartbeat(stack, p, p, 'm2', { epoch: 0, mv: 0 }), 'MEMBER_LIMIT_REACHED');
      expect(await stack.redis.zscore(keys.leases, 'm2')).toBeNull();
    });

    it('keeps the limit under concurrent joins of new member ids', async () => {
      const stack = stackOf({ COORDINATOR_MAX_MEMBERS_PER_GROUP: '3' });
      const { p, keys } = await groupWith(stack, []);
      const ids = Array.from({ length: 8 }, (_, i) => `c${i}`);
      const answers = await Promise.all(ids.map((id) => heartbeat(stack, p, p, id, { epoch: 0, mv: 0 })));
      expect(answers.filter((r) => r.status === 200)).toHaveLength(3);
      for (const res of answers.filter((r) => r.status !== 200)) refused(res, 'MEMBER_LIMIT_REACHED');
      expect(await stack.redis.zcard(keys.leases)).toBe(3);
      expect(await stack.redis.hlen(keys.members)).toBe(3);
    });
  });
  describe('what one member stores', () => {
    it('keeps one progress row per shard, however many rows a heartbeat repeats (fast path too)', async () => {
      const stack = stackOf({});
      const p = uniquePrefix('qp');
      expect((await createStream(stack, p)).status).toBe(201);
      const join = (await heartbeat(stack, p, p, 'm1', { epoch: 0, mv: 0 })).body;
      const report = (rows: number) => ({
        epoch: join.memberEpoch,
        mv: join.metadataVersion,
        owned: [0, 1],
        progress: [
          ...Array.from({ length: rows }, (_, i) => ({ shard: 0, lastDeliveredId: `${i + 1}-0` })),
          { shard: 1, lastDeliveredId: '7-0' },
        ],
      });
      // The first report is decided on the full path (and records the fast-path answer); the
      // repeats of shard 0 keep the same fast-path key, so the next one is answered from it.
      for (const rows of [1, 300]) {
        expect((await heartbeat(stack, p, p, 'm1', report(rows))).body.status).toBe('OK');
      }
      const live = await stack.redis.hget(groupKeys(stack.config.keyPrefix, p, p).live, 'm1');
      const stored = JSON.parse(live ?? '{}').progress as Array<{ shard: number; lastDeliveredId: string }>;
      expect(stored.map((r) => [r.shard, r.lastDeliveredId])).toEqual([
        [0, '300-0'],
        [1, '7-0'],
      ]);
    });
  });
});
