/**
 * `GET …/dead-letters` against real Redis: a record the consumer SDK dead-lettered past
 * `maxDeliveries` is answered with where it came from, who gave up on it, its delivery count,
 * error and fields; other groups' entries are left out with a bounded scan that says when it
 * stopped early; a missing dead-letter stream is an empty page; only keys under the stream's
 * prefix are read; and nothing is written. Standalone Redis, and the read on a Cluster.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  collect,
  controlledFetch,
  eventually,
  newStream,
  publish,
  standaloneSuite,
  testConsumer,
} from '../consumer/support.js';
import { backends } from '../support/redis.js';
import { type Arranged, arrangeGroup } from './arrange.js';

const { stack, redis } = standaloneSuite();

const deadLetters = (p: string, g: string, query = '') =>
  stack.call('GET', `/coord/v1/monitoring/streams/${p}/groups/${g}/dead-letters${query ? `?${query}` : ''}`);

/** A dead letter written as the SDK writes it (`dlq.*` fields, then the record's own). */
async function addDeadLetter(p: string, group: string, n: number, extra: string[] = []): Promise<string> {
  return (await redis.xadd(
    `${p}:dlq`,
    '*',
    ...['dlq.stream', `${p}:1`, 'dlq.id', `${1000 + n}-0`, 'dlq.group', group],
    ...['dlq.member', `${group}-m0`, 'dlq.deliveryCount', '5', 'dlq.error', `Error: ${n}`],
    ...['tag', `t-${n}`, ...extra],
  )) as string;
}

