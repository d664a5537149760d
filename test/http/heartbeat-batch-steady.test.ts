/**
 * The steady heartbeats of a batch in one script call, against a private redis-server (whose
 * `INFO commandstats` counts every script run) and through the Worker over the Upstash REST
 * bridge (whose request log counts billed commands): 16 steady members are one EVALSHA, and a
 * batch that mixes steady members with members that need the full path answers each item
 * exactly as single heartbeats would, the steady ones first.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { CoordinatorEvent } from '../../src/coordinator/context.js';
import { uniquePrefix } from '../support/redis.js';
import { type StandaloneRedis, startStandalone } from '../support/redis-server.js';
import { heartbeatBody, makeStack, manualClock, type Stack } from '../support/stack.js';
import { startUpstashBridge, type UpstashBridge } from '../support/upstash-bridge.js';
import { type RunningWorker, startWorker } from '../support/worker.js';

const meta = { requestedBy: 'batch-steady-test' };
const batchPath = (p: string) => `/coord/v1/streams/${p}/groups/${p}/heartbeats`;
const singlePath = (p: string, m: string) => `/coord/v1/streams/${p}/groups/${p}/members/${m}/heartbeat`;

interface Told {
  epoch: number;
  mv: number;
  owned: number[];
}
interface Answer {
  memberId: string;
  httpStatus: number;
  heartbeat: {
    status: string;
    memberEpoch: number;
    metadataVersion: number;
    assignment: { assignedShards: Array<{ shardIndex: number }> };
  };
}

/** Members that send what their last answer told them (`body(m)` is member m's next heartbeat). */
class Fleet {
  readonly told = new Map<string, Told>();
  constructor(readonly prefix: string) {}
  body(m: string, extra: Partial<Told> = {}) {
    const t = { ...(this.told.get(m) ?? { epoch: 0, mv: 0, owned: [] }), ...extra };
    // A fixed requestId per state, so twin coordinators can be sent the very same heartbeat.
    return {
      ...heartbeatBody(m, this.prefix, t),
      requestId: `req-${m}-${t.epoch}-${t.mv}-${t.owned.join('.')}`,
    };
  }
  adopt(a: Answer): void {
    if (a.httpStatus !== 200) return;
    const h = a.heartbeat;
    this.told.set(a.memberId, {
      epoch: h.memberEpoch,
      mv: h.metadataVersion,
      owned: h.assignment.assignedShards.map((s) => s.shardIndex),
    });
  }
}

/** Heartbeats `members` in batches until one whole batch is answered on the fast path. */
async function settle(s: Stack, fleet: Fleet, members: string[], fastHits: () => number): Promise<void> {
  for (let round = 0; round < 40; round++) {
    const before = fastHits();
    const res = await s.call('POST', batchPath(fleet.prefix), {
      heartbeats: members.map((m) => fleet.body(m)),
    });
    expect(res.status).toBe(200);
    for (const a of res.body.results as Answer[]) fleet.adopt(a);
    if (fastHits() - before === members.length) return;
    s.clock.advance(500);
  }
  throw new Error('the fleet did not settle in 40 rounds');
}

