/**
 * The built Worker refuses to serve until it is configured (docs/security.md): without the Upstash
 * endpoint, with invalid settings, or without credentials unless open mode is asked for, every
 * request answers 503 naming what to configure — and never echoes a secret.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { standaloneClient, uniquePrefix } from '../support/redis.js';
import { startUpstashBridge, type UpstashBridge } from '../support/upstash-bridge.js';
import { type RunningWorker, startWorker } from '../support/worker.js';

const PATHS = ['/actuator/health', '/coord/v1/monitoring/health', '/coord/v1/streams/orders/groups/orders'];

async function refusalOf(w: RunningWorker): Promise<string> {
  const messages = new Set<string>();
  for (const path of PATHS) {
    const res = await w.fetch(path);
    expect(res.status).toBe(503);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const body = (await res.json()) as Record<string, string>;
    expect(body).toMatchObject({ status: 'SERVICE_UNAVAILABLE', errorCode: 'COORDINATOR_NOT_CONFIGURED' });
    messages.add(body.message ?? '');
  }
  const post = await w.fetch('/coord/v1/streams/x', { method: 'POST', body: '{}' });
  expect(post.status).toBe(503);
  expect(messages.size).toBe(1);
  return [...messages][0]!;
}

describe('worker > refuses to serve until configured', () => {
  let bridge: UpstashBridge;
  const running: RunningWorker[] = [];
  const start = async (bindings: Record<string, string>) => {
    const w = await startWorker(bindings);
    running.push(w);
    return w;
  };
  beforeAll(async () => {
    bridge = await startUpstashBridge({ redisUrl: inject('redisUrl') });
  });
  afterAll(async () => {
    await Promise.all(running.map((w) => w.close()));
    await bridge.close();
  });

  it('names the missing Upstash bindings', async () => {
    const w = await start({ COORDINATOR_OPEN_MODE: 'true' });
    const message = await refusalOf(w);
    expect(message).toContain('UPSTASH_REDIS_REST_URL');
    expect(message).toContain('UPSTASH_REDIS_REST_TOKEN');
  });

  it('names invalid settings without echoing their values', async () => {
    const w = await start({
      UPSTASH_REDIS_REST_URL: bridge.url,
      UPSTASH_REDIS_REST_TOKEN: bridge.token,
      COORDINATOR_OPEN_MODE: 'true',
      COORDINATOR_HEARTBEAT_INTERVAL_MS: 'soon',
      COORDINATOR_SWEEP_SUBREQUESTS: '5',
    });
    const message = await refusalOf(w);
    expect(message).toContain('COORDINATOR_HEARTBEAT_INTERVAL_MS');
    expect(message).toContain('COORDINATOR_SWEEP_SUBREQUESTS');
    expect(message).not.toContain('soon');
  });

  it('without credentials, refuses unless COORDINATOR_OPEN_MODE=true — and says both ways out', async () => {
    const w = await start({ UPSTASH_REDIS_REST_URL: bridge.url, UPSTASH_REDIS_REST_TOKEN: bridge.token });
    const message = await refusalOf(w);
    expect(message).toContain('COORDINATOR_ADMIN_PASSWORD');
    expect(message).toContain('COORDINATOR_USERS');
    expect(message).toContain('COORDINATOR_OPEN_MODE=true');
    expect(message).not.toContain(bridge.token);
    expect(w.logs.join('\n')).not.toContain(bridge.token);
  });

  it('refuses credentials combined with open mode, without echoing the password', async () => {
    const password = `pw-${uniquePrefix('secret')}`;
    const w = await start({
      UPSTASH_REDIS_REST_URL: bridge.url,
      UPSTASH_REDIS_REST_TOKEN: bridge.token,
      COORDINATOR_ADMIN_PASSWORD: password,
      COORDINATOR_OPEN_MODE: 'true',
    });
    const message = await refusalOf(w);
    expect(message).toContain('COORDINATOR_OPEN_MODE');
    expect(message).not.toContain(password);
    expect(w.logs.join('\n')).not.toContain(password);
  });

  it('still runs the cron sweep while it refuses requests for lack of credentials', async () => {
    const ns = uniquePrefix('refusing');
    const w = await start({
      UPSTASH_REDIS_REST_URL: bridge.url,
      UPSTASH_REDIS_REST_TOKEN: bridge.token,
      COORDINATOR_KEY_PREFIX: ns,
    });
    const redis = standaloneClient();
    try {
      await redis.sadd(`${ns}:streams`, 'some-stream');
      await w.scheduled(Date.now());
      // The sweep ran: it seeded the due index from the streams index and visited the stream.
      expect(await redis.zrange(`${ns}:{#due}:at`, '0', '-1')).toEqual(['']);
    } finally {
      redis.disconnect();
    }
  });
});
