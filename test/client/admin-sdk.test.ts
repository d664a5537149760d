/**
 * The package's admin entry (`/admin`): `createAdminClient` over the real Node server and real
 * Redis — a stream created, listed and scaled through typed calls, and a refusal surfaced as a
 * typed `CoordinatorHttpError` with the coordinator's status and error code.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type RunningServer, startServer } from '../../node/server.js';
import { CoordinatorHttpError, createAdminClient } from '../../src/client/admin-index.js';
import { parseConfig } from '../../src/config.js';
import { uniquePrefix } from '../support/redis.js';

let server: RunningServer;
beforeAll(async () => {
  const config = parseConfig({
    PORT: '0',
    REDIS_URL: inject('redisUrl'),
    COORDINATOR_KEY_PREFIX: uniquePrefix('admin-sdk'),
  });
  server = await startServer({ config, log: () => {} });
});
afterAll(() => server.close());

describe('admin SDK', () => {
  it('creates, lists and scales a stream, and reports a refusal as a typed error', async () => {
    const admin = createAdminClient({ coordinatorUrl: server.url });
    const p = uniquePrefix('orders');
    const created = await admin.createStream(p, { initialShardCount: 2, requestedBy: 'test' });
    expect(created).toMatchObject({ streamPrefix: p, shardCount: 2 });
    expect((await admin.group(p, p)).consumerGroup).toBe(p);
    const scaled = await admin.scaleStream(p, {
      targetShardCount: 4,
      requestedBy: 'test',
      reason: 'sdk test',
    });
    expect(scaled).toMatchObject({ streamPrefix: p, targetShardCount: 4, affectedConsumerGroups: [p] });

    const err = await admin.group(p, 'missing').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CoordinatorHttpError);
    expect(err).toMatchObject({ status: 404, errorCode: 'GROUP_NOT_FOUND' });
  });
});
