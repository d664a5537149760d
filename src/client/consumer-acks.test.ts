import { describe, expect, it } from 'vitest';
import { AckBuffer } from './consumer-acks.js';
import { OwnershipLostError } from './consumer-errors.js';
import type { ConsumerRedis } from './consumer-redis.js';

/** A ConsumerRedis whose acks fail as told, recording every call. */
function fakeRedis(fail: () => Error | null) {
  const calls: string[][] = [];
  const redis = {
    ack: async (_key: string, ids: readonly string[]) => {
      calls.push([...ids]);
      const err = fail();
      if (err) throw err;
    },
    ackDelete: async (_key: string, ids: readonly string[]) => {
      calls.push(['del', ...ids]);
    },
  } as unknown as ConsumerRedis;
  return { redis, calls };
}

const lostErr = () => new OwnershipLostError('s:0', 'XACK', { epoch: 9, memberId: 'new' });

describe('ack buffer > fenced refusals', () => {
  it('never retries a refused ack and drops every later one without a Redis call', async () => {
    const { redis, calls } = fakeRedis(lostErr);
    const lost: Array<{ ids: string[]; inDoubt: string[] }> = [];
    const written: string[] = [];
    const errors: unknown[] = [];
    const buf = new AckBuffer(
      redis,
      's:0',
      (ids) => written.push(...ids),
      (e) => errors.push(e),
      (_e, ids, inDoubt) => lost.push({ ids, inDoubt }),
    );
    buf.push('1-0', false);
    buf.push('2-0', false);
    await buf.flushed();
    buf.push('3-0', true);
    await buf.flushed();
    expect(calls).toEqual([['1-0', '2-0']]);
    expect(lost).toEqual([
      { ids: ['1-0', '2-0'], inDoubt: [] },
      { ids: ['3-0'], inDoubt: [] },
    ]);
    expect(written).toEqual([]);
    expect(errors).toEqual([]);
    expect(buf.takeForRead()).toBeNull();
  });

  it('marks as in doubt an ack whose ride with a read was abandoned before it was refused', async () => {
    const { redis } = fakeRedis(lostErr);
    const lost: Array<{ ids: string[]; inDoubt: string[] }> = [];
    const buf = new AckBuffer(
      redis,
      's:0',
      () => {},
      () => {},
      (_e, ids, inDoubt) => lost.push({ ids, inDoubt }),
    );
    buf.push('1-0', false);
    const ride = buf.takeForRead()!;
    buf.push('2-0', false);
    ride.requeue();
    await buf.flushed();
    expect(lost).toEqual([{ ids: ['2-0', '1-0'], inDoubt: ['1-0'] }]);
  });

  it('reports a refused ride without sending it again', async () => {
    const { redis, calls } = fakeRedis(() => null);
    const lost: string[][] = [];
    const buf = new AckBuffer(
      redis,
      's:0',
      () => {},
      () => {},
      (_e, ids) => lost.push(ids),
    );
    buf.push('1-0', false);
    buf.takeForRead()!.failed(lostErr());
    buf.push('2-0', false);
    await buf.flushed();
    expect(lost).toEqual([['1-0'], ['2-0']]);
    expect(calls).toEqual([]);
  });
});
