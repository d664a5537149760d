import { describe, expect, it } from 'vitest';
import { canConnect, freeLoopbackPort, isLoopbackHost } from '../../node/net.js';
import { findOnPath } from '../../node/redis-server.js';

describe('node adapter > network helpers', () => {
  it.each(['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1', 'LOCALHOST'])(
    'treats %s as loopback',
    (h) => expect(isLoopbackHost(h)).toBe(true),
  );

  it.each(['0.0.0.0', '::', '10.0.0.5', '192.168.1.1', 'example.com', '128.0.0.1'])(
    'treats %s as reachable from elsewhere',
    (h) => expect(isLoopbackHost(h)).toBe(false),
  );

  it('finds a free port that nothing answers on', async () => {
    const port = await freeLoopbackPort();
    expect(await canConnect('127.0.0.1', port, 300)).toBe(false);
  });

  it('finds executables on PATH and reports absence as null', () => {
    expect(findOnPath('node', process.env.PATH)).toMatch(/node$/);
    expect(findOnPath('definitely-not-a-binary-here', process.env.PATH)).toBeNull();
    expect(findOnPath('node', '')).toBeNull();
  });
});
