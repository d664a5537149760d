/**
 * Monitoring that reads Redis Streams (docs/protocol.md#monitoring-views): offsets with length, pending and lag per
 * shard, and message pages — through the runtime's own inspector, without touching group state.
 */
import { expect } from 'vitest';
import { uniquePrefix } from '../../support/redis.js';
import { createStream, monitoringPath, type Scenario } from '../scenario.js';

/** Scenarios about stream monitoring. */
export const monitoringScenarios: Scenario[] = [
  {
    name: 'reports offsets per shard from XINFO and pages messages, changing no consumer group',
    async run(t) {
      const p = uniquePrefix('offsets');
      await createStream(t, p, 2);
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await t.redis.xadd(`${p}:0`, '*', 'payload', `m${i} ✓`))!);
      // Deliver three of them to the group and ack one: pending 2, lag 2.
      await t.redis.xreadgroup('GROUP', p, 'c1', 'COUNT', 3, 'STREAMS', `${p}:0`, '>');
      await t.redis.xack(`${p}:0`, p, ids[0]!);
      const groupsBefore = await t.redis.xinfo('GROUPS', `${p}:0`);

      const off = await t.call('GET', `${monitoringPath(p)}/offsets`);
      expect(off.status).toBe(200);
      const [s0, s1] = off.body.shards;
      expect(s0).toMatchObject({
        streamKey: `${p}:0`,
        streamLength: 5,
        firstRecordId: ids[0],
        lastRecordId: ids[4],
        groupLastDeliveredId: ids[2],
        pendingCount: 2,
        lag: 2,
      });
      expect(s0.memoryUsageBytes).toBeGreaterThan(0);
      expect(s1).toMatchObject({ streamKey: `${p}:1`, streamLength: 0, pendingCount: 0, lag: 0 });
      expect(off.body).toMatchObject({ totalStreamLength: 5, totalPendingCount: 2, totalLag: 2 });

      const page = await t.call('GET', `${monitoringPath(p)}/shards/0/messages?direction=FORWARD&limit=2`);
      expect(page.status).toBe(200);
      expect(page.body.records.map((r: { recordId: string }) => r.recordId)).toEqual(ids.slice(0, 2));
      expect(page.body.records[1]).toMatchObject({ fields: { payload: 'm1 ✓' }, payload: 'm1 ✓' });
      expect(page.body.nextCursor).toBe(ids[1]);
      const next = await t.call(
        'GET',
        `${monitoringPath(p)}/shards/0/messages?direction=FORWARD&limit=5&cursor=${encodeURIComponent(ids[1]!)}`,
      );
      expect(next.body.records.map((r: { recordId: string }) => r.recordId)).toEqual(ids.slice(2));

      expect(await t.redis.xinfo('GROUPS', `${p}:0`)).toEqual(groupsBefore);
    },
  },
];
