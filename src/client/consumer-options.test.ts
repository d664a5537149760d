import { describe, expect, it } from 'vitest';
import {
  backoffMs,
  defaultMemberBase,
  leaseMargin,
  memberIds,
  resolveConsumerOptions,
  sanitizeMemberBase,
} from './consumer-options.js';
import { InvalidOptionsError } from './errors.js';

const redis = { duplicate: () => null, xack: () => null } as never;
const base = { coordinatorUrl: 'http://c', streamPrefix: 'orders', handler: () => 'ack' as const, redis };

describe('consumer options', () => {
  it('applies the documented defaults', () => {
    const o = resolveConsumerOptions({ ...base, memberBase: 'pod-1' });
    expect(o).toMatchObject({
      consumerGroup: 'orders',
      concurrency: 1,
      memberBase: 'pod-1',
      pollBatchSize: 10,
      blockMs: 1000,
      maxInFlightPerMember: 10,
      maxInFlightPerShard: 10,
      maxDeliveries: 5,
      deadLetterStream: 'orders:dlq',
      retryBackoff: { baseMs: 1000, factor: 2, maxMs: 60_000 },
      claimMinIdleMs: 10_000,
      heartbeatIntervalMs: 3000,
      requestTimeoutMs: 5000,
      redisTimeoutMs: 10_000,
      fallbackLeaseTtlMs: 15_000,
      leaseMarginMs: null,
      shutdownTimeoutMs: 30_000,
      fencedAcks: true,
    });
    expect(resolveConsumerOptions({ ...base, fencedAcks: false }).fencedAcks).toBe(false);
  });

  it('names members <base>-m0 … and sanitizes the base like the reference clients', () => {
    expect(memberIds('10.0.0.7', 3)).toEqual(['10.0.0.7-m0', '10.0.0.7-m1', '10.0.0.7-m2']);
    expect(sanitizeMemberBase('my host:1/ü')).toBe('my-host-1--');
  });

  it('defaults the member base to <POD_IP or host name>-<pid>-<6 random hex>, unique per process', () => {
    const a = defaultMemberBase({ POD_IP: '10.1.2.3' }, 4242);
    const b = defaultMemberBase({ POD_IP: '10.1.2.3' }, 4242);
    expect(a).toMatch(/^10\.1\.2\.3-4242-[0-9a-f]{6}$/);
    expect(b).toMatch(/^10\.1\.2\.3-4242-[0-9a-f]{6}$/);
    expect(a).not.toBe(b);
    expect(defaultMemberBase({ POD_IP: 'pod ip/ü' }, 7)).toMatch(/^pod-ip--+7-[0-9a-f]{6}$/);
    expect(defaultMemberBase({})).toMatch(new RegExp(`^[A-Za-z0-9._-]+-${process.pid}-[0-9a-f]{6}$`));
  });

  it('keeps member ids within the coordinator limit (200 characters of [A-Za-z0-9._-])', () => {
    const long = defaultMemberBase({ POD_IP: 'h'.repeat(500) }, 9_999_999);
    const ids = memberIds(long, 1024);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9._-]{1,200}$/);
    expect(() => resolveConsumerOptions({ ...base, memberBase: 'x'.repeat(198), concurrency: 2 })).toThrow(
      /memberBase/,
    );
  });

  it('keeps an explicit memberBase exactly (no pid or random suffix)', () => {
    const o = resolveConsumerOptions({ ...base, memberBase: 'billing-7', concurrency: 2 });
    expect(o.memberBase).toBe('billing-7');
    expect(memberIds(o.memberBase, o.concurrency)).toEqual(['billing-7-m0', 'billing-7-m1']);
  });

  it('gives two consumers with default options different member ids', () => {
    const a = resolveConsumerOptions(base);
    const b = resolveConsumerOptions(base);
    expect(a.memberBase).not.toBe(b.memberBase);
    expect(a.memberBase).toContain(`-${process.pid}-`);
  });

  it('grows the retry backoff by the factor up to the maximum', () => {
    const b = { baseMs: 100, factor: 2, maxMs: 500 };
    expect([1, 2, 3, 4, 5].map((n) => backoffMs(b, n))).toEqual([100, 200, 400, 500, 500]);
  });

  it('keeps the local lease a fifth (at most 3 s) shorter than the server lease unless told otherwise', () => {
    expect(leaseMargin({ leaseMarginMs: null }, 3000)).toBe(600);
    expect(leaseMargin({ leaseMarginMs: null }, 60_000)).toBe(3000);
    expect(leaseMargin({ leaseMarginMs: 250 }, 3000)).toBe(250);
  });

  it.each([
    [{ streamPrefix: '' }, /streamPrefix/],
    [{ streamPrefix: 'a{b}' }, /streamPrefix/],
    [{ concurrency: 0 }, /concurrency/],
    [{ pollBatchSize: 1.5 }, /pollBatchSize/],
    [{ redis: {} }, /redis/],
    [{ handler: 'x' }, /handler/],
    [{ retryBackoff: { factor: 0.5 } }, /factor/],
    [{ memberBase: '' }, /memberBase/],
    [{ fencedAcks: 'no' }, /fencedAcks/],
  ])('rejects %j', (bad, message) => {
    expect(() => resolveConsumerOptions({ ...base, ...(bad as object) })).toThrow(InvalidOptionsError);
    expect(() => resolveConsumerOptions({ ...base, ...(bad as object) })).toThrow(message);
  });
});
