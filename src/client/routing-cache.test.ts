import { describe, expect, it } from 'vitest';
import { CoordinatorUnreachableError, InvalidRoutingError, RoutingUnavailableError } from './errors.js';
import type { ProducerRouting } from './routing.js';
import { type RoutingAnswer, RoutingCache } from './routing-cache.js';

const routing = (shardCount: number, metadataVersion = 1): ProducerRouting => {
  const streamKeys = Array.from({ length: shardCount }, (_, i) => `orders:${i}`);
  const targets = streamKeys.map((streamKey, shardIndex) => ({ shardIndex, streamKey }));
  return {
    streamPrefix: 'orders',
    consumerGroup: 'orders',
    metadataVersion,
    shardCount,
    streamKeys,
    targets,
  };
};

/** One request of the cache, answered by the test. */
interface Call {
  /** The validator the request was sent with (If-None-Match). */
  etag: string | undefined;
  /** Answers 200 with `r`, tagged `etag` (default: its version and shard count). */
  resolve: (r: ProducerRouting, etag?: string) => void;
  /** Answers 304. */
  notModified: () => void;
  reject: (e: unknown) => void;
}

/** A loader the test answers by hand: each call waits until answered or rejected. */
function manualLoader() {
  const calls: Call[] = [];
  const load = (etag: string | undefined) =>
    new Promise<RoutingAnswer>((resolve, reject) => {
      calls.push({
        etag,
        resolve: (routing, tag = `"${routing.metadataVersion}-${routing.shardCount}"`) =>
          resolve({ unchanged: false, routing, etag: tag }),
        notModified: () => resolve({ unchanged: true }),
        reject,
      });
    });
  return { load, calls };
}

interface SetupOptions {
  leaseMs?: number;
  refreshAheadMs?: number;
  revalidateMs?: number;
  retryAfterFailureMs?: number;
}

function setup(opts: SetupOptions = {}) {
  let t = 1_000_000;
  const loader = manualLoader();
  const cache = new RoutingCache({
    load: loader.load,
    leaseMs: opts.leaseMs ?? 30_000,
    refreshAheadMs: opts.refreshAheadMs ?? 5_000,
    revalidateMs: opts.revalidateMs ?? 0,
    retryAfterFailureMs: opts.retryAfterFailureMs ?? 1_000,
    now: () => t,
  });
  return { cache, loader, advance: (ms: number) => (t += ms) };
}

const flush = () => new Promise((r) => setTimeout(r, 0));
const down = () => new CoordinatorUnreachableError('GET … failed: ECONNREFUSED', { timedOut: false });

