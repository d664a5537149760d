/**
 * What one batched heartbeat request may hold (docs/protocol.md#batched-heartbeats): a body cap
 * of its own, refused on `Content-Length` before a byte is read; no item listing more shards
 * than a stream can have and no more shard entries per request than every shard of the largest
 * stream in each list once; no more nested values than such a body has, refused before parsing;
 * and a bound on batches in flight, beyond which a batch answers 503 `COORDINATOR_BUSY` with
 * `Retry-After` at once, its body unread. Over real Redis; single heartbeats are never refused.
 */
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.js';
import { backends, uniquePrefix } from '../support/redis.js';
import { heartbeatBody, type Stack, stacksPerTest } from '../support/stack.js';

const backend = backends[0]!;
const meta = { requestedBy: 'batch-limits-test' };
const batchPath = (p: string) => `/coord/v1/streams/${p}/groups/${p}/heartbeats`;
const item = (m: string, p: string, owned: number[] = []) => ({
  ...heartbeatBody(m, p, { epoch: 0, mv: 0, owned }),
  memberId: m,
});
const range = (n: number) => [...Array(n).keys()];

async function arrange(stack: Stack) {
  const p = uniquePrefix('hbl');
  expect((await stack.call('POST', `/coord/v1/streams/${p}`, { initialShardCount: 2, ...meta })).status).toBe(
    201,
  );
  return p;
}

/** A request body that hands out `text` in 1 KiB chunks only while `open`, counting what was read. */
function slowBody(text: string) {
  const bytes = new TextEncoder().encode(text);
  const state = { read: 0, open: false, resume: () => {} };
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(ctrl) {
        while (!state.open) await new Promise<void>((r) => (state.resume = r));
        if (state.read >= bytes.length) return ctrl.close();
        const chunk = bytes.subarray(state.read, state.read + 1024);
        state.read += chunk.length;
        ctrl.enqueue(chunk);
      },
    },
    // Nothing is pulled before someone reads.
    { highWaterMark: 0 },
  );
  return {
    stream,
    state,
    open: () => {
      state.open = true;
      state.resume();
    },
  };
}

function post(app: ReturnType<typeof createApp>, path: string, body: ReadableStream, length?: number) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (length !== undefined) headers['content-length'] = String(length);
  return app.request(path, { method: 'POST', headers, body, duplex: 'half' } as RequestInit);
}

