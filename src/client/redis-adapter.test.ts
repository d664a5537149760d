import { describe, expect, it } from 'vitest';
import { RedisCommandError } from './errors.js';
import {
  inParts,
  type ShardWrite,
  toRedisCommandError,
  type WriteOutcome,
  xaddArgs,
  xaddOutcome,
} from './redis-adapter.js';

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

describe('redis adapter > batches in parts', () => {
  const write = (key: string, i: number): ShardWrite => ({
    kind: 'xadd',
    key,
    maxLen: 100,
    approx: true,
    fields: { i: String(i) },
  });
  const shard = (key: string, n: number) => Array.from({ length: n }, (_, i) => write(key, i));

  it('sends a batch that fits as one part, untouched', async () => {
    const groups = [shard('a', 600), shard('b', 400)];
    const parts: number[][] = [];
    await inParts(groups, async (part) => {
      parts.push(part.map((g) => g.length));
      return part.map((g) => g.map((): WriteOutcome => ({ status: 'added', entryId: '1-1' })));
    });
    expect(parts).toEqual([[600, 400]]);
  });

  it('holds back the rest of a shard whose earlier part failed retriably, and sends the other shards', async () => {
    const groups = [shard('a', 1_500), shard('b', 900)];
    const sentKeys: string[][] = [];
    const lost = new RedisCommandError('connection lost', { retriable: true, inDoubt: true });
    const out = await inParts(groups, async (part) => {
      sentKeys.push(part.map((g) => `${g[0]!.key}×${g.length}`));
      return part.map((g) =>
        g.map(
          (w): WriteOutcome =>
            w.key === 'a' ? { status: 'error', error: lost } : { status: 'added', entryId: '1-1' },
        ),
      );
    });
    // Parts of 1,000: a's first 1,000; a's last 500 (held back, not sent) with b's first 500; b's last 400.
    expect(sentKeys).toEqual([['a×1000'], ['b×500'], ['b×400']]);
    expect(out.map((g) => g.length)).toEqual([1_500, 900]);
    expect(out[0]!.slice(0, 1_000).every((o) => o.status === 'error' && o.error === lost)).toBe(true);
    for (const o of out[0]!.slice(1_000)) {
      expect(o.status === 'error' && { retriable: o.error.retriable, inDoubt: o.error.inDoubt }).toEqual({
        retriable: true,
        inDoubt: false,
      });
    }
    expect(out[1]!.every((o) => o.status === 'added')).toBe(true);
  });
});
