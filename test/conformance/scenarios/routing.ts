/**
 * Producer routing (docs/protocol.md#producer-routing, docs/protocol.md#deviation-routing-is-a-pure-read): every shard with its key and Cluster slot, a
 * pure read that writes nothing.
 */
import { expect } from 'vitest';
import { redisSlot } from '../../../src/routing/slot.js';
import { streamKeys } from '../../../src/store/keys.js';
import { uniquePrefix } from '../../support/redis.js';
import { snapshotKeys } from '../../support/scan.js';
import { createStream, groupPath, type Scenario } from '../scenario.js';

/** Scenarios about producer routing. */
export const routingScenarios: Scenario[] = [
  {
    name: 'serves producer routing with every shard key and its Redis Cluster slot',
    async run(t) {
      const p = uniquePrefix('route');
      await createStream(t, p, 4);
      const res = await t.call('GET', `${groupPath(p)}/producer-routing`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        streamPrefix: p,
        consumerGroup: p,
        metadataVersion: 1,
        shardCount: 4,
        streamKeyPattern: `${p}:{shardIndex}`,
        shards: [0, 1, 2, 3].map((i) => ({
          shardIndex: i,
          streamKey: `${p}:${i}`,
          redisSlot: redisSlot(`${p}:${i}`),
        })),
      });
    },
  },
  {
    name: 'answers routing reads without writing anything, and 404 for an unknown group',
    async run(t) {
      const p = uniquePrefix('pure');
      await createStream(t, p, 2);
      const before = await snapshotKeys(t.redis, t.namespace, p);
      const rev = await t.redis.hget(streamKeys(t.namespace, p).stream, 'rev');
      for (let i = 0; i < 3; i++)
        expect((await t.call('GET', `${groupPath(p)}/producer-routing`)).status).toBe(200);
      expect((await t.call('GET', groupPath(p))).status).toBe(200);
      expect(await snapshotKeys(t.redis, t.namespace, p)).toEqual(before);
      expect(await t.redis.hget(streamKeys(t.namespace, p).stream, 'rev')).toBe(rev);
      const missing = await t.call('GET', `${groupPath(p, 'ghost')}/producer-routing`);
      expect(missing.status).toBe(404);
      expect(missing.body.errorCode).toBe('GROUP_NOT_FOUND');
    },
  },
];