describe('heartbeat batch > memory bounds', () => {
  const stackOf = stacksPerTest(backend);

  it('has a body cap of its own, well below 16 × COORDINATOR_MAX_BODY_BYTES (413), configurable', async () => {
    const s = stackOf();
    const p = await arrange(s);
    // 300 KiB: under the old 16 × 64 KiB, over the batch's own default of 256 KiB.
    const padded = { heartbeats: [item('A', p)], padding: 'x'.repeat(300 * 1024) };
    const res = await s.call('POST', batchPath(p), padded);
    expect(res.status, JSON.stringify(res.body)).toBe(413);
    expect(res.body).toMatchObject({ errorCode: 'PAYLOAD_TOO_LARGE' });
    expect(res.body.message).toContain(String(256 * 1024));
    const small = stackOf({ COORDINATOR_MAX_BATCH_BODY_BYTES: '4096' });
    const q = await arrange(small);
    const over = await small.call('POST', batchPath(q), {
      heartbeats: [item('A', q)],
      pad: 'x'.repeat(4096),
    });
    expect(over.status).toBe(413);
    expect((await small.call('POST', batchPath(q), { heartbeats: [item('A', q)] })).status).toBe(200);
  });

  it('refuses on Content-Length before reading a byte of the body', async () => {
    const s = stackOf();
    const p = await arrange(s);
    const app = createApp({ coordinator: s.coordinator, config: s.config, now: s.clock.now });
    const text = JSON.stringify({ heartbeats: [item('A', p)], padding: 'x'.repeat(512 * 1024) });
    const body = slowBody(text);
    body.open();
    const res = await post(app, batchPath(p), body.stream, text.length);
    expect(res.status).toBe(413);
    expect(body.state.read).toBe(0);
  });

  it('refuses an item listing more shards than COORDINATOR_MAX_SHARD_COUNT, and more shard entries per request than 3 × it (400)', async () => {
    const s = stackOf({ COORDINATOR_MAX_SHARD_COUNT: '16', COORDINATOR_DEFAULT_SHARD_COUNT: '2' });
    const p = await arrange(s);
    const tooMany = await s.call('POST', batchPath(p), { heartbeats: [item('A', p, range(17))] });
    expect(tooMany.status, JSON.stringify(tooMany.body)).toBe(400);
    expect(tooMany.body).toMatchObject({ errorCode: 'INVALID_REQUEST' });
    expect(tooMany.body.message).toContain('heartbeats[0].ownedShards');
    expect(tooMany.body.message).toContain('COORDINATOR_MAX_SHARD_COUNT');
    // 16 each is fine for one item, but four of them list 64 entries: more than 3 × 16.
    const four = ['A', 'B', 'C', 'D'].map((m) => item(m, p, range(16)));
    const total = await s.call('POST', batchPath(p), { heartbeats: four });
    expect(total.status, JSON.stringify(total.body)).toBe(400);
    expect(total.body.message).toContain('48');
    const members = await s.call('GET', `/coord/v1/monitoring/streams/${p}/groups/${p}/members`);
    expect(members.body.members).toEqual([]);
    const three = await s.call('POST', batchPath(p), { heartbeats: four.slice(0, 3) });
    expect(three.status, JSON.stringify(three.body)).toBe(200);
  });

  it('refuses a body with more nested values than a valid batch can have, before parsing it (400)', async () => {
    const s = stackOf();
    const p = await arrange(s);
    // 60,000 empty objects in an unknown field: 180 KB of JSON, ~20 × that once parsed.
    const bomb = `{"heartbeats":[${JSON.stringify(item('A', p))}],"x":[${Array(60_000).fill('{}').join(',')}]}`;
    const res = await s.call('POST', batchPath(p), bomb);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.message).toContain('objects and arrays');
    // Braces inside strings (escaped quotes too) are text, not structure.
    const braces = { heartbeats: [item('A', p)], note: '\\"{['.repeat(10_000) };
    expect((await s.call('POST', batchPath(p), braces)).status).toBe(200);
  });

  it('answers batches beyond COORDINATOR_MAX_CONCURRENT_BATCHES 503 COORDINATOR_BUSY with Retry-After at once, unread', async () => {
    const s = stackOf({ COORDINATOR_MAX_CONCURRENT_BATCHES: '2' });
    const p = await arrange(s);
    const app = createApp({ coordinator: s.coordinator, config: s.config, now: s.clock.now });
    const text = (m: string) => JSON.stringify({ heartbeats: [item(m, p)] });
    // Two batches whose bodies arrive slowly hold both slots.
    const held = ['A', 'B'].map((m) => slowBody(text(m)));
    const inFlight = held.map((b) => post(app, batchPath(p), b.stream));
    await new Promise((r) => setTimeout(r, 50));
    const third = slowBody(text('C'));
    third.open();
    const refused = await post(app, batchPath(p), third.stream);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toMatchObject({ errorCode: 'COORDINATOR_BUSY' });
    expect(third.state.read).toBe(0);
    // Single heartbeats are not counted.
    const single = await s.call(
      'POST',
      `/coord/v1/streams/${p}/groups/${p}/members/S/heartbeat`,
      item('S', p),
    );
    expect(single.status).toBe(200);
    for (const b of held) b.open();
    expect((await Promise.all(inFlight)).map((r) => r.status)).toEqual([200, 200]);
    // The slots are given back.
    expect((await s.call('POST', batchPath(p), { heartbeats: [item('C', p)] })).status).toBe(200);
  });
});
