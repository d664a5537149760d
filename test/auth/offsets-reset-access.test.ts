/**
 * Who may reset a group's offsets, and what it leaves in the log: WRITE (and ADMIN) may, READ
 * and MONITOR get 403 and nothing moves; an executed reset writes one audit line naming the
 * authenticated principal next to the body's `requestedBy`, a dry run none.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type RunningServer, startServer } from '../../node/server.js';
import { parseConfig } from '../../src/config.js';
import { shardKey } from '../../src/store/keys.js';
import { uniquePrefix } from '../support/redis.js';
import { basicFor, credentialsEnv, type LogLine, type UserName } from './support.js';

const logs: LogLine[] = [];
const redis = new Redis(inject('redisUrl'), { protocol: 2 });
let server: RunningServer;

beforeAll(async () => {
  server = await startServer({
    config: parseConfig({
      PORT: '0',
      REDIS_URL: inject('redisUrl'),
      COORDINATOR_KEY_PREFIX: uniquePrefix('resetns'),
      ...credentialsEnv(),
    }),
    log: (level, msg, fields) => logs.push({ level, msg, fields }),
  });
});
afterAll(async () => {
  await server?.close();
  await redis.quit();
});

async function send(who: UserName, method: string, path: string, body: object) {
  const res = await fetch(`${server.url}/coord/v1${path}`, {
    method,
    headers: { authorization: basicFor(who), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text };
}

/** `last-delivered-id` of the one group on `key`. */
async function lastDelivered(key: string): Promise<unknown> {
  const [info] = (await redis.xinfo('GROUPS', key)) as unknown[][];
  return info![info!.indexOf('last-delivered-id') + 1];
}

describe('offsets reset > access and audit', () => {
  it('needs WRITE; an executed reset is audited with the principal, a dry run is not', async () => {
    const p = uniquePrefix('reset-auth');
    expect(
      (await send('writer', 'POST', `/streams/${p}`, { initialShardCount: 1, requestedBy: 'setup' })).status,
    ).toBe(201);
    await redis.xadd(shardKey(p, 0), '5-0', 'k', 'v');
    const path = `/admin/streams/${p}/groups/${p}/offsets/reset`;
    const body = {
      to: 'latest',
      requestedBy: 'someone@example.com',
      reason: 'skip the backlog',
      dryRun: false,
    };

    for (const who of ['reader', 'monitor', 'member'] as const) {
      const refused = await send(who, 'POST', path, body);
      expect([who, refused.status, refused.text]).toEqual([who, 403, '']);
    }
    expect(await lastDelivered(shardKey(p, 0))).toBe('0-0');

    const dry = await send('writer', 'POST', path, { ...body, dryRun: true });
    expect(dry.status, dry.text).toBe(200);
    expect(logs.filter((l) => l.msg === 'offsets reset')).toEqual([]);

    const done = await send('writer', 'POST', path, body);
    expect(done.status, done.text).toBe(200);
    expect(await lastDelivered(shardKey(p, 0))).toBe('5-0');
    expect(logs.filter((l) => l.msg === 'offsets reset').map((l) => [l.level, l.fields])).toEqual([
      [
        'info',
        expect.objectContaining({
          streamPrefix: p,
          consumerGroup: p,
          principal: 'writer',
          requestedBy: 'someone@example.com',
          reason: 'skip the backlog',
          to: 'latest',
          shards: [0],
          moved: [0],
          skippedRecords: 1,
          replayedRecords: 0,
        }),
      ],
    ]);
    expect((await send('admin', 'POST', path, { ...body, to: 'earliest' })).status).toBe(200);
  });
});
