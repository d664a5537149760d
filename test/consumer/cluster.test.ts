/**
 * The consumer on the private 6-node Redis Cluster: shards on different masters are each read
 * with single-key commands on dedicated Cluster connections; reclaim, ack-delete and the
 * dead-letter stream (another slot) work there too, each shard fenced by its ownership token
 * kept in the shard key's own slot.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ownerKey } from '../../src/store/scripts/shard-owner.js';
import { clusterClient, uniquePrefix } from '../support/redis.js';
import {
  collect,
  controlledFetch,
  eventually,
  newStream,
  pendingCount,
  publish,
  realStack,
  testConsumer,
} from './support.js';

const stack = realStack({ name: 'cluster', make: clusterClient });
const redis = clusterClient();
afterAll(async () => {
  await stack.close();
  redis.disconnect();
});

describe('consumer > Redis Cluster', () => {
  it('reads shards spread over the masters, reclaims, acks, ack-deletes and dead-letters', async () => {
    const p = await newStream(stack, 6);
    const base = uniquePrefix('member');
    const [pendingId] = await publish(redis, p, 4, 1, 'orphan');
    await redis.xreadgroup('GROUP', p, 'gone', 'COUNT', 1, 'STREAMS', `${p}:4`, '>');
    const ctl = controlledFetch(stack);
    const handled = new Set<string>();
    const c = testConsumer({
      streamPrefix: p,
      redis,
      fetch: ctl.fetch,
      memberBase: base,
      concurrency: 2,
      maxDeliveries: 2,
      handler: (r) => {
        if (r.fields.tag?.startsWith('poison')) throw new Error('bad record');
        handled.add(`${r.shard}/${r.id}`);
        return r.shard === 5 ? 'ack-delete' : 'ack';
      },
    });
    const dead = collect(c, 'dead-letter');
    c.start();
    await eventually(() => expect(c.status().map((m) => m.reading.length)).toEqual([3, 3]));
    const expected = new Set([`4/${pendingId}`]);
    for (let s = 0; s < 6; s++) for (const id of await publish(redis, p, s, 10)) expected.add(`${s}/${id}`);
    const [poison] = await publish(redis, p, 2, 1, 'poison');
    await eventually(() => expect(handled).toEqual(expected));
    await eventually(() => expect(dead.map((d) => d.entryId)).toEqual([poison]));
    await eventually(async () => {
      for (let s = 0; s < 6; s++) expect(await pendingCount(redis, p, s)).toBe(0);
    });
    expect(await redis.xlen(`${p}:5`)).toBe(0);
    expect(await redis.xlen(`${p}:dlq`)).toBe(1);
    const members = new Set(c.status().map((m) => m.memberId));
    for (let s = 0; s < 6; s++) {
      const token = await redis.hget(ownerKey(`${p}:${s}`), p);
      expect(members.has(token?.replace(/^\d+:\d+:/, '') ?? '')).toBe(true);
    }
    await c.close();
  });

  it('keeps every shard ownership token in the slot of its shard key (CLUSTER KEYSLOT)', async () => {
    const p = uniquePrefix('slot');
    const node = redis.nodes('master')[0]!;
    const slots = new Set<number>();
    for (let s = 0; s < 64; s++) {
      const shard = Number(await node.call('CLUSTER', 'KEYSLOT', `${p}:${s}`));
      expect(Number(await node.call('CLUSTER', 'KEYSLOT', ownerKey(`${p}:${s}`)))).toBe(shard);
      slots.add(shard);
    }
    // The shards themselves are spread over many slots: the check is not vacuous.
    expect(slots.size).toBeGreaterThan(32);
  });
});
