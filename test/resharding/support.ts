/**
 * Helpers for the resharding suites: streams and groups through the app, honest members that
 * read and acknowledge what they are assigned with XREADGROUP/XACK, a producer writing to the
 * routed layout, and a plain reader that drains keys outside the coordinator.
 */
import { Cluster, type Redis } from 'ioredis';
import { expect } from 'vitest';
import { CoordinatorError } from '../../src/core/errors.js';
import { SimMember } from '../support/members.js';
import { uniquePrefix } from '../support/redis.js';
import type { Stack, TestResponse } from '../support/stack.js';

/** `POST /streams/{p}` with `shards` shards; returns the prefix (the first group has the same name). */
export async function createStream(stack: Stack, shards: number, name = 'rs'): Promise<string> {
  const p = uniquePrefix(name);
  const res = await stack.call('POST', `/coord/v1/streams/${p}`, {
    initialShardCount: shards,
    requestedBy: 'test',
  });
  expect(res.status).toBe(201);
  return p;
}

/** Adds consumer group `g` to stream `p`. */
export async function addGroup(stack: Stack, p: string, g: string): Promise<void> {
  const res = await stack.call('POST', `/coord/v1/streams/${p}/groups/${g}`, { requestedBy: 'test' });
  expect(res.status).toBe(201);
}

/** `POST /streams/{p}/scale`. */
export function scale(stack: Stack, p: string, target: number): Promise<TestResponse> {
  return stack.call('POST', `/coord/v1/streams/${p}/scale`, {
    targetShardCount: target,
    requestedBy: 'test',
    reason: 'resharding suite',
  });
}

/** `POST …/migrations/{id}/rollback`. */
export function rollback(stack: Stack, p: string, g: string, id: string): Promise<TestResponse> {
  return stack.call('POST', `/coord/v1/streams/${p}/groups/${g}/migrations/${id}/rollback`, {
    requestedBy: 'test',
    reason: 'undo',
  });
}

/** `GET /monitoring/…/migrations`. */
export async function migrations(stack: Stack, p: string, g = p): Promise<TestResponse['body']> {
  const res = await stack.call('GET', `/coord/v1/monitoring/streams/${p}/groups/${g}/migrations`);
  expect(res.status).toBe(200);
  return res.body;
}

/** The stream's current migration as `GET …/migrations/{id}` answers it. */
export async function migration(stack: Stack, p: string, id: string, g = p): Promise<TestResponse['body']> {
  const res = await stack.call('GET', `/coord/v1/streams/${p}/groups/${g}/migrations/${id}`);
  expect(res.status).toBe(200);
  return res.body;
}

/** Shard count producers are told (`GET …/producer-routing`). */
export async function routedShards(stack: Stack, p: string, g = p): Promise<number> {
  const res = await stack.call('GET', `/coord/v1/streams/${p}/groups/${g}/producer-routing`);
  expect(res.status).toBe(200);
  expect(res.body.shards).toHaveLength(res.body.shardCount);
  return res.body.shardCount;
}

/** Writes `count` entries spread over shards `0..shards-1` (as a producer with that routing would). */
export async function produce(
  redis: Redis | Cluster,
  p: string,
  shards: number,
  count: number,
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = await redis.xadd(`${p}:${i % shards}`, 'NOMKSTREAM', '*', 'payload', `v${i}`);
    expect(id).not.toBeNull();
    ids.push(id!);
  }
  return ids;
}

/** Writes `count` entries to one shard key (no NOMKSTREAM check: the key must exist). */
export async function fill(redis: Redis | Cluster, key: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push((await redis.xadd(key, 'NOMKSTREAM', '*', 'payload', `b${i}`))!);
  return ids;
}

/** Reads everything new on `key` for `group` as `consumer` (`>`) and acknowledges it; returns the ids. */
export async function readAndAck(
  redis: Redis | Cluster,
  key: string,
  group: string,
  consumer: string,
): Promise<string[]> {
  const out: string[] = [];
  for (;;) {
    const reply = (await redis.xreadgroup(
      'GROUP',
      group,
      consumer,
      'COUNT',
      100,
      'STREAMS',
      key,
      '>',
    )) as Array<[string, Array<[string, string[]]>]> | null;
    const entries = reply?.[0]?.[1] ?? [];
    if (entries.length === 0) return out;
    const ids = entries.map(([id]) => id);
    await redis.xack(key, group, ...ids);
    out.push(...ids);
  }
}

