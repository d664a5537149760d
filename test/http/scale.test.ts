/**
 * A bounded variant of the real-time scale bench: 500 members × 256 shards over real
 * HTTP against two coordinator instances on one Redis, every member heartbeating at once each
 * round. Convergence is counted in rounds, not timed; every answer must be a 200.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GroupDoc, isLive } from '../../src/core/model.js';
import { createApp } from '../../src/http/app.js';
import { IoredisInspector } from '../../src/store/ioredis-inspector.js';
import { SimMember } from '../support/members.js';
import { backends, uniquePrefix } from '../support/redis.js';
import { makeStack, manualClock, type Stack, type TestResponse } from '../support/stack.js';

const MEMBERS = 500;
const SHARDS = 256;

/** A stack answered through a real loopback HTTP server. */
interface HttpStack {
  call: (method: string, path: string, body?: unknown) => Promise<TestResponse>;
  close: () => Promise<void>;
}

async function serveOverHttp(stack: Stack): Promise<HttpStack> {
  const app = createApp({
    coordinator: stack.coordinator,
    config: stack.config,
    now: stack.clock.now,
    inspector: new IoredisInspector(stack.redis),
  });
  const server = createAdaptorServer({ fetch: app.fetch, hostname: '127.0.0.1' }) as Server;
  await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    call: async (method, path, body) => {
      const res = await fetch(base + path, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text === '' ? null : JSON.parse(text) };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Every assignable shard held (current or granted) by exactly its target owner, nothing revoking. */
function converged(g: GroupDoc, running: readonly SimMember[]): boolean {
  const holders = new Map<number, string[]>();
  for (const m of Object.values(g.members)) {
    if (!isLive(m.state) && m.state !== 'LEAVING' && m.fence !== 'BLOCKING') continue;
    if (m.revoking.length > 0) return false;
    for (const s of new Set([...m.currentAssignment, ...m.grantedAssignment])) {
      holders.set(s, [...(holders.get(s) ?? []), m.memberId]);
    }
  }
  let targeted = 0;
  for (const m of running) {
    for (const s of g.targetAssignments[m.id] ?? []) {
      targeted++;
      const h = holders.get(s);
      if (h?.length !== 1 || h[0] !== m.id) return false;
    }
  }
  return targeted === SHARDS;
}

describe('scale > 500 members × 256 shards over HTTP, two instances', () => {
  const clock = manualClock();
  let a: Stack;
  let b: Stack;
  let servers: HttpStack[] = [];
  let non2xx = 0;
  let requests = 0;
  const p = uniquePrefix('scale');
  const members = Array.from(
    { length: MEMBERS },
    (_, i) => new SimMember(`m${String(i).padStart(3, '0')}`, p, p),
  );

  beforeAll(async () => {
    a = makeStack(backends[0]!, { clock, config: { COORDINATOR_MAX_SHARD_COUNT: String(SHARDS) } });
    b = makeStack(backends[0]!, {
      clock,
      namespace: a.config.keyPrefix,
      config: { COORDINATOR_MAX_SHARD_COUNT: String(SHARDS) },
    });
    servers = [await serveOverHttp(a), await serveOverHttp(b)];
    const created = await servers[0]!.call('POST', `/coord/v1/streams/${p}`, {
      initialShardCount: SHARDS,
      requestedBy: 'test',
    });
    expect(created.status).toBe(201);
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
    await a.close();
    await b.close();
  });

  /** One round: every running member heartbeats at once, half through each instance. */
  async function round(running: readonly SimMember[]): Promise<void> {
    const results = await Promise.all(running.map((m, i) => m.beat(servers[i % 2]!)));
    requests += results.length;
    non2xx += results.filter((r) => r.status !== 200).length;
    clock.advance(100);
  }

  /** Rounds until the group has converged (at most `limit`); returns how many it took. */
  async function roundsToConverge(running: readonly SimMember[], limit: number): Promise<number> {
    for (let r = 1; r <= limit; r++) {
      await round(running);
      const g = (await a.store.load(p, [p]))!.groups[p]!;
      if (converged(g, running)) return r;
    }
    return Number.POSITIVE_INFINITY;
  }

  it('converges from a cold start, after a join and after a leave, with every answer a 200', async () => {
    const cold = await roundsToConverge(members, 15);
    expect(cold).toBeLessThanOrEqual(15);

    const joiner = new SimMember('m-joiner', p, p);
    const join = await roundsToConverge([...members, joiner], 10);
    expect(join).toBeLessThanOrEqual(10);

    const left = await joiner.leave(servers[0]!);
    expect(left.status).toBe(200);
    const leave = await roundsToConverge(members, 10);
    expect(leave).toBeLessThanOrEqual(10);

    expect(non2xx).toBe(0);
    expect(requests).toBeGreaterThan(MEMBERS * 3);
    const g = (await a.store.load(p, [p]))!.groups[p]!;
    const loads = members.map((m) => g.targetAssignments[m.id]?.length ?? 0);
    expect(Math.max(...loads) - Math.min(...loads)).toBeLessThanOrEqual(1);
    const view = await servers[1]!.call('GET', `/coord/v1/monitoring/streams/${p}/groups/${p}/assignments`);
    expect(view.body.invariantViolations).toEqual([]);
    console.log(
      `scale test: converged in ${cold} rounds (cold start), ${join} (join), ${leave} (leave); ${requests} requests, ${non2xx} non-2xx`,
    );
  }, 120_000);
});
