import { describe, expect, it } from 'vitest';
import { createLogger } from '../../node/logger.js';
import { REDACTED, redact, redactUrl, redisEndpoint } from '../../node/redact.js';

describe('node adapter > secrets never reach the logs', () => {
  it('strips user and password from URLs wherever they appear in text', () => {
    expect(redactUrl('redis://:s3cret@10.0.0.1:6379/0')).toBe('redis://10.0.0.1:6379/0');
    expect(redactUrl('rediss://default:pw@cache.example:6380')).toBe('rediss://cache.example:6380');
    expect(redactUrl('connect to redis://u:p@h:1 failed; retry redis://x@y:2')).toBe(
      'connect to redis://h:1 failed; retry redis://y:2',
    );
    expect(redactUrl('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379');
  });

  it('strips a password holding an unencoded @ whole (the host is after the last @)', () => {
    expect(redactUrl('redis://:pa@ss@cache.example:6379')).toBe('redis://cache.example:6379');
    expect(redactUrl('rediss://user:p@ss:w@rd@10.0.0.1:6380/2 refused')).toBe(
      'rediss://10.0.0.1:6380/2 refused',
    );
    expect(redactUrl('a redis://:x@y@h:1 and redis://:z@h2:2')).toBe('a redis://h:1 and redis://h2:2');
  });

  it('reduces a Redis URL to scheme, host and port for the start-up line', () => {
    expect(redisEndpoint('redis://:pa@ss@cache.example:6379/0?name=x')).toBe('redis://cache.example:6379');
    expect(redisEndpoint('rediss://default:s3cret@[::1]:6380')).toBe('rediss://[::1]:6380');
    expect(redisEndpoint('redis://127.0.0.1')).toBe('redis://127.0.0.1');
    expect(redisEndpoint('not a url :pw@host')).not.toContain('pw');
  });

  it('replaces password, token and authorization fields at any depth', () => {
    const out = redact({
      password: 'p',
      adminPassword: 'p2',
      accessToken: 't',
      headers: { Authorization: 'Basic YWRtaW46cGFzcw==', accept: 'json' },
      tokenSecret: 's',
      list: [{ token: 'x' }],
      user: 'alice',
    });
    expect(out).toEqual({
      password: REDACTED,
      adminPassword: REDACTED,
      accessToken: REDACTED,
      headers: { Authorization: REDACTED, accept: 'json' },
      tokenSecret: REDACTED,
      list: [{ token: REDACTED }],
      user: 'alice',
    });
  });

  it('scrubs URLs inside error messages and stacks', () => {
    const out = redact({ err: new Error('connect ECONNREFUSED redis://:pw@127.0.0.1:1') }) as {
      err: { message: string; stack: string };
    };
    expect(out.err.message).toBe('connect ECONNREFUSED redis://127.0.0.1:1');
    expect(out.err.stack).not.toContain(':pw@');
  });

  it('survives cycles and BigInt', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const lines: string[] = [];
    const log = createLogger({ write: (l) => lines.push(l) });
    log('info', 'x', { cyclic, big: 10n });
    expect(JSON.parse(lines[0]!).big).toBe('10');
  });
});

describe('node adapter > structured logs', () => {
  it('writes one JSON object per line with ts, level and msg first', () => {
    const lines: string[] = [];
    const log = createLogger({ write: (l) => lines.push(l), now: () => Date.UTC(2026, 0, 2, 3, 4, 5) });
    log('info', 'listening', { url: 'http://127.0.0.1:8080' });
    expect(lines).toHaveLength(1);
    expect(Object.keys(JSON.parse(lines[0]!))).toEqual(['ts', 'level', 'msg', 'url']);
    expect(JSON.parse(lines[0]!)).toEqual({
      ts: '2026-01-02T03:04:05.000Z',
      level: 'info',
      msg: 'listening',
      url: 'http://127.0.0.1:8080',
    });
  });

  it('drops lines below the configured level', () => {
    const lines: string[] = [];
    const log = createLogger({ level: 'warn', write: (l) => lines.push(l) });
    log('debug', 'a');
    log('info', 'b');
    log('warn', 'c');
    log('error', 'd');
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual(['c', 'd']);
  });

  it('does not let fields overwrite ts, level or msg', () => {
    const lines: string[] = [];
    const log = createLogger({ write: (l) => lines.push(l) });
    log('warn', 'real', { msg: 'fake', level: 'debug', ts: 'then' });
    const parsed = JSON.parse(lines[0]!);
    expect(parsed.msg).toBe('real');
    expect(parsed.level).toBe('warn');
    expect(parsed.ts).not.toBe('then');
  });

  it('scrubs the message and the fields', () => {
    const lines: string[] = [];
    const log = createLogger({ write: (l) => lines.push(l) });
    log('info', 'using redis://:pw@h:1', { url: 'redis://u:pw@h:1', password: 'pw' });
    expect(lines[0]).not.toContain('pw');
  });
});
