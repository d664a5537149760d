/**
 * Pending entries on real Redis: reclaim on gaining a shard (own PEL re-read and XAUTOCLAIM of
 * earlier owners' entries), retries with backoff, and the dead-letter stream past
 * `maxDeliveries`.
 */
import { describe, expect, it } from 'vitest';
import { uniquePrefix } from '../support/redis.js';
import {
  collect,
  controlledFetch,
  eventually,
  newStream,
  pendingCount,
  publish,
  standaloneSuite,
  testConsumer,
} from './support.js';

const { stack, redis } = standaloneSuite();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Reads `n` new entries of shard 0 as consumer `name` without acking them. */
async function leavePending(p: string, name: string, n: number): Promise<void> {
  await redis.xreadgroup('GROUP', p, name, 'COUNT', n, 'STREAMS', `${p}:0`, '>');
}

describe('consumer > reclaim on gaining a shard', () => {
  it("handles its own earlier pending entries and earlier owners' idle ones before new ones", async () => {
    const p = await newStream(stack, 1);
    const base = uniquePrefix('member');
    const ids = await publish(redis, p, 0, 5);
    await leavePending(p, 'previous-owner', 3);
    await leavePending(p, `${base}-m0`, 2);
    await sleep(300); // idle past claimMinIdleMs (200)
    const fresh = await publish(redis, p, 0, 2, 'new');
    const seen: Array<{ id: string; deliveryCount: number }> = [];
    const ctl = controlledFetch(stack);
    const c = testConsumer({
      streamPrefix: p,
      redis,
      fetch: ctl.fetch,
      memberBase: base,
      maxInFlightPerMember: 1,
      handler: (r) => {
        seen.push({ id: r.id, deliveryCount: r.deliveryCount });
        return 'ack';
      },
    });
    c.start();
    await eventually(() => expect(seen).toHaveLength(7));
    // Own entries first (re-read of the member's PEL), then the claimed ones, then new ones.
    expect(seen.map((s) => s.id)).toEqual([ids[3], ids[4], ids[0], ids[1], ids[2], ...fresh]);
    expect(seen.map((s) => s.deliveryCount)).toEqual([2, 2, 2, 2, 2, 1, 1]);
    await eventually(async () => expect(await pendingCount(redis, p, 0)).toBe(0));
    await c.close();
  });

  it('claims entries that become idle only after it started reading', async () => {
    const p = await newStream(stack, 1);
    await publish(redis, p, 0, 2);
    await leavePending(p, 'crashed-owner', 2); // not idle yet when the member starts
    const seen: string[] = [];
    const ctl = controlledFetch(stack);
    const c = testConsumer({
      streamPrefix: p,
      redis,
      fetch: ctl.fetch,
      claimMinIdleMs: 600,
      handler: (r) => {
        seen.push(r.id);
      },
    });
    c.start();
    await eventually(() => expect(seen).toHaveLength(2));
    await eventually(async () => expect(await pendingCount(redis, p, 0)).toBe(0));
    await c.close();
  });
});

describe('consumer > retries and dead letters', () => {
  it('re-delivers a failed record after its backoff until the handler succeeds', async () => {
    const p = await newStream(stack, 1);
    const [id] = await publish(redis, p, 0, 1);
    const deliveries: number[] = [];
    const ctl = controlledFetch(stack);
    const c = testConsumer({
      streamPrefix: p,
      redis,
      fetch: ctl.fetch,
      handler: (r) => {
        deliveries.push(r.deliveryCount);
        if (r.deliveryCount === 1) throw new Error('transient');
        if (r.deliveryCount === 2) return 'retry';
        return 'ack';
      },
    });
    const errors = collect(c, 'error');
    c.start();
    await eventually(() => expect(deliveries).toEqual([1, 2, 3]));
    await eventually(async () => expect(await pendingCount(redis, p, 0)).toBe(0));
    const handlerErrors = errors.filter((e) => e.context === 'handler');
    expect(handlerErrors.map((e) => (e.error as { entryId?: string }).entryId)).toEqual([id, id]);
    expect(await redis.exists(`${p}:dlq`)).toBe(0);
    await c.close();
  });

  it('dead-letters a record after maxDeliveries failures with its fields, error and count, then acks it', async () => {
    const p = await newStream(stack, 1);
    const [poison] = await publish(redis, p, 0, 1, 'poison');
    const [good] = await publish(redis, p, 0, 1, 'good');
    let calls = 0;
    const ctl = controlledFetch(stack);
    const c = testConsumer({
      streamPrefix: p,
      redis,
      fetch: ctl.fetch,
      maxDeliveries: 3,
      handler: (r) => {
        if (r.fields.tag?.startsWith('poison')) {
          calls++;
          throw new Error('boom');
        }
        return 'ack';
      },
    });
    const dead = collect(c, 'dead-letter');
    c.start();
    await eventually(() => expect(dead).toHaveLength(1));
    expect(calls).toBe(3);
    expect(dead[0]).toMatchObject({ shard: 0, entryId: poison, deliveryCount: 3, error: 'Error: boom' });
    const dlq = await redis.xrange(`${p}:dlq`, '-', '+');
    expect(dlq).toHaveLength(1);
    expect(dlq[0]![0]).toBe(dead[0]!.deadLetterId);
    const fields = Object.fromEntries(chunk(dlq[0]![1]));
    expect(fields).toMatchObject({
      'dlq.stream': `${p}:0`,
      'dlq.id': poison,
      'dlq.group': p,
      'dlq.member': c.memberIds[0],
      'dlq.deliveryCount': '3',
      'dlq.error': 'Error: boom',
      tag: 'poison-0-0',
    });
    await eventually(async () => expect(await pendingCount(redis, p, 0)).toBe(0));
    expect(good).toBeDefined();
    await c.close();
  });

  it('dead-letters without calling the handler a record found pending past maxDeliveries', async () => {
    const p = await newStream(stack, 1);
    const [id] = await publish(redis, p, 0, 1);
    await leavePending(p, 'crashing-owner', 1);
    // The earlier owner kept crashing on it: two more deliveries (3 in all).
    await redis.xclaim(`${p}:0`, p, 'crashing-owner', 0, id!);
    await redis.xclaim(`${p}:0`, p, 'crashing-owner', 0, id!);
    await sleep(250);
    let calls = 0;
    const ctl = controlledFetch(stack);
    const c = testConsumer({
      streamPrefix: p,
      redis,
      fetch: ctl.fetch,
      maxDeliveries: 3,
      handler: () => {
        calls++;
      },
    });
    const dead = collect(c, 'dead-letter');
    c.start();
    await eventually(() => expect(dead).toHaveLength(1));
    expect(calls).toBe(0);
    expect(dead[0]).toMatchObject({ entryId: id, deliveryCount: 4 });
    expect(dead[0]!.error).toMatch(/no handler result/);
    await eventually(async () => expect(await pendingCount(redis, p, 0)).toBe(0));
    await c.close();
  });
});

function chunk(flat: string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let i = 0; i < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!]);
  return out;
}
