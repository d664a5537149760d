/**
 * A scale-in issued after Redis restarted from its AOF still completes (docs/protocol.md#scale-in-drain-evidence).
 * Redis 7.0 replays a group's reads as `XCLAIM … LASTID`, which moves the group's position but
 * not its entries-read count, so a stream that was fully read and acknowledged comes back
 * reporting a lag equal to its length. The drain evidence must see through that: nothing
 * pending and nothing after the group's last-delivered-id is drained.
 */
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { type KillableRedis, startKillableRedis } from '../faults/support/killable-redis.js';
import type { Backend } from '../support/redis.js';
import { makeStack, type Stack } from '../support/stack.js';
import {
  createStream,
  groupsOn,
  migration,
  produce,
  readingMembers,
  round,
  routedShards,
  scale,
} from './support.js';

const SHARDS = 8;
const TARGET = 4;
const RECORDS = 64;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` every 50 ms until it holds or `ms` pass. */
async function within(ms: number, what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await sleep(50);
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}`);
}

describe('resharding > scale-in after a Redis restart from the AOF', () => {
  let server: KillableRedis | undefined;
  let stack: Stack | undefined;
  afterEach(async () => {
    await stack?.close();
    await server?.close();
  });

  it('retires the removed shards although their lag came back stale', async () => {
    server = await startKillableRedis();
    const url = server.url;
    const backend: Backend = {
      name: 'standalone',
      make: () => new Redis(url, { protocol: 2, maxRetriesPerRequest: 1 }),
    };
    stack = makeStack(backend);
    const s = stack;
    const p = await createStream(s, SHARDS);
    const team = readingMembers(p, p, 2);
    for (let r = 0; r < 4; r++) await round(s, team);
    expect(team.flatMap((m) => m.owned).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);

    // Records on every shard, read and acknowledged by the group's members through the protocol.
    const written = await produce(s.redis, p, SHARDS, RECORDS);
    await round(s, team);
    const read = new Set(team.flatMap((m) => m.read));
    expect(written.filter((id) => !read.has(id))).toEqual([]);
    for (let i = 0; i < SHARDS; i++) {
      expect(await groupsOn(s.redis, `${p}:${i}`)).toEqual([{ name: p, pending: 0, lag: 0 }]);
    }

    // SIGKILL, then the same port and directory: everything comes back from the AOF.
    await server.kill();
    await server.restart();
    await within(10_000, 'the coordinator to answer again', async () => {
      await s.redis.ping();
      return (await s.call('GET', `/coord/v1/streams/${p}/groups/${p}`)).status === 200;
    });
    const after = await Promise.all(Array.from({ length: SHARDS }, (_, i) => groupsOn(s.redis, `${p}:${i}`)));
    for (const groups of after) expect(groups).toMatchObject([{ name: p, pending: 0 }]);
    const version = /redis_version:(\S+)/.exec(await s.redis.info('server'))?.[1] ?? '';
    // The state the test is about: on Redis 7.0 every shard reports its whole length as lag.
    if (version.startsWith('7.0.')) {
      expect(
        after.every((groups) => Number(groups[0]?.lag) > 0),
        JSON.stringify(after),
      ).toBe(true);
    }

    const res = await scale(s, p, TARGET);
    expect(res.status).toBe(202);
    const id = res.body.migrations[0].reshardingId as string;
    expect(await routedShards(s, p)).toBe(TARGET);

    // Members keep heartbeating and the sweep runs; the removed shards must retire, boundedly.
    let rounds = 0;
    while ((await migration(s, p, id)).state !== 'DEPRECATED' && rounds++ < 30) {
      await round(s, team);
      await s.coordinator.sweep(s.clock.now());
    }
    const m = await migration(s, p, id);
    const view = (await s.call('GET', `/coord/v1/monitoring/streams/${p}/groups/${p}/migrations`)).body;
    const why = (view.removedShards as Array<{ shardIndex: number; state: string; reason: string | null }>)
      .map((r) => `${r.shardIndex} ${r.state}: ${r.reason}`)
      .join('\n');
    expect(m.state, why).toBe('DEPRECATED');
    for (let i = TARGET; i < SHARDS; i++) expect(await s.redis.exists(`${p}:${i}`)).toBe(0);
    for (let i = 0; i < TARGET; i++) expect(await s.redis.exists(`${p}:${i}`)).toBe(1);
    // The members settle on the four remaining shards.
    const owned = () => team.flatMap((mm) => mm.owned).sort((a, b) => a - b);
    for (let r = 0; r < 20 && owned().join() !== '0,1,2,3'; r++) await round(s, team);
    expect(owned()).toEqual([0, 1, 2, 3]);
  }, 60_000);
});
