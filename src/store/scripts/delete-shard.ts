/**
 * Deletes a shard stream key for `DELETE /streams/{p}` with `force`: only when the key is a
 * stream (a key of another type is not a shard this coordinator made, so it is never touched).
 * The keys kept beside the shard in its slot go in the same script whatever the shard key holds
 * (they are ours in any case): the fenced-ack tokens (`{<shard>}:owner`) and the idempotency
 * incarnation (`{<shard>}:incarnation`), so a stream created again under the same name meets no
 * epoch of the old one and none of its markers (see `clear-shard-keys.ts`).
 *
 * KEYS[1] shard stream key; KEYS[2..] the keys kept beside it (`shardSideKeys`)
 * Returns 1 deleted, 2 the key was absent, 0 the key is not a stream (the key itself is kept).
 */
import type { LuaScript } from './lua-script.js';

const lua = `local t = redis.call('TYPE', KEYS[1])['ok']
if #KEYS > 1 then
  redis.call('DEL', unpack(KEYS, 2))
end
if t == 'none' then
  return 2
end
if t ~= 'stream' then
  return 0
end
redis.call('DEL', KEYS[1])
return 1
`;

/** Deletes a shard key if it is a stream, and the keys kept beside it. */
export const DELETE_SHARD: LuaScript = {
  name: 'delete-shard',
  lua,
  sha1: '3a89130ba542db9f68a0de864414135d0244becc',
};
