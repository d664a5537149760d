/**
 * A retired shard leaves nothing the shard could trip over when a scale-out adds it again:
 * the retirement removes its fenced-ack tokens, and its idempotency markers can no longer answer
 * for the re-added shard. A SCAN after the retirement finds no key of the shard except markers of
 * the dead incarnation, which nothing can name any more and which expire.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { OwnershipLostError } from '../../src/client/consumer-errors.js';
import { routeV1 } from '../../src/routing/route-v1.js';
import { backends, uniquePrefix } from '../support/redis.js';
import { AdminStack, consumeAll, keysOfStream } from './leftovers-support.js';

/** A partition key that `routeV1` sends to shard 1 of 2. */
const ON_SHARD_1 = ['a', 'b', 'c', 'd', 'e', 'f'].find((k) => routeV1(k, 2) === 1)!;

describe.each(backends)('leftovers > shard retirement ($name)', (backend) => {
  let stack: AdminStack | undefined;
  afterEach(async () => {
    await stack?.close();
    stack = undefined;
  });

  it('leaves no token and no reachable marker of a retired shard; the re-added shard claims and publishes afresh', async () => {
    stack = AdminStack.open(backend);
    const p = uniquePrefix('lo-ret');
    const shard = `${p}:1`;
    await stack.create(p, 2);
    const prod = stack.producer(p);
    const first = await prod.publish({ partitionKey: ON_SHARD_1, fields: { n: '1' }, eventId: 'evt-1' });
    expect(first.streamKey).toBe(shard);
    await stack.claim(p, shard, 9, 'old-member');
    await consumeAll(stack.redis, p, 2);

    await stack.scaleAndSettle(p, 1);
    expect(await stack.redis.exists(shard)).toBe(0);
    const leftovers: string[] = [];
    for (const key of await keysOfStream(stack.redis, p)) {
      if (key !== shard && !key.startsWith(`{${shard}}`)) continue;
      const ttl = await stack.redis.pttl(key);
      // A marker of the dead incarnation may stay until its TTL runs out, and only then.
      const marker = new RegExp(`^\\{${shard}\\}:idem:[^:]+:evt-1$`).test(key);
      if (!marker || ttl <= 0) leftovers.push(`${key} (${await stack.redis.type(key)}, pttl ${ttl})`);
    }
    expect(leftovers, `keys of ${shard} left after its retirement:\n${leftovers.join('\n')}`).toEqual([]);

    await stack.scaleAndSettle(p, 2);
    expect(await stack.redis.exists(shard)).toBe(1);
    const claimed = await stack.claim(p, shard, 2, 'new-member').catch((e: unknown) => e);
    expect(claimed instanceof OwnershipLostError ? claimed.message : claimed).toBeUndefined();
    // The producer still routes with what it learned before the retirement.
    const again = await prod.publish({ partitionKey: ON_SHARD_1, fields: { n: '2' }, eventId: 'evt-1' });
    expect(again).toMatchObject({ streamKey: shard, duplicate: false });
    expect(await stack.redis.xlen(shard)).toBe(1);
  });
});
