/**
 * Adds a consumer group at the tail of a shard stream only if the key still exists (a group
 * joining while removed shards drain, docs/protocol.md#resharding): unlike `provision`, never creates the key, so
 * a shard deleted by a concurrent retirement is not brought back.
 *
 * KEYS[1] shard stream key   ARGV[1] consumer group name
 * Returns {1} created, {2} the group already existed, {3} the key is absent (nothing done),
 * {0, redisErrorText} on any other error.
 */
import type { LuaScript } from './lua-script.js';

const lua = `if redis.call('EXISTS', KEYS[1]) == 0 then
  return { 3 }
end
local added = 0
local info = redis.pcall('XINFO', 'STREAM', KEYS[1])
if type(info) == 'table' and not info.err then
  for i = 1, #info, 2 do
    if info[i] == 'entries-added' then
      added = info[i + 1]
    end
  end
end
local r = redis.pcall('XGROUP', 'CREATE', KEYS[1], ARGV[1], '$', 'ENTRIESREAD', added)
if type(r) == 'table' and r.err then
  if string.sub(r.err, 1, 9) == 'BUSYGROUP' then
    return { 2 }
  end
  return { 0, r.err }
end
return { 1 }
`;

/** Creates the group at the tail of an existing shard stream; never creates the key. */
export const PROVISION_EXISTING: LuaScript = {
  name: 'provision-existing',
  lua,
  sha1: 'c0b8976c972c6bf74c5263496c39487442caeb7b',
};