describe('routing cache > lease', () => {
  it('fetches on first use and serves the answer within its lease without asking again', async () => {
    const { cache, loader, advance } = setup();
    const first = cache.current();
    loader.calls[0]!.resolve(routing(4));
    expect((await first).shardCount).toBe(4);
    advance(24_999);
    expect((await cache.current()).shardCount).toBe(4);
    expect(loader.calls).toHaveLength(1);
  });

  it('shares one in-flight fetch among concurrent first callers', async () => {
    const { cache, loader } = setup();
    const all = Promise.all(Array.from({ length: 20 }, () => cache.current()));
    await flush();
    expect(loader.calls).toHaveLength(1);
    loader.calls[0]!.resolve(routing(2));
    expect((await all).every((r) => r.shardCount === 2)).toBe(true);
  });

  it('refreshes in the background once inside the refresh-ahead window and keeps serving the old answer', async () => {
    const { cache, loader, advance } = setup();
    const p = cache.current();
    loader.calls[0]!.resolve(routing(4));
    await p;
    advance(25_000);
    expect((await cache.current()).shardCount).toBe(4);
    expect((await cache.current()).shardCount).toBe(4);
    expect(loader.calls).toHaveLength(2);
    loader.calls[1]!.resolve(routing(8, 2));
    await flush();
    expect((await cache.current()).shardCount).toBe(8);
  });

  it('counts the lease from when the request was sent, not when it was answered', async () => {
    const { cache, loader, advance } = setup({ leaseMs: 10_000, refreshAheadMs: 0 });
    const p = cache.current();
    advance(4_000);
    loader.calls[0]!.resolve(routing(4));
    await p;
    advance(6_000);
    const again = cache.current();
    await flush();
    expect(loader.calls).toHaveLength(2);
    loader.calls[1]!.resolve(routing(4));
    await again;
  });

  it('keeps using the answer within its lease when a background refresh fails', async () => {
    const { cache, loader, advance } = setup();
    const p = cache.current();
    loader.calls[0]!.resolve(routing(4));
    await p;
    advance(26_000);
    await cache.current();
    loader.calls[1]!.reject(down());
    await flush();
    expect((await cache.current()).shardCount).toBe(4);
  });

  it('fails closed past its lease when the coordinator cannot be reached', async () => {
    const { cache, loader, advance } = setup();
    const p = cache.current();
    loader.calls[0]!.resolve(routing(4));
    await p;
    advance(30_000);
    const expired = cache.current();
    await flush();
    loader.calls[1]!.reject(down());
    const err = await expired.catch((e) => e);
    expect(err).toBeInstanceOf(RoutingUnavailableError);
    expect(err.retryable).toBe(true);
    expect(err.cause).toBeInstanceOf(CoordinatorUnreachableError);
  });

  it('fails fast after a failed fetch for retryAfterFailureMs, then asks again', async () => {
    const { cache, loader, advance } = setup({ retryAfterFailureMs: 1_000 });
    const p = cache.current();
    await flush();
    loader.calls[0]!.reject(down());
    await expect(p).rejects.toBeInstanceOf(RoutingUnavailableError);
    await expect(cache.current()).rejects.toBeInstanceOf(RoutingUnavailableError);
    expect(loader.calls).toHaveLength(1);
    advance(1_000);
    const retry = cache.current();
    await flush();
    expect(loader.calls).toHaveLength(2);
    loader.calls[1]!.resolve(routing(3));
    expect((await retry).shardCount).toBe(3);
  });

  it('passes an invalid routing answer on as INVALID_ROUTING', async () => {
    const { cache, loader } = setup();
    const p = cache.current();
    await flush();
    loader.calls[0]!.reject(new InvalidRoutingError('shard indexes are not 0..n-1'));
    await expect(p).rejects.toBeInstanceOf(InvalidRoutingError);
  });
});

describe('routing cache > stale routes', () => {
  it('refetches at once after invalidation, even within the lease', async () => {
    const { cache, loader } = setup();
    const p = cache.current();
    loader.calls[0]!.resolve(routing(4));
    const used = await p;
    cache.invalidate(used);
    const next = cache.current();
    await flush();
    expect(loader.calls).toHaveLength(2);
    loader.calls[1]!.resolve(routing(2, 2));
    expect((await next).shardCount).toBe(2);
  });

  it('ignores an invalidation of an answer that was already replaced', async () => {
    const { cache, loader } = setup();
    const p = cache.current();
    loader.calls[0]!.resolve(routing(4));
    const old = await p;
    cache.invalidate(old);
    const q = cache.current();
    await flush();
    loader.calls[1]!.resolve(routing(2, 2));
    await q;
    cache.invalidate(old);
    expect((await cache.current()).shardCount).toBe(2);
    expect(loader.calls).toHaveLength(2);
  });

  it('fails closed when the route is stale and the coordinator cannot be reached', async () => {
    const { cache, loader } = setup();
    const p = cache.current();
    loader.calls[0]!.resolve(routing(4));
    cache.invalidate(await p);
    const next = cache.current();
    await flush();
    loader.calls[1]!.reject(down());
    await expect(next).rejects.toBeInstanceOf(RoutingUnavailableError);
  });
});

/** What `p` has settled to once pending callbacks ran, or 'pending' (it waits on a request). */
async function settledNow<T>(p: Promise<T>): Promise<T | 'pending'> {
  return Promise.race([p, flush().then(() => 'pending' as const)]);
}

