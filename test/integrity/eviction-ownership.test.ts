/**
 * Real Redis eviction (docs/running-redis.md#eviction-policy): a small `maxmemory` Redis running
 * `allkeys-lru`, filled by other keys while a few members heartbeat steadily (one crashes and
 * comes back, one joins late), the coordinator serving it because COORDINATOR_ALLOW_EVICTION is
 * set. Redis evicts the group keys that steady heartbeats never touch (holder status, owners)
 * first. Whatever it drops, no shard may ever be in the assignment of two live members: every
 * answer is checked. Members are honest: they adopt each answer, keep their shards on an error
 * answer only until their local lease (counted from the last answered send) runs out.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { type RedisServer, startRedisServer } from '../../node/redis-server.js';
import { GROUP_KEY_PARTS, groupKeyList, groupKeys, streamKeys } from '../../src/store/keys.js';
import { SimMember } from '../support/members.js';
import type { Backend } from '../support/redis.js';
import { uniquePrefix } from '../support/redis.js';
import { makeStack, manualClock, type Stack } from '../support/stack.js';

/** Coordinator-clock time between two rounds of heartbeats. */
const STEP_MS = 200;
/** Real time between two rounds: Redis' LRU clock counts whole seconds, so idleness needs real time. */
const PAUSE_MS = 100;
const FILLER_BYTES = 16 * 1024;
const MAXMEMORY = 4 * 1024 * 1024;

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function evictingRedis(): Promise<RedisServer> {
  const r = await startRedisServer({
    baseDir: join(tmpdir(), 'rsc-test-redis'),
    // More samples than the default 5 make the approximated LRU close to exact, so which keys go
    // first does not depend on luck: the idlest ones.
    args: [
      '--maxmemory',
      String(MAXMEMORY),
      '--maxmemory-policy',
      'allkeys-lru',
      '--maxmemory-samples',
      '64',
    ],
    startTimeoutMs: 20_000,
  });
  cleanup.push(() => r.stop());
  return r;
}

/** A member as the check sees it: honest, with a local lease from its last answered send. */
class Member {
  readonly sim: SimMember;
  answeredAt = Number.NEGATIVE_INFINITY;
  constructor(id: string, prefix: string) {
    this.sim = new SimMember(id, prefix, prefix);
  }
  live(now: number, leaseMs: number): boolean {
    return now - this.answeredAt < leaseMs && this.sim.owned.length > 0;
  }
}

