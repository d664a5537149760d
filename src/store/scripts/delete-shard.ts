/**
 * Deletes a shard stream key for `DELETE /streams/{p}` with `force`: only when the key is a
 * stream (a key of another type is not a shard this coordinator made, so it is never touched).
 *
 * KEYS[1] shard stream key
 * Returns 1 deleted, 2 the key was absent, 0 the key is not a stream (nothing done).
 */
import type { LuaScript } from './lua-script.js';

const lua = `local t = redis.call('TYPE', KEYS[1])['ok']
if t == 'none' then
  return 2
end
if t ~= 'stream' then
  return 0
end
redis.call('DEL', KEYS[1])
return 1
`;

/** Deletes a shard key if it is a stream. */
export const DELETE_SHARD: LuaScript = {
  name: 'delete-shard',
  lua,
  sha1: '1135b58a636dc921086b402446f4dd9395f2fa31',
};
