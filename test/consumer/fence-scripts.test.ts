/**
 * The ownership-token scripts on real Redis through `FencedRedis`: a claim wins over a lower or
 * equal epoch and loses to a higher one (until that claim's protection lapses on Redis' clock);
 * only the token's holder acks or releases; plain mode is plain XACK.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { OwnershipLostError } from '../../src/client/consumer-errors.js';
import { FencedRedis, OWNER_CLAIM_PROTECT_MS } from '../../src/client/consumer-fence.js';
import { ConsumerRedis } from '../../src/client/consumer-redis.js';
import { ownerKey } from '../../src/store/scripts/shard-owner.js';
import { standaloneClient, uniquePrefix } from '../support/redis.js';

const redis = standaloneClient();
afterAll(async () => {
  await redis.quit();
});

/** Redis' own clock, ms (what the claim script reads). */
async function redisNow(): Promise<number> {
  const [s, us] = await redis.time();
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
}

async function shard(): Promise<{ key: string; group: string; ids: string[] }> {
  const key = `${uniquePrefix('fence')}:0`;
  const group = 'g';
  await redis.xgroup('CREATE', key, group, '0', 'MKSTREAM');
  const ids = [(await redis.xadd(key, '*', 'a', '1'))!, (await redis.xadd(key, '*', 'a', '2'))!];
  await redis.xreadgroup('GROUP', group, 'x', 'COUNT', 10, 'STREAMS', key, '>');
  return { key, group, ids };
}

describe('consumer > ownership token scripts', () => {
  it('lets a higher or equal epoch take the token, refuses a lower one, and fences acks by it', async () => {
    const { key, group, ids } = await shard();
    const base = new ConsumerRedis(redis, group);
    const old = new FencedRedis(base, { epoch: 4, memberId: 'old' });
    const next = new FencedRedis(base, { epoch: 7, memberId: 'next' });
    await old.claimOwnership(key);
    await next.claimOwnership(key);
    const refused = await old.claimOwnership(key).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OwnershipLostError);
    expect((refused as OwnershipLostError).heldBy).toEqual({ epoch: 7, memberId: 'next' });
    await expect(old.ack(key, ids)).rejects.toBeInstanceOf(OwnershipLostError);
    await expect(old.claim(key, 'old', 0, ids)).rejects.toBeInstanceOf(OwnershipLostError);
    expect(await old.releaseOwnership(key)).toBe(false);
    expect(Number((await redis.xpending(key, group))[0])).toBe(2);
    // The same member at the same epoch claims again (a re-grant in one epoch).
    await new FencedRedis(base, { epoch: 7, memberId: 'next' }).claimOwnership(key);
    expect((await next.claim(key, 'next', 0, ids)).map((e) => e.id)).toEqual(ids);
    await next.ack(key, ids.slice(0, 1));
    await next.ackDelete(key, ids.slice(1));
    expect(Number((await redis.xpending(key, group))[0])).toBe(0);
    expect(await redis.xlen(key)).toBe(1);
    expect(await next.releaseOwnership(key)).toBe(true);
    expect(await redis.exists(ownerKey(key))).toBe(0);
    // No token at all: nobody's acks pass.
    await expect(next.ack(key, ids)).rejects.toBeInstanceOf(OwnershipLostError);
  });

  it('lets a lower epoch claim once the higher claim has outlived its protection (a recreated group)', async () => {
    const { key } = await shard();
    const base = new ConsumerRedis(redis, 'g');
    await new FencedRedis(base, { epoch: 50, memberId: 'before' }).claimOwnership(key);
    const after = new FencedRedis(base, { epoch: 2, memberId: 'after' });
    await expect(after.claimOwnership(key)).rejects.toBeInstanceOf(OwnershipLostError);
    // The protection is counted on Redis' clock: let it lapse there (as 10 minutes would).
    const stored = (await redis.hget(ownerKey(key), 'g'))!;
    await redis.hset(ownerKey(key), 'g', stored.replace(/^(\d+):\d+:/, `$1:${(await redisNow()) - 1}:`));
    const before = await redisNow();
    await after.claimOwnership(key);
    const at = await redisNow();
    const [epoch, until, member] = (await redis.hget(ownerKey(key), 'g'))!.split(':');
    expect([epoch, member]).toEqual(['2', 'after']);
    expect(Number(until)).toBeGreaterThanOrEqual(before + OWNER_CLAIM_PROTECT_MS);
    expect(Number(until)).toBeLessThanOrEqual(at + OWNER_CLAIM_PROTECT_MS);
  });
});
