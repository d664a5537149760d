import { describe, expect, it } from 'vitest';
import { isMemberIdInUseAnswer } from './consumer-errors.js';
import { CoordinatorHttpError, CoordinatorUnreachableError } from './errors.js';
import { HeartbeatBatcher, MAX_BATCH_ITEMS } from './heartbeat-batcher.js';

const BATCH = '/coord/v1/streams/p/groups/g/heartbeats';
const single = (m: string) => `/coord/v1/streams/p/groups/g/members/${m}/heartbeat`;
const answer = (m: string, caps: string[] | null = ['BATCH_HEARTBEAT']) => ({
  status: 'OK',
  memberId: m,
  ...(caps ? { capabilities: caps } : {}),
});

type Call = { path: string; body: { memberId?: string; heartbeats?: Array<{ memberId: string }> } };

/** A transport answering singles with `answer(m)` and batches with `onBatch`. */
function fakeTransport(
  onBatch: (items: Array<{ memberId: string }>) => unknown,
  caps: string[] | null = ['BATCH_HEARTBEAT'],
) {
  const calls: Call[] = [];
  return {
    calls,
    request: async <T>(_method: string, path: string, body?: unknown): Promise<T> => {
      const b = body as Call['body'];
      calls.push({ path, body: b });
      if (path === BATCH) return onBatch(b.heartbeats!) as T;
      return answer(b.memberId!, caps) as T;
    },
  };
}

const ok = (items: Array<{ memberId: string }>) => ({
  results: items.map((i) => ({
    memberId: i.memberId,
    httpStatus: 200,
    heartbeat: answer(i.memberId),
    error: null,
  })),
});

/** A batcher of a consumer with `members` members (none of them ever pulled in). */
function make(t: ReturnType<typeof fakeTransport>, enabled = true, members = 4): HeartbeatBatcher {
  const b = new HeartbeatBatcher(t, { streamPrefix: 'p', consumerGroup: 'g', enabled });
  for (let i = 0; i < members; i++) b.register({ pullableFrom: () => null, pullIn: () => {} });
  return b;
}

/** Sends one heartbeat per member at once. */
const sendAll = (b: HeartbeatBatcher, members: string[]) =>
  Promise.allSettled(members.map((m) => b.send(single(m), m, { memberId: m })));

