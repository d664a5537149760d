/**
 * Creating streams and groups, reading them, deleting groups (docs/protocol.md#streams-and-groups–2.4, docs/protocol.md#deviation-one-shard-count-per-stream).
 */
import { expect } from 'vitest';
import { uniquePrefix } from '../../support/redis.js';
import { createStream, groupPath, heartbeat, type Scenario } from '../scenario.js';
import type { ConformanceTarget } from '../target.js';

/** Consumer groups Redis has on a shard stream, by name. */
async function redisGroups(
  t: ConformanceTarget,
  key: string,
): Promise<Record<string, Record<string, unknown>>> {
  const raw = (await t.redis.xinfo('GROUPS', key)) as unknown[][];
  const out: Record<string, Record<string, unknown>> = {};
  for (const g of raw) {
    const rec: Record<string, unknown> = {};
    for (let i = 0; i + 1 < g.length; i += 2) rec[String(g[i])] = g[i + 1];
    out[String(rec.name)] = rec;
  }
  return out;
}

/** Scenarios about the stream and group lifecycle. */
export const streamScenarios: Scenario[] = [
  {
    name: 'creates a stream with its first group and provisions every shard at the tail',
    async run(t) {
      const p = uniquePrefix('create');
      const res = await t.call('POST', `/coord/v1/streams/${p}`, { initialShardCount: 3, requestedBy: 'me' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ streamPrefix: p, consumerGroup: p, shardCount: 3, metadataVersion: 1 });
      for (let i = 0; i < 3; i++) {
        const groups = await redisGroups(t, `${p}:${i}`);
        expect(Object.keys(groups)).toEqual([p]);
        expect(groups[p]).toMatchObject({ pending: 0, lag: 0 });
      }
      expect(await t.redis.exists(`${p}:3`)).toBe(0);
      const g = await t.call('GET', groupPath(p));
      expect(g.status).toBe(200);
      expect(g.body).toMatchObject({
        streamPrefix: p,
        consumerGroup: p,
        state: 'EMPTY',
        groupEpoch: 1,
        assignmentEpoch: 1,
        metadataVersion: 1,
        shardCount: 3,
        activeMigration: null,
        targetAssignmentSummary: {},
        currentAssignmentSummary: {},
      });
    },
  },
  {
    name: 'refuses a second create and a prefix whose keys Redis already holds (409 STREAM_PREFIX_ALREADY_EXISTS)',
    async run(t) {
      const p = uniquePrefix('dup');
      await createStream(t, p, 2);
      const again = await t.call('POST', `/coord/v1/streams/${p}`, { requestedBy: 'me' });
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ status: 'CONFLICT', errorCode: 'STREAM_PREFIX_ALREADY_EXISTS' });

      const foreign = uniquePrefix('foreign');
      await t.redis.xadd(`${foreign}:1`, '*', 'payload', 'x');
      const res = await t.call('POST', `/coord/v1/streams/${foreign}`, {
        initialShardCount: 2,
        requestedBy: 'me',
      });
      expect(res.status).toBe(409);
      expect(res.body.errorCode).toBe('STREAM_PREFIX_ALREADY_EXISTS');
      expect((await t.call('GET', groupPath(foreign))).status).toBe(404);
    },
  },
  {
    name: 'adds a group at the stream shard count, provisioned on every shard, and refuses another count',
    async run(t) {
      const p = uniquePrefix('groups');
      await createStream(t, p, 2);
      const add = await t.call('POST', groupPath(p, 'audit'), { requestedBy: 'me', reason: 'audit trail' });
      expect(add.status).toBe(201);
      expect(add.body).toMatchObject({ consumerGroup: 'audit', shardCount: 2, state: 'EMPTY' });
      for (let i = 0; i < 2; i++)
        expect(Object.keys(await redisGroups(t, `${p}:${i}`)).sort()).toEqual(['audit', p].sort());

      const mismatch = await t.call('POST', groupPath(p, 'other'), {
        initialShardCount: 5,
        requestedBy: 'me',
      });
      expect(mismatch.status).toBe(409);
      expect(mismatch.body.errorCode).toBe('SHARD_COUNT_MISMATCH');
      const dup = await t.call('POST', groupPath(p, 'audit'), { requestedBy: 'me' });
      expect(dup.status).toBe(409);
      expect(dup.body.errorCode).toBe('GROUP_ALREADY_EXISTS');
      const unknown = await t.call('GET', groupPath(p, 'nope'));
      expect(unknown.status).toBe(404);
      expect(unknown.body).toMatchObject({ status: 'NOT_FOUND', errorCode: 'GROUP_NOT_FOUND' });
    },
  },
  {
    name: 'deletes a group only when forced while it has active members, and keeps the stream keys',
    async run(t) {
      const p = uniquePrefix('delete');
      await createStream(t, p, 2);
      expect((await heartbeat(t, p, 'm1', { epoch: 0, mv: 0 })).body.status).toBe('OK');
      const refused = await t.call('DELETE', groupPath(p), { requestedBy: 'me', reason: 'cleanup' });
      expect(refused.status).toBe(409);
      expect(refused.body.errorCode).toBe('GROUP_HAS_ACTIVE_MEMBERS');
      const forced = await t.call('DELETE', groupPath(p), {
        requestedBy: 'me',
        reason: 'cleanup',
        force: true,
      });
      expect(forced.status).toBe(200);
      expect(forced.body).toMatchObject({ consumerGroup: p, targetAssignmentSummary: { m1: 2 } });
      expect((await t.call('GET', groupPath(p))).status).toBe(404);
      expect(await t.redis.exists(`${p}:0`, `${p}:1`)).toBe(2);
    },
  },
];
