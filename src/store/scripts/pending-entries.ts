/**
 * `XPENDING key group [IDLE min] start end count [consumer]` (the detailed form) of one shard
 * stream, for the pending-entries monitoring route (docs/protocol.md#monitoring-views). Read-only.
 * A missing key and a missing group are told apart (both are NOGROUP to XPENDING), so the route can
 * say which one an operator has to look at.
 *
 * KEYS  the shard stream key
 * ARGV  group, min idle ms ('' for none), start, end, count, consumer ('' for every consumer)
 * Returns {0} when the key does not exist, {1} when the group is not on it, {2, entries} on
 * success (each entry `[id, consumer, idle ms, deliveries]`), {3} for any other error reply.
 */
import type { LuaScript } from './lua-script.js';

const lua = `if redis.call('EXISTS', KEYS[1]) == 0 then
  return {0}
end
local args = {'XPENDING', KEYS[1], ARGV[1]}
if ARGV[2] ~= '' then
  args[#args + 1] = 'IDLE'
  args[#args + 1] = ARGV[2]
end
args[#args + 1] = ARGV[3]
args[#args + 1] = ARGV[4]
args[#args + 1] = ARGV[5]
if ARGV[6] ~= '' then
  args[#args + 1] = ARGV[6]
end
local r = redis.pcall(unpack(args))
if type(r) == 'table' and r.err then
  if string.sub(r.err, 1, 7) == 'NOGROUP' then
    return {1}
  end
  return {3}
end
return {2, r}
`;

/** The detailed `XPENDING` of one shard stream and group. */
export const PENDING_ENTRIES: LuaScript = {
  name: 'pending-entries',
  lua,
  sha1: '7bb31ce68e4e89a3fcec79eb954f92feb1d58c59',
};
