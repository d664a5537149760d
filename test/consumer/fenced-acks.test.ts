/**
 * Fenced acks on real Redis: a member that lost its shard while records were still
 * in its handler (heartbeats stalled past its lease, a newer owner took the shard over and
 * claimed its token) cannot ack them when its handler finally returns — the acks are refused,
 * reported, and the entries stay pending for the new owner, whose own acks apply. With
 * `fencedAcks: false` the same late ack is a plain XACK and removes the new owner's entries.
 */
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { Consumer } from '../../src/client/consumer.js';
import type { ConsumedRecord } from '../../src/client/consumer-options.js';
import { ownerKey } from '../../src/store/scripts/shard-owner.js';
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

/** A consumer whose handler holds every record until `gate` opens, then acks it. */
function holdingConsumer(p: string, client: Redis, fencedAcks: boolean) {
  const ctl = controlledFetch(stack);
  const gate = deferred();
  const seen: ConsumedRecord[] = [];
  const c = testConsumer({
    streamPrefix: p,
    redis: client,
    fetch: ctl.fetch,
    fencedAcks,
    shutdownTimeoutMs: 500,
    handler: async (r) => {
      seen.push(r);
      await gate.promise;
      return 'ack' as const;
    },
  });
  return { c, ctl, gate, seen };
}

/** Pending entries of shard 0 by consumer name. */
async function pendingBy(p: string): Promise<Record<string, number>> {
  const rows = (await redis.xpending(`${p}:0`, p, '-', '+', 100)) as Array<[string, string]>;
  const out: Record<string, number> = {};
  for (const [, consumer] of rows) out[consumer] = (out[consumer] ?? 0) + 1;
  return out;
}

async function closeAll(...cs: Consumer[]): Promise<void> {
  await Promise.all(cs.map((c) => c.close()));
}

/**
 * A takes 3 records and holds them; its heartbeats stall until its lease is gone on both sides;
 * B gets the shard and reclaims the 3 entries, holding them too. Then A's handler returns.
 */
async function zombieTakeover(fencedAcks: boolean) {
  const p = await newStream(stack, 1, 'fence');
  const a = holdingConsumer(p, redis, fencedAcks);
  const b = holdingConsumer(p, redis, fencedAcks);
  const refused = collect(a.c, 'write-refused');
  const lost = collect(a.c, 'lease-lost');
  const ids = await publish(redis, p, 0, 3);
  a.c.start();
  await eventually(() => expect(a.seen.map((r) => r.id)).toEqual(ids));
  const aMember = a.seen[0]!.memberId;
  a.ctl.mode = 'hang';
  b.c.start();
  await eventually(() => expect(b.seen.map((r) => r.id).sort()).toEqual(ids));
  const bMember = b.seen[0]!.memberId;
  expect(await pendingBy(p)).toEqual({ [bMember]: 3 });
  // The zombie resumes: its handlers return and it acks its in-flight records.
  a.gate.resolve();
  return { p, a, b, ids, aMember, bMember, refused, lost };
}

describe('consumer > fenced acks', () => {
  it("refuses a resumed zombie's acks: the entries stay pending for the new owner, whose acks apply", async () => {
    const z = await zombieTakeover(true);
    expect(await redis.hget(ownerKey(`${z.p}:0`), z.p)).toMatch(new RegExp(`^\\d+:\\d+:${z.bMember}$`));
    await eventually(() => expect(z.refused.flatMap((e) => e.ids).sort()).toEqual(z.ids));
    expect(z.refused.every((e) => e.heldBy?.memberId === z.bMember && e.memberId === z.aMember)).toBe(true);
    expect(z.lost.map((e) => e.cause)).toContain('lease-expired');
    expect(await pendingBy(z.p)).toEqual({ [z.bMember]: 3 });
    z.b.gate.resolve();
    await eventually(async () => expect(await pendingCount(redis, z.p, 0)).toBe(0));
    z.a.ctl.mode = 'pass';
    await closeAll(z.a.c, z.b.c);
  });

  it("applies the zombie's late acks as plain XACKs with fencedAcks: false (the hole fencing closes)", async () => {
    const z = await zombieTakeover(false);
    // B holds its 3 entries unacked, yet the zombie's XACK empties the PEL under it.
    await eventually(async () => expect(await pendingCount(redis, z.p, 0)).toBe(0));
    expect(z.refused).toEqual([]);
    expect(await redis.exists(ownerKey(`${z.p}:0`))).toBe(0);
    z.b.gate.resolve();
    z.a.ctl.mode = 'pass';
    await closeAll(z.a.c, z.b.c);
  });

  it('stops a shard whose token a newer claim took (paused before its lease timer ran), then reads it again once re-granted', async () => {
    const p = await newStream(stack, 1, 'fence');
    const ctl = controlledFetch(stack);
    const gate = deferred();
    const seen: ConsumedRecord[] = [];
    const c = testConsumer({
      streamPrefix: p,
      redis,
      fetch: ctl.fetch,
      handler: async (r) => {
        seen.push(r);
        if (r.deliveryCount === 1) await gate.promise;
        return 'ack' as const;
      },
    });
    const refused = collect(c, 'write-refused');
    const lost = collect(c, 'lease-lost');
    const ids = await publish(redis, p, 0, 2);
    c.start();
    await eventually(() => expect(seen.map((r) => r.id)).toEqual(ids));
    const key = ownerKey(`${p}:0`);
    const token = (await redis.hget(key, p)) ?? '';
    const [epoch, until] = token.split(':');
    // What a newer owner's claim leaves while this member's timers have not run yet.
    await redis.hset(key, p, `${epoch}:${until}:intruder`);
    gate.resolve();
    await eventually(() => expect(lost.map((e) => [e.cause, e.shards])).toEqual([['ownership-token', [0]]]));
    expect(refused.flatMap((e) => e.ids).sort()).toEqual(ids);
    expect(refused[0]!.heldBy).toEqual({ epoch: Number(epoch), memberId: 'intruder' });
    // The coordinator still grants it the shard: it claims again and handles its own pending entries.
    await eventually(async () => expect(await pendingCount(redis, p, 0)).toBe(0));
    expect(seen.filter((r) => r.deliveryCount > 1).map((r) => r.id)).toEqual(ids);
    expect(await redis.hget(key, p)).toMatch(new RegExp(`:${seen[0]!.memberId}$`));
    await c.close();
  });
});
