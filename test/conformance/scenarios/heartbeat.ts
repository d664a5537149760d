/**
 * The member protocol over HTTP (docs/protocol.md#heartbeat): the worked example (docs/protocol.md#worked-example) with exact epochs,
 * the one-round-trip steady heartbeat, leave, unknown groups, and concurrent joins.
 */
import { expect } from 'vitest';
import { streamKeys } from '../../../src/store/keys.js';
import { uniquePrefix } from '../../support/redis.js';
import { idx } from '../../support/stack.js';
import { createStream, groupPath, heartbeat, members, monitoringPath, type Scenario } from '../scenario.js';

/** Scenarios about heartbeats. */
export const heartbeatScenarios: Scenario[] = [
  {
    name: 'reproduces the worked example of the protocol: revoke before assign with two members',
    async run(t) {
      const p = uniquePrefix('worked');
      await createStream(t, p, 2);
      const a1 = await heartbeat(t, p, 'A', { epoch: 0, mv: 0 });
      expect(a1.status).toBe(200);
      expect(a1.body).toMatchObject({
        status: 'OK',
        memberId: 'A',
        memberEpoch: 2,
        groupEpoch: 2,
        assignmentEpoch: 2,
        metadataVersion: 2,
        heartbeatIntervalMs: 500,
        memberLeaseTtlMs: 3000,
      });
      expect(idx(a1.body.assignment.assignedShards)).toEqual([0, 1]);
      expect((await t.call('GET', groupPath(p))).body.state).toBe('RECONCILING');

      const a2 = await heartbeat(t, p, 'A', { epoch: 2, mv: 2, owned: [0, 1] });
      expect(a2.body).toMatchObject({ status: 'OK', memberEpoch: 2, groupEpoch: 2, metadataVersion: 2 });
      expect((await t.call('GET', groupPath(p))).body.state).toBe('STABLE');

      // B joins: its target {1} is still held by A, so it is pending, not assigned.
      const b1 = await heartbeat(t, p, 'B', { epoch: 0, mv: 0 });
      expect(b1.body).toMatchObject({ status: 'OK', memberEpoch: 3, groupEpoch: 3 });
      expect(idx(b1.body.assignment.assignedShards)).toEqual([]);
      expect(idx(b1.body.assignment.pendingShards)).toEqual([1]);

      // A learns that shard 1 moved (it disappears from its assignment) ...
      const a3 = await heartbeat(t, p, 'A', { epoch: 2, mv: 2, owned: [0, 1] });
      expect(a3.body).toMatchObject({ status: 'OK', memberEpoch: 3 });
      expect(idx(a3.body.assignment.assignedShards)).toEqual([0]);
      // ... and as long as A still reports it, B keeps waiting.
      const b2 = await heartbeat(t, p, 'B', { epoch: 3, mv: 3 });
      expect(idx(b2.body.assignment.assignedShards)).toEqual([]);

      const a4 = await heartbeat(t, p, 'A', {
        epoch: 3,
        mv: 3,
        owned: [0],
        revoking: [{ shard: 1, state: 'REVOKED' }],
      });
      expect(a4.body.status).toBe('OK');
      const b3 = await heartbeat(t, p, 'B', { epoch: 3, mv: 3 });
      expect(b3.body.status).toBe('OK');
      expect(idx(b3.body.assignment.assignedShards)).toEqual([1]);
      expect(idx(b3.body.assignment.pendingShards)).toEqual([]);
    },
  },
  {
    name: 'answers a repeated steady heartbeat identically and renews the lease without a new epoch',
    async run(t) {
      const p = uniquePrefix('steady');
      await createStream(t, p, 3);
      const j = await heartbeat(t, p, 'A', { epoch: 0, mv: 0 });
      const args = { epoch: j.body.memberEpoch, mv: j.body.metadataVersion, owned: [0, 1, 2] };
      const first = await heartbeat(t, p, 'A', args);
      const lease1 = (await members(t, p)).A.memberLeaseExpiresAt;
      const rev = await t.redis.hget(streamKeys(t.namespace, p).stream, 'rev');
      await new Promise((r) => setTimeout(r, 20));
      const second = await heartbeat(t, p, 'A', args);
      const { responseTo: _a, ...rest1 } = first.body;
      const { responseTo: _b, ...rest2 } = second.body;
      expect(rest2).toEqual(rest1);
      expect(second.body.status).toBe('OK');
      expect(Date.parse((await members(t, p)).A.memberLeaseExpiresAt)).toBeGreaterThan(Date.parse(lease1));
      // The steady path renews the lease outside the documents: the store revision stays.
      expect(await t.redis.hget(streamKeys(t.namespace, p).stream, 'rev')).toBe(rev);
    },
  },
  {
    name: 'lets a member leave with epoch -1 and hands its shards to the others',
    async run(t) {
      const p = uniquePrefix('leave');
      await createStream(t, p, 2);
      const a = await heartbeat(t, p, 'A', { epoch: 0, mv: 0 });
      await heartbeat(t, p, 'A', { epoch: a.body.memberEpoch, mv: a.body.metadataVersion, owned: [0, 1] });
      const b = await heartbeat(t, p, 'B', { epoch: 0, mv: 0 });
      const leave = await heartbeat(t, p, 'A', { epoch: -1, mv: b.body.metadataVersion, owned: [] });
      expect(leave.body).toMatchObject({ status: 'OK', memberEpoch: -1 });
      expect(idx(leave.body.assignment.assignedShards)).toEqual([]);
      const b2 = await heartbeat(t, p, 'B', { epoch: b.body.memberEpoch, mv: b.body.metadataVersion });
      expect(b2.body.status).toBe('OK');
      expect(idx(b2.body.assignment.assignedShards)).toEqual([0, 1]);
      expect((await members(t, p)).A.state).toBe('LEAVING');
    },
  },
  {
    name: 'answers UNKNOWN_MEMBER_ID (200) for an unknown group and never creates it',
    async run(t) {
      const p = uniquePrefix('nogroup');
      const r = await heartbeat(t, p, 'A', { epoch: 0, mv: 0 });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        status: 'UNKNOWN_MEMBER_ID',
        memberEpoch: 0,
        groupEpoch: 0,
        assignmentEpoch: 0,
        metadataVersion: 0,
        assignment: { assignedShards: [], pendingShards: [], metadataVersion: 0 },
      });
      expect((await t.call('GET', groupPath(p))).status).toBe(404);
      expect(await t.redis.exists(streamKeys(t.namespace, p).stream)).toBe(0);
    },
  },
  {
    name: 'records every one of many concurrent joins and never lets two members hold a shard',
    async run(t) {
      const p = uniquePrefix('concurrent');
      await createStream(t, p, 8);
      const ids = Array.from({ length: 8 }, (_, i) => `m${i}`);
      const joins = await Promise.all(ids.map((id) => heartbeat(t, p, id, { epoch: 0, mv: 0 })));
      for (const j of joins) expect(j.body.status).toBe('OK');
      // Joins are serialized: each one bumped the group epoch once.
      expect(joins.map((j) => j.body.memberEpoch).sort((x, y) => x - y)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
      const all = await members(t, p);
      expect(Object.keys(all).sort()).toEqual(ids);
      // Everyone heartbeats until the group settles; ownership stays exclusive throughout.
      const state = new Map(
        ids.map((id, i) => [id, { epoch: joins[i]!.body.memberEpoch, mv: 0, owned: [] as number[] }]),
      );
      // Four rounds settle it when rounds run at once; under a loaded machine an assignment round
      // can still hold its lock when the next heartbeats come, so allow a few more, never fewer.
      for (let round = 0; round < 12; round++) {
        const answers = await Promise.all(
          ids.map((id) => {
            const s = state.get(id)!;
            return heartbeat(t, p, id, { epoch: s.epoch, mv: s.mv, owned: s.owned });
          }),
        );
        answers.forEach((a, i) => {
          expect(a.body.status).toBe('OK');
          state.set(ids[i]!, {
            epoch: a.body.memberEpoch,
            mv: a.body.metadataVersion,
            owned: idx(a.body.assignment.assignedShards),
          });
        });
        const held = [...state.values()].flatMap((s) => s.owned);
        expect(new Set(held).size).toBe(held.length);
        if (round >= 3 && held.length === 8 && (await t.call('GET', groupPath(p))).body.state === 'STABLE')
          break;
      }
      const view = await t.call('GET', `${monitoringPath(p)}/assignments`);
      expect(view.body.invariantViolations).toEqual([]);
      expect((await t.call('GET', groupPath(p))).body.state).toBe('STABLE');
    },
  },
];
