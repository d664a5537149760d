/**
 * Support for the leftovers suites: a coordinator with credentials, driven as the ADMIN user
 * (create, delete, scale), a producer wired to it in process, fenced-ack claims made the way the
 * consumer SDK makes them, and a SCAN of the whole keyspace for what a stream left behind.
 */
import type { Cluster, Redis } from 'ioredis';
import { expect } from 'vitest';
import { FencedRedis } from '../../src/client/consumer-fence.js';
import { ConsumerRedis } from '../../src/client/consumer-redis.js';
import { ioredisAdapter } from '../../src/client/ioredis-adapter.js';
import { createProducer, type Producer } from '../../src/client/producer.js';
import { type AuthStack, basicFor, credentialsEnv, makeAuthStack, PASSWORDS } from '../auth/support.js';
import type { Backend } from '../support/redis.js';
import { keysMatching } from '../support/scan.js';
import { heartbeatBody } from '../support/stack.js';

const meta = { requestedBy: 'leftovers-test', reason: 'leftovers' };

/** The real stack with credentials configured; every admin call goes out as the ADMIN user. */
export class AdminStack {
  private constructor(readonly s: AuthStack) {}

  static open(backend: Backend, config: Record<string, string> = {}): AdminStack {
    return new AdminStack(makeAuthStack(backend, credentialsEnv(config)));
  }

  get redis(): Redis | Cluster {
    return this.s.stack.redis;
  }

  // biome-ignore lint/suspicious/noExplicitAny: tests index JSON bodies freely.
  async admin(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
    const r = await this.s.send(method, `/coord/v1${path}`, { authorization: basicFor('admin'), body });
    return { status: r.status, json: r.json };
  }

  /** Creates stream `p` (group `p`) with `shards` shards; fails the test otherwise. */
  async create(p: string, shards: number): Promise<void> {
    const r = await this.admin('POST', `/streams/${p}`, { initialShardCount: shards, ...meta });
    expect(r.status, JSON.stringify(r.json)).toBe(201);
  }

  /** `DELETE /streams/{p}`; fails the test unless it answered 200. */
  async delete(p: string, force: boolean): Promise<void> {
    const r = await this.admin('DELETE', `/streams/${p}`, { ...meta, force });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
  }

  /** Scales `p` to `target` and sweeps until its migration is DEPRECATED (no members: evidence alone). */
  async scaleAndSettle(p: string, target: number): Promise<void> {
    const r = await this.admin('POST', `/streams/${p}/scale`, { targetShardCount: target, ...meta });
    expect(r.status, JSON.stringify(r.json)).toBe(202);
    const id = r.json.migrations[0].reshardingId as string;
    const stack = this.s.stack;
    let state = '';
    for (let i = 0; i < 20 && state !== 'DEPRECATED'; i++) {
      await stack.coordinator.sweep(stack.clock.now());
      stack.clock.advance(stack.config.heartbeatIntervalMs);
      state = (await this.admin('GET', `/streams/${p}/groups/${p}/migrations/${id}`)).json.state;
    }
    expect(state).toBe('DEPRECATED');
  }

  /** A join heartbeat of member `m` in group `p` (as the admin, who may act as a member). */
  async join(p: string, m: string): Promise<string> {
    const body = heartbeatBody(m, p, { epoch: 0, mv: 0 });
    const r = await this.admin('POST', `/streams/${p}/groups/${p}/members/${m}/heartbeat`, body);
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    return r.json.status as string;
  }

  /** A producer of `p` over this stack's Redis, asking the coordinator in process as the admin. */
  producer(p: string): Producer {
    return createProducer({
      // A loopback name (RFC 6761): the in-process app serves it like any Host.
      coordinatorUrl: 'http://coordinator.localhost',
      streamPrefix: p,
      credentials: { username: 'admin', password: PASSWORDS.admin },
      fetch: (url, init) => this.s.app.request(url, init),
      redis: ioredisAdapter(this.redis),
      retryBackoffMs: 0,
    });
  }

  /** Claims the fenced-ack token of `key` for group `p` as the consumer SDK does before its first read. */
  claim(p: string, key: string, epoch: number, memberId: string): Promise<void> {
    return new FencedRedis(new ConsumerRedis(this.redis, p), { epoch, memberId }).claimOwnership(key);
  }

  close(): Promise<void> {
    return this.s.close();
  }
}

/** Every key whose name contains `p`: a SCAN of the whole keyspace (every master of a Cluster). */
export function keysOfStream(redis: Redis | Cluster, p: string): Promise<string[]> {
  return keysMatching(redis, `*${p}*`);
}

/** Reads and acknowledges, as group `p`, everything on shards `0..n-1` (so a plain delete may go ahead). */
export async function consumeAll(redis: Redis | Cluster, p: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const key = `${p}:${i}`;
    const reply = (await redis.xreadgroup('GROUP', p, 'reader', 'COUNT', 1000, 'STREAMS', key, '>')) as Array<
      [string, Array<[string, string[]]>]
    > | null;
    const ids = (reply?.[0]?.[1] ?? []).map(([id]) => id);
    if (ids.length > 0) await redis.xack(key, p, ...ids);
  }
}

/** Total entries over shards `0..n-1` of `p`. */
export async function totalEntries(redis: Redis | Cluster, p: string, n: number): Promise<number> {
  let total = 0;
  for (let i = 0; i < n; i++) total += await redis.xlen(`${p}:${i}`);
  return total;
}