describe('real Redis eviction > ownership', () => {
  it('never puts a shard in the assignment of two live members while allkeys-lru evicts group keys', async () => {
    const redis = await evictingRedis();
    const backend: Backend = {
      name: 'standalone',
      make: () => new Redis(redis.url, { protocol: 2, maxRetriesPerRequest: 1 }),
    };
    const clock = manualClock();
    const stack: Stack = makeStack(backend, { clock, config: { COORDINATOR_ALLOW_EVICTION: 'true' } });
    cleanup.push(() => stack.close());
    const filler = backend.make() as Redis;
    cleanup.push(async () => filler.disconnect());
    const leaseMs = stack.config.memberLeaseTtlMs;

    expect((await stack.call('GET', '/actuator/health/readiness')).status).toBe(200);
    const p = uniquePrefix('evict');
    const created = await stack.call('POST', `/coord/v1/streams/${p}`, {
      initialShardCount: 8,
      requestedBy: 't',
    });
    expect(created.status).toBe(201);

    const ns = stack.config.keyPrefix;
    const watched = [streamKeys(ns, p).stream, ...groupKeyList(groupKeys(ns, p, p))];
    const names = ['stream', ...GROUP_KEY_PARTS];
    const members = ['m0', 'm1', 'm2', 'm3', 'm4'].map((id) => new Member(id, p));
    const answers = new Map<string, number>();
    const violations: string[] = [];
    const existedOnce = new Set<string>();
    const vanished = new Set<string>();
    let fill = 0;

    const beat = async (m: Member) => {
      const sentAt = clock.now();
      const res = await m.sim.beat(stack);
      const key = res.status === 200 ? `200 ${res.body.status}` : `${res.status} ${res.body?.errorCode}`;
      answers.set(key, (answers.get(key) ?? 0) + 1);
      if (res.status === 200) m.answeredAt = sentAt;
      // The check, after every answer: the shards of live members are disjoint.
      const holder = new Map<number, string>();
      for (const other of members) {
        if (!other.live(clock.now(), leaseMs)) continue;
        for (const s of other.sim.owned) {
          const first = holder.get(s);
          if (first !== undefined)
            violations.push(`shard ${s}: ${first} and ${other.sim.id} (after ${m.sim.id}'s answer)`);
          else holder.set(s, other.sim.id);
        }
      }
    };
    const fillTo = async (bytes: number) => {
      const used = () => filler.info('memory').then((i) => Number(/used_memory:(\d+)/.exec(i)?.[1]));
      while ((await used()) < bytes) {
        const batch = filler.pipeline();
        for (let i = 0; i < 8; i++) batch.set(`filler:${p}:${fill++}`, 'x'.repeat(FILLER_BYTES));
        await batch.exec();
      }
    };
    const watch = async () => {
      for (const [i, k] of watched.entries()) {
        // EXISTS does not touch the key's LRU clock.
        if ((await filler.exists(k)) === 1) existedOnce.add(k);
        else if (existedOnce.has(k)) vanished.add(names[i]!);
      }
    };
    /** One round: `who` heartbeat, then `fillers` more keys are written; then time passes. */
    const round = async (who: Member[], fillers: number) => {
      for (const m of who) await beat(m);
      if (fillers > 0) {
        const batch = filler.pipeline();
        for (let i = 0; i < fillers; i++) batch.set(`filler:${p}:${fill++}`, 'x'.repeat(FILLER_BYTES));
        await batch.exec();
      }
      await watch();
      clock.advance(STEP_MS);
      await new Promise((r) => setTimeout(r, PAUSE_MS));
    };
    const [m0, m1, m2, m3, m4] = members as [Member, Member, Member, Member, Member];

    // m0–m2 settle, then heartbeat steadily for 2 s of real time: the keys only assignment
    // changes write (holder status, owners) grow idle, those a heartbeat reads stay fresh.
    for (let i = 0; i < 20; i++) await round([m0, m1, m2], 0);
    expect(violations).toEqual([]);
    // Other keys fill Redis to just below its limit, then every round adds a little more: Redis
    // evicts the idlest keys.
    await fillTo(MAXMEMORY - 256 * 1024);
    const gone = () => vanished.has('st') && vanished.has('o');
    for (let i = 0; i < 40 && !gone(); i++) await round([m0, m1, m2], 4);
    // The scenario's premise: the two keys no steady heartbeat touches were the first to go.
    expect([...vanished], JSON.stringify(Object.fromEntries(answers))).toEqual(
      expect.arrayContaining(['st', 'o']),
    );
    // m3 joins (an assignment change), goes silent past its lease, comes back; m4 joins late.
    for (let i = 0; i < 10; i++) await round([m0, m1, m2, m3], 4);
    for (let i = 0; i < 18; i++) await round([m0, m1, m2], 4);
    for (let i = 0; i < 12; i++) await round([m0, m1, m2, m3, m4], 4);

    const stats = await filler.info('stats');
    const evicted = Number(/evicted_keys:(\d+)/.exec(stats)?.[1] ?? 0);
    const summary = JSON.stringify({
      evicted,
      vanished: [...vanished],
      answers: Object.fromEntries(answers),
    });
    // The scenario did what it is for: Redis evicted, coordinator keys among them.
    expect(evicted, summary).toBeGreaterThan(0);
    expect(vanished.size, summary).toBeGreaterThan(0);
    expect(violations, summary).toEqual([]);
  }, 30_000);
});
