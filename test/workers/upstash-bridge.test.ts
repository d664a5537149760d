/**
 * The REST bridge speaks the Upstash protocol the way @upstash/redis expects it (TOOLCHAIN
 * "The Upstash REST protocol"): single commands, pipelines and transactions with the real
 * client, base64 at every nesting level with integers and nil kept, binary values intact, Redis
 * error text passed through, and the bearer token enforced.
 */
import type { Redis as IoRedis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createUpstashClient } from '../../src/store/upstash-client.js';
import { standaloneClient, uniquePrefix } from '../support/redis.js';
import { startUpstashBridge, type UpstashBridge } from '../support/upstash-bridge.js';

describe('test support > Upstash REST bridge', () => {
  let bridge: UpstashBridge;
  let redis: IoRedis;
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${bridge.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bridge.token}`, 'upstash-encoding': 'base64', ...headers },
      body: JSON.stringify(body),
    });
  const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');

  beforeAll(async () => {
    bridge = await startUpstashBridge({ redisUrl: inject('redisUrl') });
    redis = standaloneClient();
  });
  afterAll(async () => {
    await bridge.close();
    redis.disconnect();
  });

  it('serves the real client: commands, pipelines and multi-exec, numbers stringified', async () => {
    const client = createUpstashClient({ url: bridge.url, token: bridge.token });
    const k = uniquePrefix('bridge');
    expect(await client.set(`${k}:a`, 'ü{"json":1}')).toBe('OK');
    expect(await client.get(`${k}:a`)).toBe('ü{"json":1}');
    const p = client.pipeline();
    p.set(`${k}:n`, 41);
    p.get(`${k}:n`);
    p.get(`${k}:missing`);
    expect(await p.exec()).toEqual(['OK', '41', null]);
    const m = client.multi();
    m.sadd(`${k}:s`, 'x', 'y');
    m.smembers(`${k}:s`);
    const [added, members] = (await m.exec()) as [number, string[]];
    expect(added).toBe(2);
    expect([...members].sort()).toEqual(['x', 'y']);
    expect(bridge.requests.map((r) => r.path)).toContain('/multi-exec');
    expect(bridge.requests.find((r) => r.path === '/pipeline')?.commands[0]).toEqual(['set', `${k}:n`, '41']);
  });

  it('encodes every string at every level in base64, keeps integers and nil, and keeps binary bytes', async () => {
    const k = uniquePrefix('enc');
    const binary = Buffer.from([0, 255, 128, 10, 13, 0xc3]);
    await redis.set(`${k}:bin`, binary);
    const one = await post('/', ['GET', `${k}:bin`]);
    expect(one.status).toBe(200);
    expect(await one.json()).toEqual({ result: b64(binary) });
    const nested = await post('/', ['EVAL', "return {1, 'two', {false, 'ü'}}", '0']);
    expect(await nested.json()).toEqual({ result: [1, b64('two'), [null, b64('ü')]] });
    const nil = await post('/', ['GET', `${k}:none`]);
    expect(await nil.json()).toEqual({ result: null });
    const plain = await fetch(`${bridge.url}/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bridge.token}` },
      body: JSON.stringify(['ECHO', 'plain ü']),
    });
    expect(await plain.json()).toEqual({ result: 'plain ü' });
  });

  it('passes Redis error text through unchanged, per command in pipelines', async () => {
    const res = await post('/', ['EVALSHA', 'ffffffffffffffffffffffffffffffffffffffff', 0]);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/^NOSCRIPT /);
    const k = uniquePrefix('err');
    await redis.set(k, 'v');
    const pipe = await post('/pipeline', [
      ['GET', k],
      ['LPUSH', k, 'x'],
    ]);
    expect(pipe.status).toBe(200);
    const [ok, err] = (await pipe.json()) as Array<{ result?: unknown; error?: string }>;
    expect(ok).toEqual({ result: b64('v') });
    expect(err?.error).toMatch(/^WRONGTYPE /);
  });

  it('refuses a missing or wrong bearer token with 401', async () => {
    expect((await post('/', ['PING'], { authorization: 'Bearer nope' })).status).toBe(401);
    const none = await fetch(`${bridge.url}/`, { method: 'POST', body: '["PING"]' });
    expect(none.status).toBe(401);
  });
});
