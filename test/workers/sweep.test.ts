/**
 * The Worker's cron sweep: bounded by its subrequest budget, resumed across invocations from the
 * cursor in Redis (isolates are not sticky), and cheap for idle groups.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { groupKeys } from '../../src/store/keys.js';
import { decodeMember } from '../../src/store/records.js';
import { standaloneClient, uniquePrefix } from '../support/redis.js';
import { heartbeatBody } from '../support/stack.js';
import { startUpstashBridge, type UpstashBridge } from '../support/upstash-bridge.js';
import { type RunningWorker, startWorker } from '../support/worker.js';

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

  it('costs 3 requests per invocation plus 1 per idle stream (an unlocked load)', async () => {
    const p = `${ns}-idle`;
    expect(
      (await call('POST', `/coord/v1/streams/${p}`, { requestedBy: 't', initialShardCount: 1 })).status,
    ).toBe(201);
    await worker.scheduled(Date.now()); // the first run saves the cursor
    bridge.reset();
    await worker.scheduled(Date.now());
    // Cursor read, stream list, one load; the cursor did not move, so it is not written.
    const names = bridge.requests.map((r) => r.commands[0]?.[0]?.toUpperCase());
    expect(names).toEqual(['GET', 'SMEMBERS', 'EVALSHA']);
    expect(await redis.get(`${ns}:sweep-cursor`)).toBe(p);
    await call('DELETE', `/coord/v1/streams/${p}/groups/${p}`, { requestedBy: 't', reason: 'done' });
  });

  it('stays within its budget and resumes where it stopped, until every stream is swept', async () => {
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
    const cursors: Array<string | null> = [];
    for (let run = 0; run < 8 && expiredAfter.at(-1) !== prefixes.length; run++) {
      bridge.reset();
      await worker.scheduled(Date.now());
      expect(bridge.requests.length).toBeLessThanOrEqual(BUDGET);
      cursors.push(await redis.get(`${ns}:sweep-cursor`));
      let expired = 0;
      for (const p of prefixes) if ((await memberState(p)) === 'EXPIRED') expired++;
      expiredAfter.push(expired);
    }
    // Several invocations were needed, each one resumed where the last stopped and made progress.
    expect(expiredAfter.at(-1)).toBe(prefixes.length);
    expect(expiredAfter.length).toBeGreaterThan(1);
    for (let i = 1; i < expiredAfter.length; i++)
      expect(expiredAfter[i]).toBeGreaterThan(expiredAfter[i - 1]!);
    // The first run stopped before the first stream it could not afford, and saved it.
    expect(cursors[0]).toBe(prefixes[expiredAfter[0]!]);
  });
});

describe('worker > cron sweep at the Workers Paid budget', () => {
  it('visits 200 idle groups within 1,000 subrequests: one load each, no lock, no write', async () => {
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
      bridge.reset();
      await worker.scheduled(Date.now());
      const names = bridge.requests.map((r) => r.commands[0]?.[0]?.toUpperCase());
      expect(names.length).toBeLessThanOrEqual(1000);
      // Cursor read, stream list, 200 loads, cursor write.
      expect(names.filter((n) => n === 'EVALSHA')).toHaveLength(200);
      expect(names.filter((n) => n === 'SET')).toHaveLength(1);
      expect(names).toHaveLength(203);
    } finally {
      await worker.close();
      await bridge.close();
    }
  });
});