/** A plain reader outside the coordinator: drains every listed key for `group`. */
export async function plainReader(
  redis: Redis | Cluster,
  p: string,
  group: string,
  shards: number[],
): Promise<string[]> {
  const out: string[] = [];
  for (const s of shards) out.push(...(await readAndAck(redis, `${p}:${s}`, group, 'plain-reader')));
  return out;
}

/** `XINFO GROUPS` of a key as `{name, pending, lag}` rows (empty when the key is missing). */
export async function groupsOn(redis: Redis | Cluster, key: string): Promise<Array<Record<string, unknown>>> {
  const reply = (await redis.xinfo('GROUPS', key).catch(() => [])) as unknown[][];
  return reply.map((row) => {
    const o: Record<string, unknown> = {};
    for (let i = 0; i + 1 < row.length; i += 2) o[String(row[i])] = row[i + 1];
    return { name: o.name, pending: o.pending, lag: o.lag };
  });
}

/** Whether a key exists. */
export async function exists(redis: Redis | Cluster, key: string): Promise<boolean> {
  return (await redis.exists(key)) === 1;
}

/** An honest member that reads and acknowledges every shard it is assigned after each heartbeat. */
export class ReadingMember extends SimMember {
  readonly read: string[] = [];

  /** Heartbeat, then XREADGROUP + XACK on each assigned shard. */
  async step(stack: Stack): Promise<TestResponse> {
    const res = await this.beat(stack);
    expect(res.status).toBe(200);
    if (this.lastStatus === 'OK') {
      for (const s of this.owned) {
        this.read.push(...(await readAndAck(stack.redis, `${this.prefix}:${s}`, this.group, this.id)));
      }
    }
    return res;
  }
}

/** `n` reading members of group `g` of stream `p`. */
export function readingMembers(p: string, g: string, n: number): ReadingMember[] {
  return Array.from({ length: n }, (_, i) => new ReadingMember(`${g}-m${i}`, p, g));
}

/** One round: every member steps, then the clock moves one heartbeat interval. */
export async function round(stack: Stack, members: ReadingMember[]): Promise<void> {
  for (const m of members) await m.step(stack);
  stack.clock.advance(stack.config.heartbeatIntervalMs);
}

/** Rounds until `done()` holds (at most `max`); returns how many were needed. */
export async function roundsUntil(
  stack: Stack,
  members: ReadingMember[],
  done: () => Promise<boolean>,
  max = 40,
): Promise<number> {
  for (let r = 0; r < max; r++) {
    if (await done()) return r;
    await round(stack, members);
  }
  expect(await done()).toBe(true);
  return max;
}

/** Sweeps until `done()` holds, moving the clock one heartbeat interval between sweeps. */
export async function sweepUntil(stack: Stack, done: () => Promise<boolean>, max = 10): Promise<void> {
  for (let r = 0; r < max; r++) {
    if (await done()) return;
    await stack.coordinator.sweep(stack.clock.now());
    stack.clock.advance(stack.config.heartbeatIntervalMs);
  }
  expect(await done()).toBe(true);
}

/**
 * Makes the coordinator's provisioning of `key` fail as a Redis refusal does (503
 * REDIS_STREAM_PROVISIONING_FAILED) until the returned function is called.
 */
export function failProvisioning(stack: Stack, key: string): () => void {
  const store = stack.store;
  const provision = store.provision.bind(store);
  store.provision = async (streamKey: string, group: string) => {
    if (streamKey === key) {
      throw new CoordinatorError('REDIS_STREAM_PROVISIONING_FAILED', `provisioning ${key} refused (test)`);
    }
    return provision(streamKey, group);
  };
  return () => {
    Reflect.deleteProperty(store, 'provision');
  };
}

/** True on a Cluster client (some checks differ by topology only in wording). */
export function isCluster(redis: Redis | Cluster): boolean {
  return redis instanceof Cluster;
}
