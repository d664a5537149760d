/**
 * The member protocol against a real coordinator: revoke reporting (DRAINING with in-flight,
 * then REVOKED once), a lost answer retried with the same epoch, a fence answered by dropping
 * everything and rejoining with epoch 0, fail-closed when the local lease lapses while the
 * coordinator stalls, and surviving 5xx answers and timeouts.
 */
import { describe, expect, it } from 'vitest';
import { HeartbeatRejectedError } from '../../src/client/consumer-errors.js';
import { CoordinatorHttpError, CoordinatorUnreachableError } from '../../src/client/errors.js';
import { uniquePrefix } from '../support/redis.js';
import { heartbeat } from '../support/stack.js';
import {
  collect,
  controlledFetch,
  deferred,
  eventually,
  newStream,
  pendingCount,
  publish,
  standaloneSuite,
  testConsumer,
} from './support.js';

const { stack, redis } = standaloneSuite();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Revoke = { shard: { shardIndex: number }; state: string; inFlight: number };

describe('consumer > revoke', () => {
  it('reports a moved shard DRAINING with its in-flight work, then REVOKED with inFlight 0 once', async () => {
    const p = await newStream(stack, 2);
    const ctl = controlledFetch(stack);
    const release = deferred();
    let started = 0;
    const a = testConsumer({
      streamPrefix: p,
      redis,
      fetch: ctl.fetch,
      handler: async () => {
        started++;
        await release.promise;
        return 'ack' as const;
      },
    });
    const aRevoked = collect(a, 'revoked');
    const aOwnership = collect(a, 'ownership');
    a.start();
    await eventually(() => expect(a.status()[0]!.reading).toEqual([0, 1]));
    await publish(redis, p, 0, 1);
    await publish(redis, p, 1, 1);
    await eventually(() => expect(started).toBe(2));

    const b = testConsumer({ streamPrefix: p, redis, fetch: ctl.fetch, handler: () => 'ack' });
    const bAssigned = collect(b, 'assigned');
    const bOwnership = collect(b, 'ownership');
    b.start();
    const aId = a.memberIds[0]!;
    const draining = () =>
      ctl.heartbeats.filter(
        (h) => h.memberId === aId && h.body.revokingShards.some((r: Revoke) => r.state === 'DRAINING'),
      );
    await eventually(() => expect(draining().length).toBeGreaterThan(0));
    const moved = (draining()[0]!.body.revokingShards as Revoke[])[0]!;
    expect(moved.inFlight).toBe(1);
    expect(a.status()[0]!.draining).toEqual([moved.shard.shardIndex]);
    expect(bAssigned).toEqual([]); // still blocked by A's in-flight record

    release.resolve();
    await eventually(() => expect(bAssigned.map((e) => e.shard)).toEqual([moved.shard.shardIndex]));
    const reports = ctl.heartbeats
      .filter((h) => h.memberId === aId)
      .flatMap((h) => (h.body.revokingShards as Revoke[]).map((r) => ({ ...r, status: h.answer.status })));
    const revokedReports = reports.filter((r) => r.state === 'REVOKED');
    expect(revokedReports).toEqual([
      { shard: moved.shard, state: 'REVOKED', inFlight: 0, ackedAt: expect.any(String), status: 'OK' },
    ]);
    // Nothing about the shard after its one REVOKED report.
    expect(reports.at(-1)).toEqual(revokedReports[0]);
    expect(aRevoked).toEqual([
      expect.objectContaining({ shard: moved.shard.shardIndex, reason: 'rebalance' }),
    ]);
    // The two members' intervals on the moved shard do not overlap.
    const aEnd = aOwnership.find((o) => o.shard === moved.shard.shardIndex && o.end !== null)!.end!;
    const bStart = bOwnership.find((o) => o.shard === moved.shard.shardIndex)!.start;
    expect(aEnd).toBeLessThanOrEqual(bStart);
    await Promise.all([a.close(), b.close()]);
  });
});

