/**
 * The ioredis store without a Redis to talk to, and the clients it builds from configuration
 * (what it does with one runs in the Store contract, contract-ioredis.test.ts).
 */
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { isCoordinatorError } from '../../src/core/errors.js';
import { createIoredisClient, IoredisStore } from '../../src/store/ioredis-store.js';
import { freePort } from '../support/redis-server.js';

describe('store > Redis down', () => {
  it('answers ping false and fails load/commit with REDIS_UNAVAILABLE without naming the address', async () => {
    const port = await freePort();
    const client = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on('error', () => {});
    const store = new IoredisStore(client, { namespace: 'down', ownsClient: true, pingTimeoutMs: 200 });
    expect(await store.ping()).toBe(false);
    for (const op of [
      () => store.load('p', 'all'),
      () =>
        store.readMember({
          prefix: 'p',
          group: 'g',
          memberId: 'm',
          now: 0,
          fastKey: null,
          leaseExpiresAt: 0,
          progressJson: '[]',
          shards: [],
          maxDue: 1,
        }),
      () => store.commit({ prefix: 'p', expect: 'absent', groups: [] }),
    ]) {
      const err = await op().catch((e: unknown) => e);
      expect(isCoordinatorError(err) && err.code).toBe('REDIS_UNAVAILABLE');
      expect((err as Error).message).toBe('Redis is unavailable');
    }
    await store.close();
  });

  it('builds standalone and Cluster clients from configuration', () => {
    const a = createIoredisClient({ url: 'redis://127.0.0.1:1', clusterNodes: [] });
    const b = createIoredisClient({ clusterNodes: ['127.0.0.1:1', '127.0.0.1:2'] });
    expect(a.isCluster).toBe(false);
    expect(b.isCluster).toBe(true);
    a.disconnect();
    b.disconnect();
  });
});
