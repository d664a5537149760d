/**
 * Compare-and-delete release of the per-stream mutex (docs/protocol.md#concurrency).
 *
 * KEYS[1] = K:{P}:lock
 * ARGV[1] = token the caller locked with
 * Returns 1 when the lock was ours and is deleted, 0 when it expired or belongs to someone else.
 */
import type { LuaScript } from './lua-script.js';

const lua = `if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`;

/** Releases the lock only if it still holds the caller's token. */
export const RELEASE_LOCK: LuaScript = {
  name: 'release-lock',
  lua,
  sha1: 'c89cee65b7ab260d98c281f3c3eb6fa7c992cdd2',
};
