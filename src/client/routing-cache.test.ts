import { describe, expect, it } from 'vitest';
import { CoordinatorUnreachableError, InvalidRoutingError, RoutingUnavailableError } from './errors.js';
import type { ProducerRouting } from './routing.js';
import { RoutingCache } from './routing-cache.js';

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

/** A loader the test answers by hand: each call waits until resolved or rejected. */
function manualLoader() {
  const calls: Array<{ resolve: (r: ProducerRouting) => void; reject: (e: unknown) => void }> = [];
  const load = () =>
    new Promise<ProducerRouting>((resolve, reject) => {
      calls.push({ resolve, reject });
    });
  return { load, calls };
}

function setup(opts: { leaseMs?: number; refreshAheadMs?: number; retryAfterFailureMs?: number } = {}) {
  let t = 1_000_000;
  const loader = manualLoader();
  const cache = new RoutingCache({
    load: loader.load,
    leaseMs: opts.leaseMs ?? 30_000,
    refreshAheadMs: opts.refreshAheadMs ?? 5_000,
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
