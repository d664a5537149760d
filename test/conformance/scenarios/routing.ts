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
  {
    name: 'tags producer routing with an ETag and answers a matching If-None-Match 304 until a scale changes it',
    async run(t) {
      const p = uniquePrefix('etag');
      await createStream(t, p, 4);
      const path = `${groupPath(p)}/producer-routing`;
      const first = await t.call('GET', path);
      expect(first.status).toBe(200);
      const etag = first.headers.get('etag')!;
      expect(etag).toMatch(/^"1-4-[0-9a-f]{8}"$/);
      expect(first.headers.get('cache-control')).toBe('no-cache');
      for (const match of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
        const again = await t.call('GET', path, undefined, { 'if-none-match': match });
        expect(again.status, match).toBe(304);
        expect(again.body).toBeNull();
        expect(again.headers.get('etag')).toBe(etag);
      }
      expect((await t.call('GET', path, undefined, { 'if-none-match': '"other"' })).body).toEqual(first.body);
      const scaled = await t.call('POST', `/coord/v1/streams/${p}/scale`, {
        targetShardCount: 8,
        requestedBy: 'conformance',
        reason: 'etag',
      });
      expect(scaled.status).toBe(202);
      const after = await t.call('GET', path, undefined, { 'if-none-match': etag });
      expect(after.status).toBe(200);
      expect(after.body.shardCount).toBe(8);
      expect(after.headers.get('etag')).not.toBe(etag);
      const missing = `${groupPath(p, 'ghost')}/producer-routing`;
      expect((await t.call('GET', missing, undefined, { 'if-none-match': '*' })).status).toBe(404);
    },
  },
];