describe('monitoring > dead letters', () => {
  it('answers a record the consumer SDK dead-lettered, with its origin, member, count, error and fields', async () => {
    const p = await newStream(stack, 2, 'dlq');
    const [poison] = await publish(redis, p, 0, 1, 'poison');
    const ctl = controlledFetch(stack);
    const c = testConsumer({
      streamPrefix: p,
      redis,
      fetch: ctl.fetch,
      maxDeliveries: 2,
      handler: () => {
        throw new Error('boom');
      },
    });
    const dead = collect(c, 'dead-letter');
    // Every failed delivery is reported; the test reads the dead letter, not these.
    const failures = collect(c, 'error');
    c.start();
    await eventually(() => expect(dead).toHaveLength(1));
    await c.close();
    expect(failures.map((f) => f.context)).toContain('handler');
    const res = await deadLetters(p, p);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      streamPrefix: p,
      consumerGroup: p,
      deadLetterKey: `${p}:dlq`,
      count: 50,
      scanned: 1,
      scanLimit: 500,
      stoppedEarly: false,
      nextCursor: null,
    });
    const [entry] = res.body.entries;
    expect(entry).toEqual({
      deadLetterId: dead[0]!.deadLetterId,
      deadLetterTimeMs: Number(dead[0]!.deadLetterId.split('-')[0]),
      deadLetterTime: new Date(Number(dead[0]!.deadLetterId.split('-')[0])).toISOString(),
      originalStreamKey: `${p}:0`,
      originalShardIndex: 0,
      originalId: poison,
      member: c.memberIds[0],
      deliveryCount: 2,
      error: 'Error: boom',
      fields: { tag: 'poison-0-0' },
      truncated: false,
    });
  });

  it('answers an empty page, and creates nothing, when the dead-letter stream does not exist', async () => {
    const p = await newStream(stack, 1, 'dlq');
    const res = await deadLetters(p, p);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ entries: [], scanned: 0, stoppedEarly: false, nextCursor: null });
    expect(await redis.exists(`${p}:dlq`)).toBe(0);
  });

  it("leaves other groups' entries out, newest first, and bounds the scan", async () => {
    const p = await newStream(stack, 2, 'dlq');
    const mine = [await addDeadLetter(p, p, 0), await addDeadLetter(p, p, 1)];
    // 15 entries of another group after them: a page of 1 scans at most 10.
    for (let i = 0; i < 15; i++) await addDeadLetter(p, 'audit', 100 + i);
    const length = await redis.xlen(`${p}:dlq`);

    const all = await deadLetters(p, p);
    expect(all.body.entries.map((e: { deadLetterId: string }) => e.deadLetterId)).toEqual([mine[1], mine[0]]);
    expect(all.body).toMatchObject({ scanned: 17, stoppedEarly: false, nextCursor: null });
    expect(all.body.entries[0]).toMatchObject({
      originalStreamKey: `${p}:1`,
      originalShardIndex: 1,
      originalId: '1001-0',
      member: `${p}-m0`,
      deliveryCount: 5,
      error: 'Error: 1',
      fields: { tag: 't-1' },
    });

    const first = await deadLetters(p, p, 'count=1');
    expect(first.body).toMatchObject({ entries: [], scanned: 10, scanLimit: 10, stoppedEarly: true });
    expect(first.body.nextCursor).not.toBeNull();
    const second = await deadLetters(p, p, `count=1&cursor=${first.body.nextCursor}`);
    expect(second.body).toMatchObject({ scanned: 6, stoppedEarly: false, nextCursor: mine[1] });
    expect(second.body.entries.map((e: { deadLetterId: string }) => e.deadLetterId)).toEqual([mine[1]]);
    const third = await deadLetters(p, p, `count=1&cursor=${second.body.nextCursor}`);
    expect(third.body.entries.map((e: { deadLetterId: string }) => e.deadLetterId)).toEqual([mine[0]]);
    const end = await deadLetters(p, p, `count=1&cursor=${third.body.nextCursor}`);
    expect(end.body).toMatchObject({ entries: [], scanned: 0, nextCursor: null });

    const audit = await deadLetters(p, 'audit', 'count=500');
    expect(audit.status).toBe(404); // the group is not known to the coordinator
    expect(await redis.xlen(`${p}:dlq`)).toBe(length);
  });

  it('cuts very long values and marks the entry', async () => {
    const p = await newStream(stack, 1, 'dlq');
    await addDeadLetter(p, p, 0, ['body', 'x'.repeat(5000)]);
    const [entry] = (await deadLetters(p, p)).body.entries;
    expect(entry.truncated).toBe(true);
    expect(entry.fields.body).toHaveLength(4096);
    expect(entry.fields.tag).toBe('t-0');
  });

  it('reads another dead-letter stream only under the stream prefix', async () => {
    const p = await newStream(stack, 1, 'dlq');
    const other = await newStream(stack, 1, 'dlq');
    const id = (await redis.xadd(`${p}:failed`, '*', 'dlq.group', p, 'dlq.id', '1-0', 'tag', 'x')) as string;
    const res = await deadLetters(p, p, `deadLetterKey=${encodeURIComponent(`${p}:failed`)}`);
    expect(res.status).toBe(200);
    expect(res.body.deadLetterKey).toBe(`${p}:failed`);
    expect(res.body.entries.map((e: { deadLetterId: string }) => e.deadLetterId)).toEqual([id]);
    for (const key of [`${other}:dlq`, 'orders:dlq', p, `${p}:`, `${p}x:dlq`]) {
      const refused = await deadLetters(p, p, `deadLetterKey=${encodeURIComponent(key)}`);
      expect(refused.status, key).toBe(400);
      expect(refused.body).toMatchObject({ errorCode: 'INVALID_REQUEST', requestId: expect.any(String) });
    }
  });

  it('answers 400 for a bad count or cursor and 404 for an unknown group or stream', async () => {
    const p = await newStream(stack, 1, 'dlq');
    for (const query of ['count=0', 'count=501', 'count=x', 'cursor=abc']) {
      const res = await deadLetters(p, p, query);
      expect(res.status, query).toBe(400);
      expect(res.body.errorCode).toBe('INVALID_REQUEST');
    }
    expect((await deadLetters(p, 'nope')).body.errorCode).toBe('GROUP_NOT_FOUND');
    expect((await deadLetters('no-such-stream', p)).status).toBe(404);
    expect(await redis.exists(`${p}:dlq`)).toBe(0);
  });
});

describe('monitoring > dead letters (cluster)', () => {
  let a: Arranged;
  beforeAll(async () => {
    a = await arrangeGroup(backends.find((b) => b.name === 'cluster')!);
  });
  afterAll(async () => {
    await a.stack.close();
  });

  it("reads the dead-letter stream in its own slot, this group's entries only", async () => {
    const url = `/streams/${a.p}/groups/${a.p}/dead-letters`;
    expect((await a.get(url)).body).toMatchObject({ entries: [], scanned: 0, nextCursor: null });
    const add = (group: string) =>
      a.stack.redis.xadd(
        `${a.p}:dlq`,
        '*',
        ...['dlq.stream', `${a.p}:1`, 'dlq.id', a.ids[1]![0]!, 'dlq.group', group],
        ...['dlq.member', 'A', 'dlq.deliveryCount', '5', 'dlq.error', 'Error: x', 'body', 'b1-0'],
      );
    const mine = await add(a.p);
    await add('another');
    const res = await a.get(url);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ scanned: 2, stoppedEarly: false, nextCursor: null });
    expect(res.body.entries).toEqual([
      expect.objectContaining({
        deadLetterId: mine,
        originalShardIndex: 1,
        originalId: a.ids[1]![0],
        member: 'A',
        deliveryCount: 5,
        fields: { body: 'b1-0' },
      }),
    ]);
  });
});