describe('routing cache > revalidation', () => {
  async function fetched(opts: SetupOptions = {}) {
    const s = setup({ revalidateMs: 3_000, ...opts });
    const p = s.cache.current();
    s.loader.calls[0]!.resolve(routing(4));
    return { ...s, first: await p };
  }

  it('asks with the cached tag revalidateMs after the last request, serving the cached answer meanwhile', async () => {
    const { cache, loader, advance, first } = await fetched();
    advance(2_999);
    expect(await settledNow(cache.current())).toBe(first);
    expect(loader.calls).toHaveLength(1);
    advance(1);
    expect(await settledNow(cache.current())).toBe(first);
    expect(loader.calls).toHaveLength(2);
    expect(loader.calls[1]!.etag).toBe('"1-4"');
  });

  it('shares one revalidation among concurrent callers', async () => {
    const { cache, loader, advance } = await fetched();
    advance(3_000);
    await Promise.all(Array.from({ length: 20 }, () => cache.current()));
    expect(loader.calls).toHaveLength(2);
    loader.calls[1]!.notModified();
    await flush();
    expect(loader.calls).toHaveLength(2);
  });

  it('renews the lease on a 304, counted from when that request was sent', async () => {
    const { cache, loader, advance, first } = await fetched({ leaseMs: 10_000, refreshAheadMs: 0 });
    advance(3_000);
    await cache.current();
    advance(1_000);
    loader.calls[1]!.notModified();
    await flush();
    // Past the first lease (10 s), within the renewed one (sent at 3 s: up to 13 s).
    advance(8_999);
    expect(await settledNow(cache.current())).toBe(first);
    // That call started another revalidation; with it unanswered, the renewed lease runs out.
    advance(1);
    const expired = cache.current();
    expect(await settledNow(expired)).toBe('pending');
    loader.calls[2]!.notModified();
    expect(await expired).toBe(first);
  });

  it('switches to a changed layout a revalidation brings', async () => {
    const { cache, loader, advance } = await fetched();
    advance(3_000);
    expect((await cache.current()).shardCount).toBe(4);
    loader.calls[1]!.resolve(routing(8, 2));
    await flush();
    expect((await cache.current()).shardCount).toBe(8);
    advance(3_000);
    await cache.current();
    expect(loader.calls[2]!.etag).toBe('"2-8"');
  });

  it('keeps the routing it has when a 200 carries the same tag', async () => {
    const { cache, loader, advance, first } = await fetched();
    advance(3_000);
    await cache.current();
    loader.calls[1]!.resolve(routing(4));
    await flush();
    expect(await cache.current()).toBe(first);
  });

  it('keeps serving after a failed revalidation and asks again revalidateMs after it was sent', async () => {
    const { cache, loader, advance, first } = await fetched();
    advance(3_000);
    await cache.current();
    loader.calls[1]!.reject(down());
    await flush();
    advance(2_999);
    expect(await settledNow(cache.current())).toBe(first);
    expect(loader.calls).toHaveLength(2);
    advance(1);
    await cache.current();
    expect(loader.calls).toHaveLength(3);
  });

  it('never lets a 304 sent before the route was found stale vouch for it', async () => {
    const { cache, loader, advance, first } = await fetched();
    advance(3_000);
    await cache.current();
    cache.invalidate(first);
    const retry = cache.current();
    loader.calls[1]!.notModified();
    await flush();
    // The 304 answered a request sent before the invalidation: a new request is needed.
    expect(loader.calls).toHaveLength(3);
    expect(await settledNow(retry)).toBe('pending');
    loader.calls[2]!.resolve(routing(2, 2));
    expect((await retry).shardCount).toBe(2);
  });

  it('clears an invalidation with a 304 sent after it', async () => {
    const { cache, loader, first } = await fetched();
    cache.invalidate(first);
    const retry = cache.current();
    await flush();
    loader.calls[1]!.notModified();
    expect(await retry).toBe(first);
    expect(await settledNow(cache.current())).toBe(first);
    expect(loader.calls).toHaveLength(2);
  });

  it('asks only near the lease end when revalidateMs is 0', async () => {
    const { cache, loader, advance } = await fetched({ revalidateMs: 0 });
    advance(24_999);
    await cache.current();
    expect(loader.calls).toHaveLength(1);
    advance(1);
    await cache.current();
    expect(loader.calls).toHaveLength(2);
    expect(loader.calls[1]!.etag).toBe('"1-4"');
  });

  it('fails as ROUTING_UNAVAILABLE when a request without a tag is answered 304', async () => {
    const { cache, loader } = setup();
    const p = cache.current();
    await flush();
    loader.calls[0]!.notModified();
    await expect(p).rejects.toBeInstanceOf(RoutingUnavailableError);
  });
});

describe('routing cache > settled', () => {
  it('resolves at once with nothing in flight, else once the request landed, failed or not', async () => {
    const { cache, loader, advance } = setup({ revalidateMs: 3_000 });
    await cache.settled();
    const p = cache.current();
    loader.calls[0]!.resolve(routing(4));
    await p;
    advance(3_000);
    await cache.current();
    const settled = cache.settled();
    expect(await settledNow(settled)).toBe('pending');
    loader.calls[1]!.reject(down());
    await expect(settled).resolves.toBeUndefined();
  });
});
