/**
 * Renews a mutex (a stream's, or a group's assignment lock) only while it still holds the
 * caller's token: a critical section extends its short lease as it runs, and learns
 * it lost the lease instead of silently taking the lock again after someone else held it.
 *
 * KEYS[1] the lock key   ARGV[1] token   ARGV[2] ttl (ms)
 * Returns 1 when the lease was the caller's and is extended, 0 when it is not (expired or taken).
 */
import type { LuaScript } from './lua-script.js';

const lua = `if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
`;

/** Extends a mutex lease still held by token. */
export const RENEW_LOCK: LuaScript = {
  name: 'renew-lock',
  lua,
  sha1: '1a22347112065789d764e3ed6c9b5a99d9767d0a',
};
