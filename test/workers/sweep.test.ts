/**
 * The Worker's cron sweep: bounded by its subrequest budget, taking the streams due now from the
 * due index in Redis (isolates are not sticky), leaving what it cannot afford due for the next
 * invocation, and costing one subrequest when nothing is due.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { groupKeys } from '../../src/store/keys.js';
import { decodeMember } from '../../src/store/records.js';
import { standaloneClient, uniquePrefix } from '../support/redis.js';
import { heartbeatBody } from '../support/stack.js';
import { startUpstashBridge, type UpstashBridge } from '../support/upstash-bridge.js';
import { type RunningWorker, startWorker } from '../support/worker.js';

/** A Worker log line's JSON object (null for anything else). */
function jsonLine(line: string): Record<string, unknown> | null {
  const at = line.indexOf('{');
  if (at < 0) return null;
  try {
    return JSON.parse(line.slice(at)) as Record<string, unknown>;
  } catch {
    return null;
  }
}

describe('worker > budgeted, resumable cron sweep', () => {
  const redis = standaloneClient();
  let bridge: UpstashBridge;
  let worker: RunningWorker;
  const ns = uniquePrefix('sweep');
  const BUDGET = 30;

  const call = async (method: string, path: string, body: unknown) => {
    const res = await worker.fetch(path, {
      method,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  /**
   * The member's state as stored — what the sweep wrote. (The monitoring API shows a lapsed
   * lease as EXPIRED before any sweep, so it cannot tell which streams a run has reached.)
   */
  const memberState = async (p: string) => {
    const text = await redis.hget(groupKeys(ns, p, p).members, 'm');
    return decodeMember(p, p, 'm', text).record.state;
  };

  beforeAll(async () => {
    bridge = await startUpstashBridge({ redisUrl: inject('redisUrl') });
    worker = await startWorker({
      UPSTASH_REDIS_REST_URL: bridge.url,
      UPSTASH_REDIS_REST_TOKEN: bridge.token,
      COORDINATOR_OPEN_MODE: 'true',
      COORDINATOR_KEY_PREFIX: ns,
      COORDINATOR_HEARTBEAT_INTERVAL_MS: '500',
      COORDINATOR_MEMBER_LEASE_TTL_MS: '1000',
      COORDINATOR_SWEEP_SUBREQUESTS: String(BUDGET),
    });
  });
  afterAll(async () => {
    await worker.close();
    await bridge.close();
    redis.disconnect();
  });

  it('costs one request when nothing is due (the claim), once every stream is known', async () => {
    const p = `${ns}-idle`;
    expect(
      (await call('POST', `/coord/v1/streams/${p}`, { requestedBy: 't', initialShardCount: 1 })).status,
    ).toBe(201);
    await worker.scheduled(Date.now()); // the first run seeds the due index and visits the stream
    bridge.reset();
    await worker.scheduled(Date.now());
    const names = bridge.requests.map((r) => r.commands[0]?.[0]?.toUpperCase());
    expect(names).toEqual(['EVALSHA']);
    await call('DELETE', `/coord/v1/streams/${p}/groups/${p}`, { requestedBy: 't', reason: 'done' });
  });

  it('stays within its budget and leaves what it cannot afford due, until every stream is swept', async () => {
    const prefixes = Array.from({ length: 7 }, (_, i) => `${ns}-s${i}`);
    for (const p of prefixes) {
      expect(
        (await call('POST', `/coord/v1/streams/${p}`, { requestedBy: 't', initialShardCount: 1 })).status,
      ).toBe(201);
      const join = await call(
        'POST',
        `/coord/v1/streams/${p}/groups/${p}/members/m/heartbeat`,
        heartbeatBody('m', p, { epoch: 0, mv: 0 }),
      );
      expect(join.body.status).toBe('OK');
    }
    await new Promise((r) => setTimeout(r, 1200));

    const expiredAfter: number[] = [];
    for (let run = 0; run < 8 && expiredAfter.at(-1) !== prefixes.length; run++) {
      bridge.reset();
      await worker.scheduled(Date.now());
      expect(bridge.requests.length).toBeLessThanOrEqual(BUDGET);
      let expired = 0;
      for (const p of prefixes) if ((await memberState(p)) === 'EXPIRED') expired++;
      expiredAfter.push(expired);
    }
    // Several invocations were needed, each one took up what was still due and made progress.
    expect(expiredAfter.at(-1)).toBe(prefixes.length);
    expect(expiredAfter.length).toBeGreaterThan(1);
    for (let i = 1; i < expiredAfter.length; i++)
      expect(expiredAfter[i]).toBeGreaterThan(expiredAfter[i - 1]!);
    // The first run left due streams behind and said so.
    const warned = worker.logs.map(jsonLine).filter((l) => l?.msg === 'sweep' && l.level === 'warn');
    expect(warned.length).toBeGreaterThan(0);
    expect(Number(warned[0]?.backlog)).toBeGreaterThan(0);
  });
});

describe('worker > cron sweep at the Workers Paid budget', () => {
  it('visits 200 idle streams once within 1,000 subrequests, then spends one subrequest on them', async () => {
    const ns = uniquePrefix('paid');
    const bridge = await startUpstashBridge({ redisUrl: inject('redisUrl') });
    const worker = await startWorker({
      UPSTASH_REDIS_REST_URL: bridge.url,
      UPSTASH_REDIS_REST_TOKEN: bridge.token,
      COORDINATOR_OPEN_MODE: 'true',
      COORDINATOR_KEY_PREFIX: ns,
      COORDINATOR_PROVISIONING: 'false',
      COORDINATOR_SWEEP_SUBREQUESTS: '1000',
    });
    try {
      for (let i = 0; i < 200; i++) {
        const p = `${ns}-g${String(i).padStart(3, '0')}`;
        const res = await worker.fetch(`/coord/v1/streams/${p}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ requestedBy: 't', initialShardCount: 1 }),
        });
        expect(res.status).toBe(201);
      }
      // The first run seeds the due index and visits each stream once: a probe and a settle.
      bridge.reset();
      await worker.scheduled(Date.now());
      const first = bridge.requests.map((r) => r.commands[0]?.[0]?.toUpperCase());
      expect(first.length).toBeLessThanOrEqual(1000);
      expect(first.filter((n) => n === 'SMEMBERS')).toHaveLength(1);
      expect(first.filter((n) => n === 'EVALSHA').length).toBeGreaterThanOrEqual(400);
      // Nothing is due afterwards: one claim, whatever the number of streams.
      bridge.reset();
      await worker.scheduled(Date.now());
      expect(bridge.requests.map((r) => r.commands[0]?.[0]?.toUpperCase())).toEqual(['EVALSHA']);
    } finally {
      await worker.close();
      await bridge.close();
    }
  });
});
