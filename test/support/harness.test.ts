import { afterAll, describe, expect, it } from 'vitest';
import { backends, uniquePrefix } from './redis.js';

describe.each(backends)('test Redis harness ($name)', ({ make }) => {
  const client = make();
  afterAll(async () => {
    await client.quit();
  });

  it('answers PING and round-trips a key', async () => {
    expect(await client.ping()).toBe('PONG');
    const key = `${uniquePrefix('harness')}:k`;
    await client.set(key, 'v');
    expect(await client.get(key)).toBe('v');
    await client.del(key);
  });

  it('gives distinct prefixes', () => {
    expect(uniquePrefix('a')).not.toBe(uniquePrefix('a'));
  });
});
