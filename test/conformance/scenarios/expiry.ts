/**
 * Lease expiry on real time (lease 3 s): lazily on the next mutating request to the group, or by
 * the runtime's scheduled sweep when the group gets no traffic; reads never change anything.
 */
import { expect } from 'vitest';
import { streamKeys } from '../../../src/store/keys.js';
import { uniquePrefix } from '../../support/redis.js';
import { idx } from '../../support/stack.js';
import { createStream, groupPath, heartbeat, members, type Scenario, sleep } from '../scenario.js';
import { LEASE_MS } from '../target.js';

/** Scenarios about member leases. */
export const expiryScenarios: Scenario[] = [
  {
    name: 'expires a silent member after its lease and hands its shards to the member that keeps heartbeating',
    async run(t) {
      const p = uniquePrefix('expiry');
      await createStream(t, p, 4);
      let a = await heartbeat(t, p, 'A', { epoch: 0, mv: 0 });
      const b = await heartbeat(t, p, 'B', { epoch: 0, mv: 0 });
      expect(b.body.status).toBe('OK');
      // B goes silent; A heartbeats every 500 ms (the interval) and reports what it is given.
      const until = Date.now() + LEASE_MS + 1500;
      while (Date.now() < until) {
        a = await heartbeat(t, p, 'A', {
          epoch: a.body.memberEpoch,
          mv: a.body.metadataVersion,
          owned: idx(a.body.assignment.assignedShards),
        });
        expect(a.body.status).toBe('OK');
        if (idx(a.body.assignment.assignedShards).length === 4) break;
        await sleep(500);
      }
      expect(idx(a.body.assignment.assignedShards)).toEqual([0, 1, 2, 3]);
      const view = await members(t, p);
      expect(view.B.state).toBe('EXPIRED');
      expect(view.A.state).toBe('ACTIVE');
      // The expired member is fenced until it rejoins with epoch 0.
      const late = await heartbeat(t, p, 'B', { epoch: b.body.memberEpoch, mv: b.body.metadataVersion });
      expect(late.body.status).toBe('FENCED_MEMBER_EPOCH');
      expect((await heartbeat(t, p, 'B', { epoch: 0, mv: 0 })).body.status).toBe('OK');
    },
  },
  {
    // A lapsed lease is never shown as a current owner, even before the sweep (on
    // Workers up to a minute away) records the expiry; reading still writes nothing.
    name: 'shows a lapsed lease as EXPIRED at once, before the sweep records it: reads write nothing',
    async run(t) {
      const p = uniquePrefix('lapse');
      await createStream(t, p, 2);
      const j = await heartbeat(t, p, 'C', { epoch: 0, mv: 0 });
      await heartbeat(t, p, 'C', { epoch: j.body.memberEpoch, mv: j.body.metadataVersion, owned: [0, 1] });
      expect((await t.call('GET', groupPath(p))).body.currentAssignmentSummary).toEqual({ C: 2 });
      await sleep(LEASE_MS + 300);
      const rev = await t.redis.hget(streamKeys(t.namespace, p).stream, 'rev');
      expect((await members(t, p)).C.state).toBe('EXPIRED');
      const seen = (await t.call('GET', groupPath(p))).body;
      expect(seen).toMatchObject({
        state: 'EMPTY',
        groupEpoch: j.body.groupEpoch,
        currentAssignmentSummary: {},
      });
      expect(await t.redis.hget(streamKeys(t.namespace, p).stream, 'rev')).toBe(rev);

      await t.triggerSweep(Date.now());
      expect((await members(t, p)).C.state).toBe('EXPIRED');
      const g = await t.call('GET', groupPath(p));
      expect(g.body).toMatchObject({ state: 'EMPTY', groupEpoch: j.body.groupEpoch + 1 });
    },
  },
];
