/**
 * The Worker's health routes: the same liveness, readiness and health as Node, with
 * an Upstash PING behind readiness (terminating does not apply to a Worker).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { uniquePrefix } from '../support/redis.js';
import { freePort } from '../support/redis-server.js';
import { heartbeatBody } from '../support/stack.js';
import { startUpstashBridge, type UpstashBridge } from '../support/upstash-bridge.js';
import { type RunningWorker, startWorker } from '../support/worker.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const UP = { status: 'UP', components: { redis: { status: 'UP' }, lifecycle: { status: 'UP' } } };

async function get(w: RunningWorker, path: string): Promise<{ status: number; body: unknown; text: string }> {
  const res = await w.fetch(path);
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text), text };
}

async function post(w: RunningWorker, path: string, body: unknown) {
  const res = await w.fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('worker > health', () => {
  let bridge: UpstashBridge;
  const workers: RunningWorker[] = [];
  const extraBridges: UpstashBridge[] = [];
  const start = async (bindings: Record<string, string>) => {
    const w = await startWorker({
      COORDINATOR_OPEN_MODE: 'true',
      COORDINATOR_KEY_PREFIX: uniquePrefix('wh'),
      ...bindings,
    });
    workers.push(w);
    return w;
  };
  beforeAll(async () => {
    bridge = await startUpstashBridge({ redisUrl: inject('redisUrl') });
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.close()));
    await Promise.all(extraBridges.splice(0).map((b) => b.close()));
  });
  afterAll(async () => {
    await bridge.close();
  });

  it('serves liveness, readiness and health UP while Upstash answers', async () => {
    const w = await start({ UPSTASH_REDIS_REST_URL: bridge.url, UPSTASH_REDIS_REST_TOKEN: bridge.token });
    expect(await get(w, '/actuator/health/liveness')).toMatchObject({ status: 200, body: { status: 'UP' } });
    expect(await get(w, '/actuator/health/readiness')).toMatchObject({ status: 200, body: UP });
    expect(await get(w, '/actuator/health')).toMatchObject({ status: 200, body: UP });

    // A flood shares one PING in flight and its cached result.
    await sleep(300);
    bridge.reset();
    const flood = await Promise.all(Array.from({ length: 30 }, () => get(w, '/actuator/health/readiness')));
    expect(flood.every((r) => r.status === 200)).toBe(true);
    const pings = bridge.requests.flatMap((r) => r.commands).filter((c) => c[0]?.toUpperCase() === 'PING');
    expect(pings.length).toBeGreaterThanOrEqual(1);
    expect(pings.length).toBeLessThanOrEqual(2);
    expect(w.logs.join('\n')).not.toMatch(/different request|never resolve|hung/i);
  });

  it('says "credentials refused" for a rejected token: readiness 503, requests 503 REDIS_UNAVAILABLE, no token shown', async () => {
    const token = `wrong-${randomBytes(8).toString('hex')}`;
    const w = await start({ UPSTASH_REDIS_REST_URL: bridge.url, UPSTASH_REDIS_REST_TOKEN: token });
    const ready = await get(w, '/actuator/health/readiness');
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({
      status: 'DOWN',
      components: {
        redis: { status: 'DOWN', details: { error: 'credentials refused' } },
        lifecycle: { status: 'UP' },
      },
    });
    expect((await get(w, '/actuator/health')).status).toBe(503);
    expect((await get(w, '/actuator/health/liveness')).status).toBe(200);
    const p = uniquePrefix('orders');
    const admin = await post(w, `/coord/v1/streams/${p}`, { initialShardCount: 2, requestedBy: 't' });
    const hb = await post(
      w,
      `/coord/v1/streams/${p}/groups/${p}/members/m1/heartbeat`,
      heartbeatBody('m1', p, { epoch: 0, mv: 0 }),
    );
    for (const r of [admin, hb]) {
      expect(r.status).toBe(503);
      expect(r.body.errorCode).toBe('REDIS_UNAVAILABLE');
      expect(String(r.body.message)).toContain('rejected the configured token');
    }
    const logs = w.logs.join('\n');
    expect(logs.match(/"msg":"Redis unavailable"/g)).toHaveLength(1);
    expect(logs).toContain('"reason":"credentials refused"');
    expect(`${logs}${ready.text}${JSON.stringify([admin, hb])}`).not.toContain(token);
  });

  it('is DOWN while Upstash is unreachable and UP again within a second of it returning', async () => {
    const port = await freePort();
    let own = await startUpstashBridge({ redisUrl: inject('redisUrl'), port });
    const w = await start({ UPSTASH_REDIS_REST_URL: own.url, UPSTASH_REDIS_REST_TOKEN: own.token });
    expect((await get(w, '/actuator/health/readiness')).status).toBe(200);
    const token = own.token;
    await own.close();
    const down = await get(w, '/actuator/health/readiness');
    // Within the readiness cache (250 ms) an answer may still be the last one; then it is DOWN.
    if (down.status === 200) await sleep(300);
    const after = await get(w, '/actuator/health/readiness');
    expect(after.status).toBe(503);
    expect(after.body).toMatchObject({
      components: { redis: { status: 'DOWN', details: { error: 'unreachable' } } },
    });
    expect((await get(w, '/actuator/health/liveness')).status).toBe(200);

    own = await startUpstashBridge({ redisUrl: inject('redisUrl'), port, token });
    extraBridges.push(own);
    const back = Date.now();
    let upAfter = Number.POSITIVE_INFINITY;
    while (Date.now() - back < 3000) {
      if ((await get(w, '/actuator/health/readiness')).status === 200) {
        upAfter = Date.now() - back;
        break;
      }
      await sleep(50);
    }
    expect(upAfter).toBeLessThanOrEqual(1000);
    const logs = w.logs.join('\n');
    expect(logs.match(/"msg":"Redis unavailable"/g)).toHaveLength(1);
    expect(logs.match(/"msg":"Redis reachable again"/g)).toHaveLength(1);
  }, 20_000);

  it('keeps liveness UP while it refuses to serve for lack of configuration', async () => {
    const w = await startWorker({ COORDINATOR_OPEN_MODE: 'true' });
    workers.push(w);
    expect(await get(w, '/actuator/health/liveness')).toMatchObject({ status: 200, body: { status: 'UP' } });
    const ready = await get(w, '/actuator/health/readiness');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ errorCode: 'COORDINATOR_NOT_CONFIGURED' });
  });
});
