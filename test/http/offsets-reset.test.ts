/**
 * `POST /coord/v1/admin/streams/{p}/groups/{g}/offsets/reset` against real Redis (standalone and
 * Cluster): a dry run (the default) says per shard where the group is, where it would go and what
 * that skips or replays, and writes nothing; a reset moves the group exactly where each target
 * says, on the listed shards only, and keeps Redis's lag right; every refusal writes nothing.
 */
import type { Cluster, Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { CoordinatorError } from '../../src/core/errors.js';
import { offsetsResetResponseSchema } from '../../src/http/offsets-reset-schemas.js';
import { shardKey } from '../../src/store/keys.js';
import { backends, uniquePrefix } from '../support/redis.js';
import { heartbeat, type Stack, stacksPerTest } from '../support/stack.js';

/** Record times of every shard: record k (1-based) is written at `T0 + k * 1000` ms. */
const T0 = 1_700_000_000_000;
/** The id of record `k` on every shard. */
const rec = (k: number) => `${T0 + k * 1000}-0`;
const meta = { requestedBy: 'reset-test', reason: 'replay' };

/** What `XINFO GROUPS` says about group `g` of `key`. */
async function groupInfo(redis: Redis | Cluster, key: string, g: string) {
  const groups = (await redis.xinfo('GROUPS', key)) as unknown[][];
  for (const raw of groups) {
    const e = new Map<unknown, unknown>();
    for (let i = 0; i + 1 < raw.length; i += 2) e.set(raw[i], raw[i + 1]);
    if (e.get('name') === g)
      return { last: e.get('last-delivered-id'), read: e.get('entries-read'), lag: e.get('lag') };
  }
  return null;
}

/** The next record the group would deliver on `key` (null: none). */
async function nextDelivered(redis: Redis | Cluster, key: string, g: string): Promise<string | null> {
  const reply = (await redis.xreadgroup('GROUP', g, 'probe', 'COUNT', 1, 'STREAMS', key, '>')) as Array<
    [string, Array<[string, string[]]>]
  > | null;
  return reply?.[0]?.[1]?.[0]?.[0] ?? null;
}

describe.each(backends)('offsets reset ($name)', (backend) => {
  const stackOf = stacksPerTest(backend);

  /**
   * A stream of 3 shards, 5 records each; on shard 0 the group has had 2 delivered (and
   * acknowledged), on shards 1 and 2 none.
   */
  async function arrange(stack: Stack): Promise<string> {
    const p = uniquePrefix('reset');
    const created = await stack.call('POST', `/coord/v1/streams/${p}`, { initialShardCount: 3, ...meta });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    for (const i of [0, 1, 2])
      for (let k = 1; k <= 5; k++) await stack.redis.xadd(shardKey(p, i), rec(k), 'k', String(k));
    const read = (await stack.redis.xreadgroup(
      'GROUP',
      p,
      'c',
      'COUNT',
      2,
      'STREAMS',
      shardKey(p, 0),
      '>',
    )) as Array<[string, Array<[string, string[]]>]> | null;
    expect(read![0]![1].map(([id]) => id)).toEqual([rec(1), rec(2)]);
    await stack.redis.xack(shardKey(p, 0), p, rec(1), rec(2));
    return p;
  }
  const reset = (stack: Stack, p: string, body: object, g = p) =>
    stack.call('POST', `/coord/v1/admin/streams/${p}/groups/${g}/offsets/reset`, { ...meta, ...body });
  const positions = (stack: Stack, p: string) =>
    Promise.all([0, 1, 2].map((i) => groupInfo(stack.redis, shardKey(p, i), p)));

  it('a dry run (the default) answers before, after and what it skips or replays, and writes nothing', async () => {
    const stack = stackOf();
    const p = await arrange(stack);
    const untouched = await positions(stack, p);
    expect(untouched[0]).toEqual({ last: rec(2), read: 2, lag: 3 });

    const back = await reset(stack, p, { to: 'earliest' });
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    expect(back.body).toMatchObject({
      streamPrefix: p,
      consumerGroup: p,
      to: 'earliest',
      timestamp: null,
      id: null,
      dryRun: true,
      totalSkippedRecords: 0,
      totalReplayedRecords: 2,
      countsExact: true,
    });
    expect(back.body.shards[0]).toEqual({
      shard: { shardIndex: 0 },
      streamKey: shardKey(p, 0),
      lastDeliveredIdBefore: rec(2),
      lastDeliveredIdAfter: '0-0',
      skippedRecords: 0,
      replayedRecords: 2,
      countExact: true,
      lagAfter: 5,
      pendingCount: 0,
    });
    expect(back.body.shards[1]).toMatchObject({ lastDeliveredIdBefore: '0-0', replayedRecords: 0 });
    // The documented answer, field for field (parsing drops fields the document does not name).
    expect(offsetsResetResponseSchema.parse(back.body)).toEqual(back.body);

    const forward = await reset(stack, p, { to: 'latest', dryRun: true });
    expect(forward.body.shards.map((s: { skippedRecords: number }) => s.skippedRecords)).toEqual([3, 5, 5]);
    expect(forward.body.shards.map((s: { lastDeliveredIdAfter: string }) => s.lastDeliveredIdAfter)).toEqual([
      rec(5),
      rec(5),
      rec(5),
    ]);
    expect(forward.body.totalSkippedRecords).toBe(13);

    // Counted in Redis (neither end of the move is an end of the stream).
    const middle = await reset(stack, p, { to: 'id', id: rec(4), shards: [0] });
    expect(middle.body.shards).toEqual([
      expect.objectContaining({ skippedRecords: 2, replayedRecords: 0, countExact: true, lagAfter: 1 }),
    ]);
    expect(await positions(stack, p)).toEqual(untouched);
  });

  it('earliest: every record again, and Redis still knows the lag', async () => {
    const stack = stackOf();
    const p = await arrange(stack);
    const res = await reset(stack, p, { to: 'earliest', dryRun: false });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.dryRun).toBe(false);
    expect(await positions(stack, p)).toEqual([0, 1, 2].map(() => ({ last: '0-0', read: 0, lag: 5 })));
    expect(await nextDelivered(stack.redis, shardKey(p, 0), p)).toBe(rec(1));
  });

  it('latest: nothing written so far is delivered, what is written next is', async () => {
    const stack = stackOf();
    const p = await arrange(stack);
    const res = await reset(stack, p, { to: 'latest', dryRun: false });
    expect(res.body.totalSkippedRecords).toBe(13);
    expect(await positions(stack, p)).toEqual([0, 1, 2].map(() => ({ last: rec(5), read: 5, lag: 0 })));
    expect(await nextDelivered(stack.redis, shardKey(p, 1), p)).toBeNull();
    await stack.redis.xadd(shardKey(p, 1), rec(6), 'k', '6');
    expect(await nextDelivered(stack.redis, shardKey(p, 1), p)).toBe(rec(6));
  });

  it('timestamp: the first record at or after it comes next, whichever way the group moves', async () => {
    const stack = stackOf();
    const p = await arrange(stack);
    // Exactly record 2's time on shard 0 (moving back from record 2), just before record 4's on shard 1.
    const exact = await reset(stack, p, {
      to: 'timestamp',
      timestamp: T0 + 2000,
      shards: [0],
      dryRun: false,
    });
    expect(exact.body.shards[0]).toMatchObject({
      lastDeliveredIdBefore: rec(2),
      lastDeliveredIdAfter: rec(1),
      replayedRecords: 1,
      lagAfter: 4,
    });
    const between = await reset(stack, p, {
      to: 'timestamp',
      timestamp: T0 + 3500,
      shards: [1],
      dryRun: false,
    });
    expect(between.body.shards[0]).toMatchObject({ lastDeliveredIdAfter: rec(3), skippedRecords: 3 });
    const before = await reset(stack, p, { to: 'timestamp', timestamp: T0, shards: [2], dryRun: false });
    expect(before.body.shards[0]).toMatchObject({ lastDeliveredIdAfter: '0-0', skippedRecords: 0 });
    expect(await positions(stack, p)).toEqual([
      { last: rec(1), read: 1, lag: 4 },
      { last: rec(3), read: 3, lag: 2 },
      { last: '0-0', read: 0, lag: 5 },
    ]);
    expect(await nextDelivered(stack.redis, shardKey(p, 0), p)).toBe(rec(2));
    expect(await nextDelivered(stack.redis, shardKey(p, 1), p)).toBe(rec(4));
    // A time after every record: the end, and records written from now on are delivered.
    const future = await reset(stack, p, {
      to: 'timestamp',
      timestamp: T0 + 99_000,
      shards: [2],
      dryRun: false,
    });
    expect(future.body.shards[0]).toMatchObject({
      lastDeliveredIdAfter: rec(5),
      skippedRecords: 5,
      lagAfter: 0,
    });
  });

  it('id: exactly that id, on the listed shards only', async () => {
    const stack = stackOf();
    const p = await arrange(stack);
    const res = await reset(stack, p, { to: 'id', id: rec(3), shards: [2, 0], dryRun: false });
    expect(res.body.shards.map((s: { shard: { shardIndex: number } }) => s.shard.shardIndex)).toEqual([0, 2]);
    expect(res.body.shards.map((s: { skippedRecords: number }) => s.skippedRecords)).toEqual([1, 3]);
    expect(await positions(stack, p)).toEqual([
      { last: rec(3), read: 3, lag: 2 },
      { last: '0-0', read: 0, lag: 5 },
      { last: rec(3), read: 3, lag: 2 },
    ]);
  });

  it('refuses while a member holds a lease, and writes nothing; allowed once it has left or expired', async () => {
    const stack = stackOf();
    const p = await arrange(stack);
    const untouched = await positions(stack, p);
    const joined = await heartbeat(stack, p, p, 'm1', { epoch: 0, mv: 0 });
    expect(joined.body.status).toBe('OK');
    for (const dryRun of [true, false]) {
      const refused = await reset(stack, p, { to: 'earliest', dryRun });
      expect(refused.status).toBe(409);
      expect(refused.body.errorCode).toBe('GROUP_HAS_ACTIVE_MEMBERS');
      expect(refused.body.message).toContain('m1');
    }
    expect(await positions(stack, p)).toEqual(untouched);
    // The lease runs out (the sweep need not have recorded it).
    stack.clock.advance(stack.config.memberLeaseTtlMs + 1);
    expect((await reset(stack, p, { to: 'earliest', dryRun: false })).status).toBe(200);

    const left = await arrange(stack);
    const m2 = await heartbeat(stack, left, left, 'm2', { epoch: 0, mv: 0 });
    expect((await reset(stack, left, { to: 'latest', dryRun: false })).status).toBe(409);
    await heartbeat(stack, left, left, 'm2', { epoch: -1, mv: m2.body.metadataVersion });
    expect((await reset(stack, left, { to: 'latest', dryRun: false })).status).toBe(200);
  });

  it('answers 404 for an unknown stream or group and 400 for a bad body, writing nothing', async () => {
    const stack = stackOf();
    const p = await arrange(stack);
    const untouched = await positions(stack, p);
    const unknownStream = await reset(stack, `${p}-none`, { to: 'earliest', dryRun: false }, p);
    expect([unknownStream.status, unknownStream.body.errorCode]).toEqual([404, 'STREAM_NOT_FOUND']);
    const unknownGroup = await reset(stack, p, { to: 'earliest', dryRun: false }, 'nobody');
    expect([unknownGroup.status, unknownGroup.body.errorCode]).toEqual([404, 'GROUP_NOT_FOUND']);
    for (const [body, field] of [
      [{}, 'to'],
      [{ to: 'yesterday' }, 'to'],
      [{ to: 'timestamp' }, 'timestamp'],
      [{ to: 'earliest', id: rec(1) }, 'id'],
      [{ to: 'id', id: 'abc' }, 'id'],
      [{ to: 'id', id: '99999999999999999999-0' }, 'id'],
      [{ to: 'earliest', shards: [] }, 'shards'],
      [{ to: 'earliest', dryRun: 'no' }, 'dryRun'],
      [{ to: 'earliest', shards: [0, 3] }, 'shards'],
      [{ to: 'id', id: rec(9) }, 'id'],
    ] as const) {
      const res = await reset(stack, p, { ...body, dryRun: 'dryRun' in body ? body.dryRun : false });
      expect([res.status, res.body.errorCode], JSON.stringify(body)).toEqual([400, 'INVALID_REQUEST']);
      expect(res.body.message, JSON.stringify(body)).toContain(field);
    }
    const noRequester = await stack.call('POST', `/coord/v1/admin/streams/${p}/groups/${p}/offsets/reset`, {
      to: 'earliest',
    });
    expect(noRequester.status).toBe(400);
    expect(await positions(stack, p)).toEqual(untouched);
  });

  it('a Redis failure part-way names the shards already moved; the same request again finishes', async () => {
    const stack = stackOf();
    const p = await arrange(stack);
    const positionsOps = stack.store.positions;
    const set = positionsOps.set;
    const written: string[] = [];
    positionsOps.set = async (key, g, id, read) => {
      written.push(key);
      if (key === shardKey(p, 1) && written.length === 2)
        throw new CoordinatorError('REDIS_UNAVAILABLE', 'Redis is unavailable');
      return set(key, g, id, read);
    };
    try {
      const failed = await reset(stack, p, { to: 'latest', dryRun: false });
      expect([failed.status, failed.body.errorCode]).toEqual([503, 'REDIS_UNAVAILABLE']);
      expect(failed.body.message).toContain(
        'shard(s) 0 moved already, shard 1 not: repeat the request to finish',
      );
      expect((await positions(stack, p)).map((x) => x?.last)).toEqual([rec(5), '0-0', '0-0']);
      const again = await reset(stack, p, { to: 'latest', dryRun: false });
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      expect(await positions(stack, p)).toEqual([0, 1, 2].map(() => ({ last: rec(5), read: 5, lag: 0 })));
      // Shard 0 was where it was asked to be: not written again.
      expect(written.slice(2)).toEqual([shardKey(p, 1), shardKey(p, 2)]);
    } finally {
      positionsOps.set = set;
    }
  });

  it('refuses a shard whose Redis group is gone, before moving any other', async () => {
    const stack = stackOf();
    const p = await arrange(stack);
    await stack.redis.xgroup('DESTROY', shardKey(p, 2), p);
    const res = await reset(stack, p, { to: 'earliest', dryRun: false });
    expect([res.status, res.body.errorCode]).toEqual([404, 'GROUP_NOT_FOUND']);
    expect(res.body.message).toContain(shardKey(p, 2));
    expect((await groupInfo(stack.redis, shardKey(p, 0), p))?.last).toBe(rec(2));
  });
});
