/**
 * Takes a mutex (a stream's, or a group's assignment lock) for `ttl` ms, or renews it when it
 * already holds the caller's token: a `SET NX` whose reply was lost and that is sent again then
 * succeeds instead of locking its own caller out until the lease ends.
 *
 * KEYS[1] the lock key   ARGV[1] token   ARGV[2] ttl (ms)
 * Returns 1 when the caller holds the lock now, 0 when someone else does.
 */
import type { LuaScript } from './lua-script.js';

const lua = `local v = redis.call('GET', KEYS[1])
if v == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if v then
  return 0
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`;

/** Acquire-or-renew of a mutex held by token. */
export const ACQUIRE_LOCK: LuaScript = {
  name: 'acquire-lock',
  lua,
  sha1: 'c24f1396eb0c4975f3ed488c01990ca2dd96dfa5',
};