describe('heartbeat batcher > negotiation', () => {
  it('sends singles until an answer advertises BATCH_HEARTBEAT, then one batch for heartbeats sent together', async () => {
    const t = fakeTransport(ok);
    const b = make(t);
    expect(await b.send(single('a'), 'a', { memberId: 'a' })).toEqual(answer('a'));
    expect(b.batching).toBe(true);
    const out = await sendAll(b, ['a', 'b', 'c']);
    expect(out.map((o) => (o as PromiseFulfilledResult<unknown>).value)).toEqual(
      ['a', 'b', 'c'].map((m) => answer(m)),
    );
    expect(t.calls.map((c) => c.path)).toEqual([single('a'), BATCH]);
    expect(t.calls[1]!.body.heartbeats!.map((h) => h.memberId)).toEqual(['a', 'b', 'c']);
    expect(b.sent).toEqual({ single: 1, batch: 1 });
  });

  it('never batches against a coordinator that does not advertise it (the reference)', async () => {
    const t = fakeTransport(ok, null);
    const b = make(t);
    await b.send(single('a'), 'a', { memberId: 'a' });
    await sendAll(b, ['a', 'b']);
    expect(t.calls.map((c) => c.path)).toEqual([single('a'), single('a'), single('b')]);
  });

  it('sends the heartbeat of a lone member, and a batch nobody joined, as single heartbeats', async () => {
    const t = fakeTransport(ok);
    const lone = make(t, true, 1);
    await lone.send(single('a'), 'a', { memberId: 'a' });
    await lone.send(single('a'), 'a', { memberId: 'a' });
    const b = make(t);
    await b.send(single('b'), 'b', { memberId: 'b' });
    expect(b.batching).toBe(true);
    await b.send(single('b'), 'b', { memberId: 'b' });
    expect(t.calls.map((c) => c.path)).toEqual([single('a'), single('a'), single('b'), single('b')]);
  });

  it('never batches when switched off', async () => {
    const t = fakeTransport(ok);
    const b = make(t, false);
    await b.send(single('a'), 'a', { memberId: 'a' });
    await sendAll(b, ['a', 'b']);
    expect(t.calls.every((c) => c.path !== BATCH)).toBe(true);
  });

  it.each([404, 405])(
    'falls back to single heartbeats when the batch route answers %i, resending the batch alone',
    async (status) => {
      const t = fakeTransport(() => {
        throw new CoordinatorHttpError(status, 'NOT_FOUND', 'no route');
      });
      const b = make(t);
      await b.send(single('a'), 'a', { memberId: 'a' });
      const out = await sendAll(b, ['a', 'b']);
      expect(out.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled']);
      expect(b.batching).toBe(false);
      await sendAll(b, ['a', 'b']);
      expect(t.calls.map((c) => c.path)).toEqual([
        single('a'),
        BATCH,
        single('a'),
        single('b'),
        single('a'),
        single('b'),
      ]);
    },
  );

  it('sends a batch refused as a whole (400, 413) alone once, and keeps batching', async () => {
    let refuse = true;
    const t = fakeTransport((items) => {
      if (refuse) {
        refuse = false;
        throw new CoordinatorHttpError(413, 'PAYLOAD_TOO_LARGE', 'too large');
      }
      return ok(items);
    });
    const b = make(t);
    await b.send(single('a'), 'a', { memberId: 'a' });
    await sendAll(b, ['a', 'b']);
    expect(b.batching).toBe(true);
    await sendAll(b, ['a', 'b']);
    expect(t.calls.map((c) => c.path)).toEqual([single('a'), BATCH, single('a'), single('b'), BATCH]);
  });

  it('sends a batch refused 503 COORDINATOR_BUSY (too many batches in flight) alone, and keeps batching', async () => {
    let refuse = true;
    const t = fakeTransport((items) => {
      if (refuse) {
        refuse = false;
        throw new CoordinatorHttpError(503, 'COORDINATOR_BUSY', 'busy');
      }
      return ok(items);
    });
    const b = make(t);
    await b.send(single('a'), 'a', { memberId: 'a' });
    const out = await sendAll(b, ['a', 'b']);
    expect(out.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled']);
    expect(b.batching).toBe(true);
    await sendAll(b, ['a', 'b']);
    expect(t.calls.map((c) => c.path)).toEqual([single('a'), BATCH, single('a'), single('b'), BATCH]);
  });

  it('uses single heartbeats after an answer it cannot read', async () => {
    const t = fakeTransport(() => ({ results: [] }));
    const b = make(t);
    await b.send(single('a'), 'a', { memberId: 'a' });
    const out = await sendAll(b, ['a', 'b']);
    expect(out.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled']);
    expect(b.batching).toBe(false);
  });
});

describe('heartbeat batcher > delivery', () => {
  it('hands each member its own refusal as the single route’s error (409 MEMBER_ID_IN_USE stays recognisable)', async () => {
    const t = fakeTransport((items) => ({
      results: items.map((i) =>
        i.memberId === 'b'
          ? {
              memberId: 'b',
              httpStatus: 409,
              heartbeat: null,
              error: { status: 'CONFLICT', errorCode: 'MEMBER_ID_IN_USE', message: 'held' },
            }
          : { memberId: i.memberId, httpStatus: 200, heartbeat: answer(i.memberId), error: null },
      ),
    }));
    const b = make(t);
    await b.send(single('a'), 'a', { memberId: 'a' });
    const [a, bb, c] = await sendAll(b, ['a', 'b', 'c']);
    expect(a!.status).toBe('fulfilled');
    expect(c!.status).toBe('fulfilled');
    const err = (bb as PromiseRejectedResult).reason;
    expect(err).toBeInstanceOf(CoordinatorHttpError);
    expect(err).toMatchObject({
      status: 409,
      errorCode: 'MEMBER_ID_IN_USE',
      detail: 'held',
      retryable: false,
    });
    expect(isMemberIdInUseAnswer(err)).toBe(true);
  });

  it('gives every member of a failed batch the error its own request would have had', async () => {
    const down = new CoordinatorUnreachableError('no answer', { timedOut: true });
    let fail = false;
    const t = fakeTransport((items) => {
      if (fail) throw down;
      return ok(items);
    });
    const b = make(t);
    await b.send(single('a'), 'a', { memberId: 'a' });
    fail = true;
    const out = await sendAll(b, ['a', 'b']);
    expect(out.map((o) => (o as PromiseRejectedResult).reason)).toEqual([down, down]);
    expect(b.batching).toBe(true);
  });

  it(`splits more than ${MAX_BATCH_ITEMS} heartbeats into batches of at most ${MAX_BATCH_ITEMS}`, async () => {
    const t = fakeTransport(ok);
    const b = make(t);
    await b.send(single('m0'), 'm0', { memberId: 'm0' });
    const members = Array.from({ length: 100 }, (_, i) => `m${i}`);
    const out = await sendAll(b, members);
    expect(out.every((o) => o.status === 'fulfilled')).toBe(true);
    const sizes = t.calls.filter((c) => c.path === BATCH).map((c) => c.body.heartbeats!.length);
    expect(sizes).toEqual([64, 36]);
  });

  it('pulls in the members whose steady pause has reached its pull-in point, and no other', async () => {
    const t = fakeTransport(ok);
    const b = make(t);
    await b.send(single('a'), 'a', { memberId: 'a' });
    const pulled: string[] = [];
    const peer = (name: string, from: number | null) => ({
      pullableFrom: () => from,
      pullIn: () => {
        pulled.push(name);
        void b.send(single(name), name, { memberId: name });
      },
    });
    b.register(peer('due', Date.now() - 1));
    b.register(peer('later', Date.now() + 60_000));
    const off = b.register(peer('retrying', null));
    off();
    await b.send(single('a'), 'a', { memberId: 'a' });
    expect(pulled).toEqual(['due']);
    expect(t.calls.at(-1)!.body.heartbeats!.map((h) => h.memberId)).toEqual(['a', 'due']);
  });
});