describe('heartbeat batch > steady members in one script call (real Redis)', () => {
  let server: StandaloneRedis;
  let counter: Redis;
  beforeAll(async () => {
    server = await startStandalone();
    counter = new Redis(server.url);
  });
  afterAll(async () => {
    counter.disconnect();
    await server.stop();
  });
  const backend = { name: 'standalone' as const, make: () => new Redis(server.url) };

  /** Script runs (EVALSHA + EVAL) the server has executed so far. */
  async function scriptCalls(): Promise<number> {
    const info = await counter.info('commandstats');
    let n = 0;
    for (const m of info.matchAll(/^cmdstat_(evalsha|eval):calls=(\d+)/gm)) n += Number(m[2]);
    return n;
  }

  function stackWithHits(): { stack: Stack; hits: () => number } {
    let hits = 0;
    const onEvent = (e: CoordinatorEvent) => {
      if (e.type === 'fast-path' && e.hit) hits++;
    };
    const stack = makeStack(backend, { clock: manualClock(), onEvent });
    return { stack, hits: () => hits };
  }

  it('answers a steady batch of 16 members with one script call', async () => {
    const { stack, hits } = stackWithHits();
    try {
      const p = uniquePrefix('steady16');
      expect(
        (await stack.call('POST', `/coord/v1/streams/${p}`, { initialShardCount: 32, ...meta })).status,
      ).toBe(201);
      const fleet = new Fleet(p);
      const members = Array.from({ length: 16 }, (_, i) => `m${i}`);
      await settle(stack, fleet, members, hits);
      for (let round = 0; round < 3; round++) {
        stack.clock.advance(500);
        const before = await scriptCalls();
        const res = await stack.call('POST', batchPath(p), { heartbeats: members.map((m) => fleet.body(m)) });
        expect((await scriptCalls()) - before).toBe(1);
        expect(res.body.results.map((a: Answer) => a.heartbeat.status)).toEqual(Array(16).fill('OK'));
        for (const a of res.body.results as Answer[]) fleet.adopt(a);
      }
      // Every shard is held by exactly one member, as the answers say.
      const owned = [...fleet.told.values()].flatMap((t) => t.owned).sort((a, b) => a - b);
      expect(owned).toEqual(Array.from({ length: 32 }, (_, i) => i));
    } finally {
      await stack.close();
    }
  });

  it('answers a mixed batch item by item as single heartbeats in the same order would, the steady ones first', async () => {
    const single = stackWithHits();
    const batched = stackWithHits();
    try {
      // Shard keys are global: each coordinator gets its own stream (answers never name it).
      const [ps, pb] = [uniquePrefix('mixs'), uniquePrefix('mixb')];
      for (const [s, p] of [
        [single.stack, ps],
        [batched.stack, pb],
      ] as const) {
        expect(
          (await s.call('POST', `/coord/v1/streams/${p}`, { initialShardCount: 8, ...meta })).status,
        ).toBe(201);
      }
      // The same history on both: four members settle through batches.
      const fs = new Fleet(ps);
      const fb = new Fleet(pb);
      const four = ['A', 'B', 'C', 'D'];
      await settle(single.stack, fs, four, single.hits);
      await settle(batched.stack, fb, four, batched.hits);
      expect([...fs.told]).toEqual([...fb.told]);

      // A and D steady; B gives up a shard it holds (full path); E joins (full path).
      single.stack.clock.advance(500);
      batched.stack.clock.advance(500);
      const bOwned = fb.told.get('B')?.owned ?? [];
      expect(bOwned.length).toBeGreaterThan(0);
      const items = (f: Fleet) => ({
        A: f.body('A'),
        B: f.body('B', { owned: bOwned.slice(1) }),
        D: f.body('D'),
        E: f.body('E'),
      });
      const hitsBefore = batched.hits();
      const scriptsBefore = await scriptCalls();
      const res = await batched.stack.call('POST', batchPath(pb), {
        heartbeats: [items(fb).A, items(fb).B, items(fb).E, items(fb).D],
      });
      expect(res.status).toBe(200);
      // One call answered A and D; B and E took the full path (each several calls).
      expect(batched.hits() - hitsBefore).toBe(2);
      expect((await scriptCalls()) - scriptsBefore).toBeGreaterThan(1);

      // The single route, in the order the batch ran them: A, D, then B, E.
      const expected = new Map<string, unknown>();
      const si = items(fs);
      for (const m of ['A', 'D', 'B', 'E'] as const) {
        const r = await single.stack.call('POST', singlePath(ps, m), si[m]);
        expected.set(m, { memberId: m, httpStatus: r.status, heartbeat: r.body, error: null });
      }
      expect(res.body.results).toEqual(['A', 'B', 'E', 'D'].map((m) => expected.get(m)));
      expect(res.body.results.map((a: Answer) => a.heartbeat.status)).toEqual(['OK', 'OK', 'OK', 'OK']);
    } finally {
      await single.stack.close();
      await batched.stack.close();
    }
  });
});

describe('heartbeat batch > steady members in one billed command (Worker over the Upstash bridge)', () => {
  let bridge: UpstashBridge;
  let worker: RunningWorker;
  beforeAll(async () => {
    bridge = await startUpstashBridge({ redisUrl: inject('redisUrl') });
    worker = await startWorker({
      UPSTASH_REDIS_REST_URL: bridge.url,
      UPSTASH_REDIS_REST_TOKEN: bridge.token,
      COORDINATOR_OPEN_MODE: 'true',
      COORDINATOR_KEY_PREFIX: uniquePrefix('steadyw'),
    });
  });
  afterAll(async () => {
    await worker.close();
    await bridge.close();
  });

  it('answers a steady batch of 16 members with one EVALSHA', async () => {
    const p = uniquePrefix('wsteady');
    const post = async (path: string, body: unknown) => {
      const res = await worker.fetch(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as { results: Answer[] } };
    };
    expect((await post(`/coord/v1/streams/${p}`, { initialShardCount: 32, ...meta })).status).toBe(201);
    const fleet = new Fleet(p);
    const members = Array.from({ length: 16 }, (_, i) => `m${i}`);
    // Real time here: batches until one is a single request (the Worker's clock is its own).
    let steady = false;
    for (let round = 0; round < 40 && !steady; round++) {
      bridge.reset();
      const res = await post(batchPath(p), { heartbeats: members.map((m) => fleet.body(m)) });
      expect(res.status).toBe(200);
      for (const a of res.body.results) fleet.adopt(a);
      steady = bridge.counts.commands === 1;
      if (!steady) await new Promise((r) => setTimeout(r, 200));
    }
    expect(steady).toBe(true);
    bridge.reset();
    const res = await post(batchPath(p), { heartbeats: members.map((m) => fleet.body(m)) });
    expect(res.body.results.map((a) => a.heartbeat.status)).toEqual(Array(16).fill('OK'));
    expect(bridge.counts).toEqual({ requests: 1, commands: 1 });
    expect(bridge.requests[0]?.commands[0]?.[0]?.toUpperCase()).toBe('EVALSHA');
  });
});
