/**
 * The consumer's batched heartbeats against real coordinators on real Redis: with
 * the capability advertised, the members of one process heartbeat together in batches and get
 * their shards as they would alone; against a reference-only double (the single route, the
 * reference's answer shape) and a coordinator whose batch route answers 404, every member
 * heartbeats alone and works; `batchHeartbeats: false` never batches.
 */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { CoordinatorUnreachableError } from '../../src/client/errors.js';
import type { FetchLike } from '../../src/client/transport.js';
import { createApp } from '../../src/http/app.js';
import { ownerKey, tokenHolder } from '../../src/store/scripts/shard-owner.js';
import type { Stack } from '../support/stack.js';
import { collect, eventually, newStream, publish, standaloneSuite, testConsumer } from './support.js';

const { stack, redis } = standaloneSuite();

/** Requests as a coordinator saw them. */
interface Seen {
  single: string[];
  batches: string[][];
  other: string[];
}

/** A fetch into the real coordinator that records every heartbeat request. */
function recording(s: Stack): { fetch: FetchLike; seen: Seen } {
  const app = createApp({ coordinator: s.coordinator, config: s.config, now: s.clock.now });
  const seen: Seen = { single: [], batches: [], other: [] };
  const fetch: FetchLike = async (url, init) => {
    const body = init.body ? JSON.parse(String(init.body)) : null;
    if (url.endsWith('/heartbeats'))
      seen.batches.push(body.heartbeats.map((h: { memberId: string }) => h.memberId));
    else if (url.endsWith('/heartbeat')) seen.single.push(body.memberId);
    else seen.other.push(url);
    return app.request(url, init);
  };
  return { fetch, seen };
}

/**
 * The reference coordinator as our SDK meets it: only `POST …/members/{m}/heartbeat`, answered in
 * the reference's shape (no `memberLeaseTtlMs`, no `capabilities`) — the decisions come from the
 * real coordinator behind it. Anything else is a 404, as a Spring app answers unknown routes.
 */
