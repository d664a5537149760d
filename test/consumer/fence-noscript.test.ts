/**
 * Fenced acks keep working after the script cache is gone (restart, failover, SCRIPT FLUSH): the
 * claim, a plain fenced ack and the ack that rides ahead of a blocking read on the reader's own
 * connection each get NOSCRIPT and are sent again with the script's text. A private server,
 * because flushing its script cache must not touch other test files.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FencedRedis } from '../../src/client/consumer-fence.js';
import { ConsumerRedis, dedicatedConnection } from '../../src/client/consumer-redis.js';
import { uniquePrefix } from '../support/redis.js';
import { type StandaloneRedis, startStandalone } from '../support/redis-server.js';

let server: StandaloneRedis;
let redis: Redis;
beforeAll(async () => {
  server = await startStandalone();
  redis = new Redis(server.url);
});
afterAll(async () => {
  redis.disconnect();
  await server.stop();
});

/** Script runs by text (EVAL) the server has executed so far. */
async function evals(): Promise<number> {
  const m = /^cmdstat_eval:calls=(\d+)/m.exec(await redis.info('commandstats'));
  return Number(m?.[1] ?? 0);
}

describe('consumer > fenced acks after a flushed script cache', () => {
  it('claims, acks and acks ahead of a read by sending the script text on NOSCRIPT', async () => {
    const key = `${uniquePrefix('fence-noscript')}:0`;
    await redis.xgroup('CREATE', key, 'g', '0', 'MKSTREAM');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await redis.xadd(key, '*', 'i', String(i)))!);
    await redis.xreadgroup('GROUP', 'g', 'm', 'COUNT', 10, 'STREAMS', key, '>');
    const fenced = new FencedRedis(new ConsumerRedis(redis, 'g'), { epoch: 1, memberId: 'm' });

    await redis.script('FLUSH');
    let before = await evals();
    await fenced.claimOwnership(key);
    expect(await evals()).toBe(before + 1);

    await redis.script('FLUSH');
    before = await evals();
    await fenced.ack(key, [ids[0]!]);
    expect(await evals()).toBe(before + 1);

    await redis.script('FLUSH');
    before = await evals();
    const conn = dedicatedConnection(redis);
    try {
      const { ackError, read } = await fenced.ackAndReadNew(conn, key, 'm', 10, 50, ids.slice(1));
      expect(ackError).toBeNull();
      expect(read).toEqual([]);
    } finally {
      conn.disconnect();
    }
    expect(await evals()).toBe(before + 1);
    expect(Number((await redis.xpending(key, 'g'))[0])).toBe(0);
  });
});
