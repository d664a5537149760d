/**
 * The fault proxy itself, against the suite's shared Redis: a dropped reply means the command
 * ran and the client saw only a reset; a cut reply arrives half; delay and blackhole hold bytes.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { standaloneClient, uniquePrefix } from '../support/redis.js';
import { type FaultProxy, startFaultProxy } from './support/fault-proxy.js';

let proxy: FaultProxy;
const direct = standaloneClient();

beforeAll(async () => {
  const { port } = direct.options;
  proxy = await startFaultProxy({ host: '127.0.0.1', port: port! });
});
afterAll(async () => {
  direct.disconnect();
  await proxy.close();
});

/** A client through the proxy that fails fast instead of retrying. */
const viaProxy = () =>
  new Redis(proxy.url, {
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    autoResendUnfulfilledCommands: false,
  });

describe('faults > fault proxy', () => {
  it('drops the reply of a command that Redis ran, then resets the connection', async () => {
    const key = uniquePrefix('proxy');
    const c = viaProxy();
    c.on('error', () => {});
    await c.ping();
    const hit = proxy.armReplyFault({ kind: 'drop', match: new RegExp(key) });
    await expect(c.set(key, 'ran')).rejects.toThrow();
    await hit;
    expect(await direct.get(key)).toBe('ran');
    c.disconnect();
  });

  it('cuts a reply halfway', async () => {
    const key = uniquePrefix('proxy');
    await direct.set(key, 'x'.repeat(1000));
    const c = viaProxy();
    c.on('error', () => {});
    const hit = proxy.armReplyFault({ kind: 'cut', match: new RegExp(key) });
    await expect(c.get(key)).rejects.toThrow();
    await hit;
    expect(proxy.stats.cutReplies).toBe(1);
    c.disconnect();
  });

  it('delays every chunk, and a blackhole answers nothing until it passes again', async () => {
    const c = viaProxy();
    c.on('error', () => {});
    await c.ping();
    proxy.setMode({ kind: 'delay', ms: 150 });
    const t0 = Date.now();
    await c.ping();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
    proxy.setMode({ kind: 'blackhole' });
    const silent = await Promise.race([
      c.ping().then(() => 'answered'),
      new Promise((r) => setTimeout(() => r('silent'), 300)),
    ]);
    expect(silent).toBe('silent');
    proxy.setMode({ kind: 'pass' });
    c.disconnect();
  });
});