describe('consumer > epochs', () => {
  it('retries with the same epoch after a lost answer, and the coordinator accepts it', async () => {
    const p = await newStream(stack, 2);
    const ctl = controlledFetch(stack);
    const a = testConsumer({ streamPrefix: p, redis, fetch: ctl.fetch, handler: () => 'ack' });
    a.start();
    await eventually(() => expect(a.status()[0]!.reading).toEqual([0, 1]));
    const aId = a.memberIds[0]!;
    let mark = -1;
    ctl.loseAnswer = (h) => {
      const lose =
        mark < 0 &&
        h.memberId === aId &&
        h.body.memberEpoch > 0 &&
        h.answer.memberEpoch !== h.body.memberEpoch;
      if (lose) mark = ctl.heartbeats.length;
      return lose;
    };
    const b = testConsumer({ streamPrefix: p, redis, fetch: ctl.fetch, handler: () => 'ack' });
    b.start();
    await eventually(() => expect(ctl.lost).toHaveLength(1));
    await eventually(() => expect(b.status()[0]!.reading).toHaveLength(1));
    const retried = ctl.heartbeats.slice(mark).find((h) => h.memberId === aId)!;
    expect(retried.body.memberEpoch).toBe(ctl.lost[0]!.body.memberEpoch);
    expect(retried.answer.status).toBe('OK');
    expect(ctl.heartbeats.filter((h) => h.memberId === aId).map((h) => h.answer.status)).not.toContain(
      'FENCED_MEMBER_EPOCH',
    );
    await Promise.all([a.close(), b.close()]);
  });

  it('reports a join refused for an unknown group and keeps asking at the heartbeat interval', async () => {
    const ctl = controlledFetch(stack);
    const c = testConsumer({
      streamPrefix: uniquePrefix('missing'),
      redis,
      fetch: ctl.fetch,
      handler: () => 'ack',
    });
    const errors = collect(c, 'error');
    c.start();
    await eventually(() => expect(errors.length).toBeGreaterThanOrEqual(2));
    expect(errors[0]!.error).toBeInstanceOf(HeartbeatRejectedError);
    expect((errors[0]!.error as HeartbeatRejectedError).status).toBe('UNKNOWN_MEMBER_ID');
    // Every join attempt was reported: none is retried silently in a tight loop.
    expect(ctl.heartbeats.length).toBeLessThanOrEqual(errors.length + 1);
    expect(ctl.heartbeats.every((h) => h.body.memberEpoch === 0)).toBe(true);
    await c.close();
  });

  it('drops every shard at once when fenced and rejoins with epoch 0', async () => {
    const p = await newStream(stack, 2);
    const ctl = controlledFetch(stack);
    const handled: string[] = [];
    const c = testConsumer({
      streamPrefix: p,
      redis,
      fetch: ctl.fetch,
      handler: (r) => {
        handled.push(r.id);
      },
    });
    const revoked = collect(c, 'revoked');
    c.start();
    await eventually(() => expect(c.status()[0]!.reading).toEqual([0, 1]));
    const id = c.memberIds[0]!;
    const epoch = ctl.heartbeats.filter((h) => h.memberId === id).at(-1)!.answer.memberEpoch;
    // Someone using the member's id claims a shard outside its authority: the coordinator fences it.
    const res = await heartbeat(stack, p, p, id, { epoch, mv: 0, owned: [7] });
    expect(res.body.status).toBe('FENCED_MEMBER_EPOCH');

    await eventually(() => expect(revoked.map((r) => r.reason)).toEqual(['fenced', 'fenced']));
    await eventually(() => expect(c.status()[0]!.reading).toEqual([0, 1]));
    const mine = ctl.heartbeats.filter((h) => h.memberId === id);
    const fenced = mine.findIndex((h) => h.answer.status === 'FENCED_MEMBER_EPOCH');
    expect(fenced).toBeGreaterThan(0);
    const rejoin = mine[fenced + 1]!;
    expect(rejoin.body).toMatchObject({
      memberEpoch: 0,
      metadataVersion: 0,
      ownedShards: [],
      revokingShards: [],
    });
    expect(rejoin.answer.status).toBe('OK');
    const [rid] = await publish(redis, p, 1, 1);
    await eventually(() => expect(handled).toContain(rid));
    await c.close();
  });
});

describe('consumer > local lease', () => {
  it('stops reading every shard when its lease lapses while the coordinator stalls, and resumes after', async () => {
    const p = await newStream(stack, 2);
    const ctl = controlledFetch(stack);
    const handled: string[] = [];
    const c = testConsumer({
      streamPrefix: p,
      redis,
      fetch: ctl.fetch,
      requestTimeoutMs: 300,
      handler: (r) => {
        handled.push(r.id);
      },
    });
    const leaseLost = collect(c, 'lease-lost');
    const errors = collect(c, 'error');
    const ownership = collect(c, 'ownership');
    c.start();
    await eventually(() => expect(c.status()[0]!.reading).toEqual([0, 1]));

    ctl.mode = 'hang';
    await eventually(() => expect(leaseLost).toHaveLength(1));
    expect(leaseLost[0]!.shards).toEqual([0, 1]);
    expect(c.status()[0]).toMatchObject({ reading: [], leaseValid: false });
    expect(
      ownership
        .filter((o) => o.end !== null)
        .map((o) => o.shard)
        .sort(),
    ).toEqual([0, 1]);
    const ids = [...(await publish(redis, p, 0, 2)), ...(await publish(redis, p, 1, 2))];
    await sleep(500);
    expect(handled).toEqual([]); // fail closed: nothing read without a lease
    expect(
      errors.some((e) => e.context === 'heartbeat' && e.error instanceof CoordinatorUnreachableError),
    ).toBe(true);

    ctl.mode = 'pass';
    await eventually(() => expect([...handled].sort()).toEqual([...ids].sort()));
    await eventually(async () =>
      expect((await pendingCount(redis, p, 0)) + (await pendingCount(redis, p, 1))).toBe(0),
    );
    await c.close();
  });

  it('keeps heartbeating through 503 answers and timeouts and never gives up', async () => {
    const p = await newStream(stack, 1);
    const ctl = controlledFetch(stack);
    const handled: string[] = [];
    const c = testConsumer({
      streamPrefix: p,
      redis,
      fetch: ctl.fetch,
      requestTimeoutMs: 200,
      handler: (r) => {
        handled.push(r.id);
      },
    });
    const errors = collect(c, 'error');
    ctl.mode = '503';
    c.start();
    await eventually(() =>
      expect(errors.filter((e) => e.error instanceof CoordinatorHttpError).length).toBeGreaterThan(3),
    );
    ctl.mode = 'hang';
    await eventually(() =>
      expect(errors.filter((e) => e.error instanceof CoordinatorUnreachableError).length).toBeGreaterThan(2),
    );
    const [id] = await publish(redis, p, 0, 1);
    ctl.mode = 'pass';
    await eventually(() => expect(handled).toEqual([id]));
    expect(
      (errors.find((e) => e.error instanceof CoordinatorHttpError)!.error as CoordinatorHttpError).status,
    ).toBe(503);
    await c.close();
  });
});