function referenceOnlyDouble(s: Stack): { fetch: FetchLike; seen: Seen } {
  const inner = recording(s);
  const app = new Hono();
  app.post('/coord/v1/streams/:p/groups/:g/members/:m/heartbeat', async (c) => {
    const res = await inner.fetch(`http://coordinator.localhost${c.req.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: await c.req.text(),
    });
    const {
      memberLeaseTtlMs: _lease,
      capabilities: _caps,
      ...reference
    } = (await res.json()) as Record<string, unknown>;
    return c.json(reference, res.status as 200);
  });
  app.notFound((c) =>
    c.json({ timestamp: new Date().toISOString(), status: 404, error: 'Not Found', path: c.req.path }, 404),
  );
  return { fetch: (url, init) => app.request(url, init), seen: inner.seen };
}

/** The real coordinator, except that its batch route is gone (an older build behind the same URL). */
function batchRouteGone(s: Stack): { fetch: FetchLike; seen: Seen; refused: () => number } {
  const inner = recording(s);
  let refused = 0;
  const fetch: FetchLike = (url, init) => {
    if (url.endsWith('/heartbeats')) {
      refused++;
      return new Response(
        JSON.stringify({ status: 'NOT_FOUND', errorCode: 'NOT_FOUND', message: 'no route' }),
        {
          status: 404,
          headers: { 'content-type': 'application/json' },
        },
      );
    }
    return inner.fetch(url, init);
  };
  return { fetch, seen: inner.seen, refused: () => refused };
}

/** Runs a consumer of `concurrency` members until every shard is read and `n` records were handled. */
async function consumeAll(
  p: string,
  fetch: FetchLike,
  concurrency: number,
  extra: { batchHeartbeats?: boolean } = {},
  /** Filled with each shard's ownership token (fenced acks) while the consumer still runs. */
  tokens: Array<string | null> = [],
) {
  const handled = new Set<string>();
  const c = testConsumer({
    streamPrefix: p,
    redis,
    fetch,
    concurrency,
    handler: (r) => {
      handled.add(`${r.shard}/${r.id}`);
      return 'ack' as const;
    },
    ...extra,
  });
  c.start();
  try {
    await eventually(() => {
      const reading = c.status().flatMap((m) => m.reading);
      expect(reading.sort((a, b) => a - b)).toEqual([0, 1, 2, 3]);
      expect(c.status().every((m) => m.lastStatus === 'OK')).toBe(true);
    });
    const ids = [
      ...(await publish(redis, p, 0, 3)).map((id) => `0/${id}`),
      ...(await publish(redis, p, 3, 3)).map((id) => `3/${id}`),
    ];
    await eventually(() => expect([...handled].sort()).toEqual(ids.sort()));
    // A few more intervals of steady heartbeats.
    await new Promise((r) => setTimeout(r, 1200));
    expect(c.status().every((m) => m.lastStatus === 'OK' && m.leaseValid)).toBe(true);
    for (let shard = 0; shard < 4; shard++) tokens.push(await redis.hget(ownerKey(`${p}:${shard}`), p));
    return c.memberIds;
  } finally {
    await c.close();
  }
}

describe('consumer > batched heartbeats', () => {
  it('coalesces the heartbeats of its members into batches once the coordinator advertises them', async () => {
    const p = await newStream(stack, 4, 'hbb');
    const { fetch, seen } = recording(stack);
    const ids = await consumeAll(p, fetch, 4);
    expect(seen.batches.length).toBeGreaterThan(0);
    // Every batch names distinct members of this consumer, and some carried several.
    for (const b of seen.batches) {
      expect(new Set(b).size).toBe(b.length);
      for (const m of b) expect(ids).toContain(m);
    }
    expect(Math.max(...seen.batches.map((b) => b.length))).toBeGreaterThan(1);
    // Single heartbeats: the joins before the first answer, and the leaves on close.
    const joinsAndLeaves = seen.single.length;
    expect(joinsAndLeaves).toBeLessThanOrEqual(ids.length * 2 + 2);
  });

  it('sends single heartbeats only, and works, against a reference-only coordinator', async () => {
    const p = await newStream(stack, 4, 'hbr');
    const { fetch, seen } = referenceOnlyDouble(stack);
    const tokens: Array<string | null> = [];
    const ids = await consumeAll(p, fetch, 4, {}, tokens);
    expect(seen.batches).toEqual([]);
    expect(new Set(seen.single)).toEqual(new Set(ids));
    // Fenced acks need only the epochs of reference answers: every shard was claimed and acked
    // through the fence by a member of ours, and each clean release on close deleted its token.
    for (const t of tokens) expect(ids).toContain(tokenHolder(t)?.memberId);
    expect(tokens.every((t) => (tokenHolder(t)?.epoch ?? 0) > 0)).toBe(true);
    expect(await redis.exists(...[0, 1, 2, 3].map((s) => ownerKey(`${p}:${s}`)))).toBe(0);
  });

  it('falls back to single heartbeats when the batch route answers 404, asking it once', async () => {
    const p = await newStream(stack, 4, 'hb4');
    const gone = batchRouteGone(stack);
    await consumeAll(p, gone.fetch, 4);
    expect(gone.refused()).toBe(1);
    expect(gone.seen.batches).toEqual([]);
  });

  it('never batches with batchHeartbeats: false', async () => {
    const p = await newStream(stack, 4, 'hbf');
    const { fetch, seen } = recording(stack);
    await consumeAll(p, fetch, 4, { batchHeartbeats: false });
    expect(seen.batches).toEqual([]);
  });

  it('keeps each member’s own timeout and retries while a batch hangs, and recovers', async () => {
    const p = await newStream(stack, 2, 'hbh');
    const rec = recording(stack);
    let hang = false;
    const fetch: FetchLike = (url, init) =>
      hang && url.endsWith('/heartbeats') ? new Promise<Response>(() => {}) : rec.fetch(url, init);
    const c = testConsumer({ streamPrefix: p, redis, fetch, concurrency: 2, handler: () => 'ack' as const });
    const errors = collect(c, 'error');
    c.start();
    try {
      const healthy = () => {
        expect(c.status().every((m) => m.lastStatus === 'OK' && m.leaseValid)).toBe(true);
        expect(
          c
            .status()
            .flatMap((m) => m.reading)
            .sort(),
        ).toEqual([0, 1]);
      };
      await eventually(healthy);
      await eventually(() => expect(rec.seen.batches.length).toBeGreaterThan(0));
      hang = true;
      // Every member times out on its own request timeout and reports it, as with a hung single.
      await eventually(() =>
        expect(new Set(errors.filter((e) => e.context === 'heartbeat').map((e) => e.memberId))).toEqual(
          new Set(c.memberIds),
        ),
      );
      const timeouts = errors.filter((e) => e.context === 'heartbeat').map((e) => e.error);
      expect(timeouts.every((e) => e instanceof CoordinatorUnreachableError && e.timedOut)).toBe(true);
      const batchesBefore = rec.seen.batches.length;
      hang = false;
      await eventually(healthy);
      await eventually(() => expect(rec.seen.batches.length).toBeGreaterThan(batchesBefore));
    } finally {
      await c.close();
    }
  });
});
