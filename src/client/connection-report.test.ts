import { Redis } from 'ioredis';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { rateLimitedWarn, serverAddress } from './connection-report.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('connection report > what nobody listens for', () => {
  it('warns in one line, then at most once every 30 s with the count left out', () => {
    const lines: string[] = [];
    vi.spyOn(console, 'warn').mockImplementation((l: string) => lines.push(l));
    let t = 0;
    const report = rateLimitedWarn(
      (v, more) => `failed: ${String(v)}${more}`,
      () => t,
    );
    report('a');
    t = 10_000;
    report('b');
    report('c');
    t = 30_000;
    report('d');
    expect(lines).toEqual([
      '[redis-stream-coordinator] failed: a',
      '[redis-stream-coordinator] failed: d (2 more since the last report)',
    ]);
  });

  it('names a server by host:port, never its URL or password', () => {
    const clients = [
      new Redis('redis://app:s3cret@127.0.0.1:6390/2', { lazyConnect: true }),
      new Redis({ host: '127.0.0.1', port: 6390, password: 's3cret', lazyConnect: true }),
    ];
    for (const c of clients) {
      expect(serverAddress(c)).toBe('127.0.0.1:6390');
      c.disconnect();
    }
  });
});
