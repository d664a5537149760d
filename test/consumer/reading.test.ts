/**
 * The consumer against a real coordinator and real Redis: members share the shards, every
 * record is handled and acked, progress and capacity reach the coordinator, ack-delete falls
 * back to XACK + XDEL on Redis < 8.2, and close() leaves the group with epoch -1.
 */
import { describe, expect, it } from 'vitest';
import type { OwnershipRecord } from '../../src/client/consumer-events.js';
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

describe('consumer > reading', () => {
  it('splits the shards between its members and handles and acks every record', async () => {
    const p = await newStream(stack, 4);
    const ctl = controlledFetch(stack);
    const handled = new Map<string, string>();
    const c = testConsumer({
      streamPrefix: p,
      redis,
      fetch: ctl.fetch,
      concurrency: 2,
      handler: (r) => {
        // Ids are unique per shard stream only.
        handled.set(`${r.shard}/${r.id}`, r.memberId);
        return 'ack';
      },
    });
    c.start();
    await eventually(() => expect(c.status().map((m) => m.reading.length)).toEqual([2, 2]));
    const ids: string[] = [];
    for (let s = 0; s < 4; s++) ids.push(...(await publish(redis, p, s, 25)).map((id) => `${s}/${id}`));
    await eventually(() => expect(handled.size).toBe(100));
    expect([...handled.keys()].sort()).toEqual([...ids].sort());
    expect(new Set(handled.values())).toEqual(new Set(c.memberIds));
    await eventually(async () => {
      for (let s = 0; s < 4; s++) expect(await pendingCount(redis, p, s)).toBe(0);
    });
    await c.close();
  });

  it('shares its in-flight slots fairly: a shard with a backlog does not starve the others', async () => {
    const p = await newStream(stack, 4);
    await publish(redis, p, 0, 200);
    for (let s = 1; s < 4; s++) await publish(redis, p, s, 5);
    const order: number[] = [];
    const ctl = controlledFetch(stack);
    const c = testConsumer({
      streamPrefix: p,
      redis,
      fetch: ctl.fetch,
      maxInFlightPerMember: 2,
      handler: async (r) => {
        order.push(r.shard);
        await new Promise((resolve) => setImmediate(resolve));
      },
    });
    c.start();
    await eventually(() => expect(order).toHaveLength(215));
    const lastOfSmallShards = Math.max(...[1, 2, 3].map((s) => order.lastIndexOf(s)));
    expect(lastOfSmallShards).toBeLessThan(40);
    await c.close();
  });

  it('reports progress and capacity in its heartbeats', async () => {
    const p = await newStream(stack, 1);
    const ctl = controlledFetch(stack);
    const c = testConsumer({
      streamPrefix: p,
      redis,
      fetch: ctl.fetch,
      maxInFlightPerMember: 7,
      handler: () => 'ack',
    });
    c.start();
    const ids = await publish(redis, p, 0, 5);
    await eventually(() => {
      const last = ctl.heartbeats.at(-1)!.body;
      expect(last.runtimeConsumerCapacity).toEqual({ runtimeMaxConcurrency: 7, availableConcurrency: 7 });
      expect(last.ownedShards).toEqual([{ shardIndex: 0 }]);
      expect(last.shardProgress).toEqual([
        expect.objectContaining({
          shard: { shardIndex: 0 },
          streamKey: `${p}:0`,
          lastDeliveredId: ids[4],
          lastAckedId: ids[4],
          pendingCount: 0,
        }),
      ]);
    });
    await c.close();
  });

  it('acks and deletes a record answered ack-delete (XACK + XDEL where XACKDEL is missing)', async () => {
    const p = await newStream(stack, 1);
    const ctl = controlledFetch(stack);
    const c = testConsumer({
      streamPrefix: p,
      redis,
      fetch: ctl.fetch,
      handler: (r) => (r.fields.tag?.endsWith('-0') ? 'ack-delete' : 'ack'),
    });
    c.start();
    const ids = await publish(redis, p, 0, 3);
    await eventually(async () => {
      expect(await pendingCount(redis, p, 0)).toBe(0);
      const left = (await redis.xrange(`${p}:0`, '-', '+')).map(([id]) => id);
      expect(left).toEqual(ids.slice(1));
    });
    await c.close();
  });

  it('leaves with epoch -1 after finishing in-flight work on close()', async () => {
    const p = await newStream(stack, 2);
    const ctl = controlledFetch(stack);
    const release = deferred();
    const started = deferred();
    let finished = false;
    const c = testConsumer({
      streamPrefix: p,
      redis,
      fetch: ctl.fetch,
      handler: async () => {
        started.resolve();
        await release.promise;
        finished = true;
        return 'ack' as const;
      },
    });
    const ownership = collect(c, 'ownership');
    c.start();
    await publish(redis, p, 1, 1);
    await started.promise;
    const closing = c.close();
    setTimeout(() => release.resolve(), 50);
    await closing;
    expect(finished).toBe(true);
    expect(await pendingCount(redis, p, 1)).toBe(0);
    const last = ctl.heartbeats.at(-1)!;
    expect(last.body.memberEpoch).toBe(-1);
    expect(last.body.ownedShards).toEqual([]);
    expect(
      last.body.revokingShards.every(
        (r: { state: string; inFlight: number }) => r.state === 'REVOKED' && r.inFlight === 0,
      ),
    ).toBe(true);
    expect(last.answer.status).toBe('OK');
    const members = (await stack.call('GET', `/coord/v1/monitoring/streams/${p}/groups/${p}/members`)).body
      .members;
    expect(members.map((m: { state: string }) => m.state)).toEqual(['LEAVING']);
    const closedIntervals = ownership.filter((o: OwnershipRecord) => o.end !== null);
    expect(closedIntervals.map((o) => o.shard).sort()).toEqual([0, 1]);
  });
});
