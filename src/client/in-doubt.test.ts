import { describe, expect, it } from 'vitest';
import { InDoubtShards } from './in-doubt.js';

const target = (i: number) => ({ shardIndex: i, streamKey: `s:${i}` });

describe('in-doubt shards', () => {
  it('remembers the first shard of an event until forgotten', () => {
    const m = new InDoubtShards({ maxEntries: 10, ttlMs: 1000, now: () => 0 });
    m.remember('e', target(3));
    m.remember('e', target(1));
    expect(m.get('e')).toEqual(target(3));
    m.forget('e');
    expect(m.get('e')).toBeUndefined();
  });

  it('drops entries older than the marker TTL', () => {
    let t = 0;
    const m = new InDoubtShards({ maxEntries: 10, ttlMs: 1000, now: () => t });
    m.remember('e', target(0));
    t = 1000;
    expect(m.get('e')).toBeUndefined();
    expect(m.size).toBe(0);
  });

  it('keeps at most maxEntries, dropping the oldest', () => {
    const m = new InDoubtShards({ maxEntries: 2, ttlMs: 1000, now: () => 0 });
    m.remember('a', target(0));
    m.remember('b', target(1));
    m.remember('c', target(2));
    expect([m.get('a'), m.get('b'), m.get('c')]).toEqual([undefined, target(1), target(2)]);
  });
});
