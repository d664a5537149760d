/**
 * A deleted stream leaves nothing a re-created one could trip over: `DELETE /streams/{p}`
 * (plain, after everything was consumed, and forced) removes the fenced-ack tokens of its shards,
 * and the idempotency markers of the old stream can no longer answer for the new one. A SCAN of
 * the whole keyspace afterwards finds no key of the stream except markers of the dead
 * incarnation, which nothing can name any more and which expire.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { OwnershipLostError } from '../../src/client/consumer-errors.js';
import { streamKeys } from '../../src/store/keys.js';
import { backends, uniquePrefix } from '../support/redis.js';
import { AdminStack, consumeAll, keysOfStream, totalEntries } from './leftovers-support.js';

const SHARDS = 2;

/** Keys a SCAN may still find after the delete: markers of a dead incarnation (`{p:i}:idem:<inc>:<eventId>`). */
function deadMarker(p: string): RegExp {
  return new RegExp(`^\\{${p}:\\d+\\}:idem:[^:]+:evt-\\d+$`);
}

describe.each(backends)('leftovers > stream delete ($name)', (backend) => {
  let stack: AdminStack | undefined;
  afterEach(async () => {
    await stack?.close();
    stack = undefined;
  });

  for (const force of [false, true]) {
    const how = force ? 'forced delete' : 'plain delete';

    it(`${how}: a claim at a low epoch on the re-created stream is not refused by the old stream's token`, async () => {
      stack = AdminStack.open(backend);
      const p = uniquePrefix('lo-tok');
      await stack.create(p, SHARDS);
      for (let i = 0; i < SHARDS; i++) await stack.claim(p, `${p}:${i}`, 9, 'old-member');
      await stack.delete(p, force);
      await stack.create(p, SHARDS);
      for (let i = 0; i < SHARDS; i++) {
        const claimed = await stack.claim(p, `${p}:${i}`, 2, 'new-member').catch((e: unknown) => e);
        expect(claimed instanceof OwnershipLostError ? claimed.message : claimed).toBeUndefined();
      }
    });

    it(`${how}: a publish to the re-created stream with an old event id is written, not a duplicate`, async () => {
      stack = AdminStack.open(backend);
      const p = uniquePrefix('lo-idem');
      await stack.create(p, SHARDS);
      const prod = stack.producer(p);
      const record = (n: number) => ({
        partitionKey: 'customer-1',
        fields: { n: String(n) },
        eventId: `evt-${n}`,
      });
      await prod.publish(record(1));
      // Two records of one shard with event ids: the batch script.
      expect((await prod.publishBatch([record(2), record(3)])).every((r) => r.ok)).toBe(true);
      if (!force) await consumeAll(stack.redis, p, SHARDS);
      await stack.delete(p, force);
      await stack.create(p, SHARDS);

      // The same producer (its routing and what it learned about the shard are from before).
      const again = await prod.publish(record(1));
      expect(again.duplicate).toBe(false);
      const batch = await prod.publishBatch([record(2), record(3)]);
      expect(batch.map((r) => r.ok && r.duplicate)).toEqual([false, false]);
      expect(await totalEntries(stack.redis, p, SHARDS)).toBe(3);
      // Idempotence holds within the new stream, also for a producer that never saw the old one.
      const repeat = await stack.producer(p).publish(record(1));
      expect(repeat).toMatchObject({ duplicate: true, entryId: again.entryId });
      expect(await totalEntries(stack.redis, p, SHARDS)).toBe(3);
    });

    it(`${how}: a SCAN of the whole keyspace finds no key of the stream`, async () => {
      stack = AdminStack.open(backend);
      const p = uniquePrefix('lo-scan');
      await stack.create(p, SHARDS);
      const prod = stack.producer(p);
      for (let n = 1; n <= 4; n++)
        await prod.publish({ partitionKey: `k${n}`, fields: { n: '1' }, eventId: `evt-${n}` });
      for (let i = 0; i < SHARDS; i++) await stack.claim(p, `${p}:${i}`, 9, 'old-member');
      if (force) {
        // A live member too: its coordinator records must go as well.
        expect(await stack.join(p, 'm1')).toBe('OK');
      } else {
        await consumeAll(stack.redis, p, SHARDS);
      }
      expect((await keysOfStream(stack.redis, p)).length).toBeGreaterThan(SHARDS);
      await stack.delete(p, force);

      const found = await keysOfStream(stack.redis, p);
      const commitToken = streamKeys(stack.s.stack.config.keyPrefix, p).commit;
      const leftovers: string[] = [];
      for (const key of found) {
        const ttl = await stack.redis.pttl(key);
        // Two kinds of key may stay until their TTL runs out, and only then: markers of the dead
        // incarnation (nothing names them any more), and the one-time token of the delete's own
        // commit (60 s: a resent delete whose first reply was lost is recognised as applied).
        const expiring = deadMarker(p).test(key) || (key === commitToken && ttl <= 60_000);
        if (!expiring || ttl <= 0) leftovers.push(`${key} (${await stack.redis.type(key)}, pttl ${ttl})`);
      }
      expect(leftovers, `keys of ${p} left after the delete:\n${leftovers.join('\n')}`).toEqual([]);
      expect(await stack.s.stack.store.listStreams()).not.toContain(p);
    });
  }

  it('provisioning off: the operator keeps the shard keys, the tokens of the deleted stream go', async () => {
    stack = AdminStack.open(backend, { COORDINATOR_PROVISIONING: 'false' });
    const p = uniquePrefix('lo-prov-off');
    for (let i = 0; i < SHARDS; i++) await stack.redis.xgroup('CREATE', `${p}:${i}`, p, '$', 'MKSTREAM');
    await stack.create(p, SHARDS);
    for (let i = 0; i < SHARDS; i++) await stack.claim(p, `${p}:${i}`, 9, 'old-member');
    await stack.delete(p, false);
    expect(await keysOfStream(stack.redis, `${p}:`)).toEqual([`${p}:0`, `${p}:1`]);
    await stack.create(p, SHARDS);
    for (let i = 0; i < SHARDS; i++) {
      const claimed = await stack.claim(p, `${p}:${i}`, 2, 'new-member').catch((e: unknown) => e);
      expect(claimed instanceof OwnershipLostError ? claimed.message : claimed).toBeUndefined();
    }
    await stack.delete(p, false);
    await stack.redis.del(`${p}:0`);
    await stack.redis.del(`${p}:1`);
  });
});
