import { describe, expect, it } from 'vitest';
import { RedisCommandError } from './errors.js';
import { toRedisCommandError, xaddArgs, xaddOutcome } from './redis-adapter.js';

const named = (name: string, message: string) => Object.assign(new Error(message), { name });

describe('redis adapter > command encoding', () => {
  it('builds XADD … NOMKSTREAM MAXLEN ~|= N * f v …', () => {
    expect(xaddArgs(100000, true, { payload: 'x', n: '1' })).toEqual([
      'NOMKSTREAM',
      'MAXLEN',
      '~',
      '100000',
      '*',
      'payload',
      'x',
      'n',
      '1',
    ]);
    expect(xaddArgs(10, false, { a: 'b' }).slice(0, 4)).toEqual(['NOMKSTREAM', 'MAXLEN', '=', '10']);
  });

  it('reads a nil XADD reply as a missing stream key', () => {
    expect(xaddOutcome(null)).toEqual({ status: 'missing' });
    expect(xaddOutcome('5-1')).toEqual({ status: 'added', entryId: '5-1' });
  });
});

describe('redis adapter > error wrapping', () => {
  it('treats an error reply as not in doubt and not retryable', () => {
    const e = toRedisCommandError(
      named('ReplyError', 'WRONGTYPE Operation against a key holding the wrong kind of value'),
      'XADD k',
      ['ReplyError'],
    );
    expect(e).toBeInstanceOf(RedisCommandError);
    expect(e).toMatchObject({ code: 'REDIS_ERROR', inDoubt: false, retryable: false });
  });

  it('treats transient error replies as retryable', () => {
    for (const msg of [
      'LOADING Redis is loading',
      'TRYAGAIN',
      'CLUSTERDOWN The cluster is down',
      'BUSY script',
    ]) {
      expect(toRedisCommandError(named('ReplyError', msg), 'x', ['ReplyError']).retryable).toBe(true);
    }
  });

  it('treats a NOSCRIPT refusal as retriable: the script did not run, and a repeat loads it', () => {
    const e = toRedisCommandError(named('ReplyError', 'NOSCRIPT No matching script.'), 'x', ['ReplyError']);
    expect(e).toMatchObject({ inDoubt: false, retriable: true });
  });

  it('treats connection failures as in doubt and retryable', () => {
    const e = toRedisCommandError(new Error('Connection is closed.'), 'XADD k', ['ReplyError']);
    expect(e).toMatchObject({ inDoubt: true, retryable: true });
    expect(e.cause).toBeInstanceOf(Error);
  });

  it('drops the command (record payload) @upstash/redis appends to its errors', () => {
    const e = toRedisCommandError(
      named('UpstashError', 'ERR wrong number of arguments, command was: [["xadd","k","secret-payload"]]'),
      'XADD k',
      ['UpstashError'],
    );
    expect(e.message).not.toContain('secret-payload');
    expect(e.inDoubt).toBe(false);
  });
});
