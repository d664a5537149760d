/**
 * Drain evidence of one shard stream in one round trip (docs/protocol.md#resharding), read-only.
 *
 * KEYS[1] shard stream key (its own slot: no coordinator key may be passed)
 * Returns {0} when the key is absent, {-1, errorText} when it is not a stream or a read failed,
 * else {1, length, entriesAdded|nil, nGroups, (name, pending|nil, lag|nil, lastDeliveredId|nil,
 * after 1|0|nil)...} where `after` says whether an entry follows the group's last-delivered-id.
 */
import type { LuaScript } from './lua-script.js';
import { READ_SHARD_LUA } from './shard-lua.js';

const lua = `${READ_SHARD_LUA}
if redis.call('EXISTS', KEYS[1]) == 0 then
  return { 0 }
end
local r, err = read(KEYS[1])
if not r then
  return { -1, err }
end
return encode(1, r)
`;

/** Reads what retirement decides on: length, entries-added, every group's pending, lag and position. */
export const SHARD_EVIDENCE: LuaScript = {
  name: 'shard-evidence',
  lua,
  sha1: '27bbbc46709cbbda9b3fe003738657e152b48352',
};
