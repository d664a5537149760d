/**
 * The fenced-ack claim reads Redis' clock, not the member's: a stale member whose clock runs
 * ahead cannot push a newer owner's token past its protection, and a member whose clock runs
 * behind does not shorten (or lengthen) the protection its own claim writes.
 */
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { OwnershipLostError } from '../../src/client/consumer-errors.js';
import { FencedRedis, OWNER_CLAIM_PROTECT_MS } from '../../src/client/consumer-fence.js';
import { ConsumerRedis } from '../../src/client/consumer-redis.js';
import { ownerKey } from '../../src/store/scripts/shard-owner.js';
import { standaloneClient, uniquePrefix } from '../support/redis.js';

const redis = standaloneClient();
afterAll(async () => {
  await redis.quit();
});
afterEach(() => {
  vi.useRealTimers();
});

const MINUTE = 60_000;

async function shardKey(): Promise<string> {
  const key = `${uniquePrefix('lo-clock')}:0`;
  await redis.xgroup('CREATE', key, 'g', '0', 'MKSTREAM');
  return key;
}

/** Redis' own clock, ms. */
async function redisNow(): Promise<number> {
  const [s, us] = await redis.time();
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
}

/** Moves this process's clock (only `Date`: timers and sockets keep running). */
function skewClock(ms: number): void {
  const real = Date.now();
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(real + ms);
}

const fenced = (epoch: number, memberId: string) =>
  new FencedRedis(new ConsumerRedis(redis, 'g'), { epoch, memberId });

describe('leftovers > fenced-ack claims on Redis time', () => {
  it("refuses a stale member whose clock runs 11 minutes ahead: the newer owner's token stands", async () => {
    const key = await shardKey();
    await fenced(7, 'next').claimOwnership(key);
    skewClock(11 * MINUTE);
    const refused = await fenced(4, 'stale')
      .claimOwnership(key)
      .catch((e: unknown) => e);
    vi.useRealTimers();
    expect(refused).toBeInstanceOf(OwnershipLostError);
    expect((refused as OwnershipLostError).heldBy).toEqual({ epoch: 7, memberId: 'next' });
    expect(await redis.hget(ownerKey(key), 'g')).toMatch(/^7:\d+:next$/);
  });

  it("writes the claim's protection from Redis' clock, whatever the member's clock says", async () => {
    const key = await shardKey();
    skewClock(-60 * MINUTE);
    const before = await redisNow();
    await fenced(3, 'behind').claimOwnership(key);
    const after = await redisNow();
    vi.useRealTimers();
    const until = Number((await redis.hget(ownerKey(key), 'g'))!.split(':')[1]);
    expect(until).toBeGreaterThanOrEqual(before + OWNER_CLAIM_PROTECT_MS);
    expect(until).toBeLessThanOrEqual(after + OWNER_CLAIM_PROTECT_MS);
  });
});
