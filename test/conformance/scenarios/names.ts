/**
 * Hostile names (docs/security.md): group names and member ids that are also property names of every
 * JavaScript object behave like any other name, and names that are not well-formed Unicode are
 * refused before anything is written.
 */
import { expect } from 'vitest';
import { uniquePrefix } from '../../support/redis.js';
import { heartbeatBody, idx } from '../../support/stack.js';
import { createStream, groupPath, heartbeat, members, type Scenario } from '../scenario.js';
import type { ConformanceTarget, TargetResponse } from '../target.js';

/** Names an object literal inherits (or treats specially) from `Object.prototype`. */
export const PROTOTYPE_NAMES = ['valueOf', 'constructor', '__proto__', 'toString', 'hasOwnProperty'];

function scale(t: ConformanceTarget, p: string, target: number): Promise<TargetResponse> {
  return t.call('POST', `/coord/v1/streams/${encodeURIComponent(p)}/scale`, {
    targetShardCount: target,
    requestedBy: 'conformance',
    reason: 'names scenario',
  });
}

/** What each member knows of itself between heartbeats. */
type Members = Map<string, { epoch: number; mv: number; owned: number[] }>;

/** Members about to join (epoch 0). */
const joining = (ids: string[]): Members => new Map(ids.map((id) => [id, { epoch: 0, mv: 0, owned: [] }]));

/** Heartbeats every member until a round in which all answer OK with nothing pending; returns their shards. */
async function settle(t: ConformanceTarget, p: string, g: string, state: Members): Promise<number[][]> {
  const ids = [...state.keys()];
  for (let round = 0; round < 10; round++) {
    let settled = true;
    for (const id of ids) {
      const s = state.get(id)!;
      const res = await heartbeat(t, p, id, { epoch: s.epoch, mv: s.mv, owned: s.owned }, g);
      expect(res.status, `${g}/${id}: ${JSON.stringify(res.body)}`).toBe(200);
      expect(['OK', 'SYNC_METADATA', 'REVOKE_PENDING'], `${g}/${id}`).toContain(res.body.status);
      const assigned = idx(res.body.assignment.assignedShards);
      settled &&= res.body.status === 'OK' && res.body.assignment.pendingShards.length === 0;
      s.epoch = res.body.memberEpoch;
      s.mv = res.body.metadataVersion;
      s.owned = res.body.status === 'OK' ? assigned : s.owned.filter((x) => assigned.includes(x));
    }
    if (settled) break;
  }
  return ids.map((id) => state.get(id)!.owned);
}

function prototypeNameScenario(name: string): Scenario {
  return {
    name: `treats '${name}' as an ordinary group name and member id: create, add, heartbeat, scale, delete`,
    async run(t) {
      const p = uniquePrefix('proto');
      const created = await t.call('POST', `/coord/v1/streams/${p}`, {
        initialShardCount: 2,
        consumerGroup: name,
        requestedBy: 'conformance',
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body).toMatchObject({ streamPrefix: p, consumerGroup: name, shardCount: 2 });
      expect((await t.call('GET', groupPath(p, name))).body).toMatchObject({
        consumerGroup: name,
        state: 'EMPTY',
      });

      // Added to another stream it is new (201); added twice it exists (409).
      const q = uniquePrefix('proto-add');
      await createStream(t, q, 2);
      const added = await t.call('POST', groupPath(q, name), { requestedBy: 'conformance' });
      expect(added.status, JSON.stringify(added.body)).toBe(201);
      const again = await t.call('POST', groupPath(q, name), { requestedBy: 'conformance' });
      expect(again.status).toBe(409);
      expect(again.body.errorCode).toBe('GROUP_ALREADY_EXISTS');
      // The other hostile names were never created in q.
      for (const other of PROTOTYPE_NAMES.filter((n) => n !== name)) {
        expect((await t.call('GET', groupPath(q, other))).status, other).toBe(404);
      }

      // Every hostile name joins as a member, steadies, and together they hold every shard once.
      const state = joining(PROTOTYPE_NAMES);
      const owned = await settle(t, p, name, state);
      expect(owned.flat().sort()).toEqual([0, 1]);
      expect(Object.keys(await members(t, p, name)).sort()).toEqual([...PROTOTYPE_NAMES].sort());

      const scaled = await scale(t, p, 3);
      expect(scaled.status, JSON.stringify(scaled.body)).toBe(202);
      expect(scaled.body.affectedConsumerGroups).toEqual([name]);
      expect((await settle(t, p, name, state)).flat().sort()).toEqual([0, 1, 2]);
      await t.triggerSweep(Date.now());

      const deleted = await t.call('DELETE', groupPath(q, name), {
        requestedBy: 'conformance',
        reason: 'names',
      });
      expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
      expect((await t.call('GET', groupPath(q, name))).status).toBe(404);
      expect((await t.call('GET', groupPath(q))).status).toBe(200);
    },
  };
}

/** Names with an unpaired UTF-16 surrogate: no UTF-8 spelling, so Redis could not hold them. */
const LONE_SURROGATES = ['\ud800', 'orders-\udfff', '\udc00\ud800'];

/** Scenarios about names. */
export const nameScenarios: Scenario[] = [
  ...PROTOTYPE_NAMES.map(prototypeNameScenario),
  {
    name: 'refuses a group name or member id that is not well-formed Unicode with 400 and writes nothing',
    async run(t) {
      const p = uniquePrefix('surrogate');
      await createStream(t, p, 2);
      const streams = `${t.namespace}:streams`;
      const before = (await t.redis.smembers(streams)).sort();
      const keys = (await t.redis.keys(`*${p}*`)).sort();
      for (const bad of LONE_SURROGATES) {
        const q = uniquePrefix('surrogate-new');
        const created = await t.call('POST', `/coord/v1/streams/${q}`, {
          consumerGroup: bad,
          requestedBy: 'me',
        });
        expect(created.status, JSON.stringify(created.body)).toBe(400);
        expect(created.body).toMatchObject({ errorCode: 'INVALID_REQUEST', status: 'BAD_REQUEST' });
        expect(created.body.message).toContain('consumerGroup');
        expect(await t.redis.keys(`*${q}*`)).toEqual([]);

        const hb = await t.call('POST', `${groupPath(p)}/members/m1/heartbeat`, {
          ...heartbeatBody('m1', p, { epoch: 0, mv: 0 }),
          memberId: bad,
        });
        expect(hb.status, JSON.stringify(hb.body)).toBe(400);
        expect(hb.body.errorCode).toBe('INVALID_REQUEST');
      }
      expect((await t.redis.smembers(streams)).sort()).toEqual(before);
      expect((await t.redis.keys(`*${p}*`)).sort()).toEqual(keys);
      expect(Object.keys(await members(t, p))).toEqual([]);
    },
  },
];
