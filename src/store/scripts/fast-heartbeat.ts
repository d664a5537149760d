/**
 * The steady-state heartbeat in one round trip (SPEC §6). O(log N) and constant bytes with
 * respect to group size: it reads one fingerprint, one group field pair, one lease score and the
 * single lowest lease, and writes one lease and one live entry.
 *
 * KEYS[1] K:{P}:group:<G>   KEYS[2] K:{P}:leases:<G>   KEYS[3] K:{P}:live:<G>   KEYS[4] K:{P}:fast:<G>
 * KEYS[5] K:{P}:stream
 * ARGV[1] memberId   ARGV[2] fingerprint key   ARGV[3] now (ms)   ARGV[4] new lease expiry (ms)
 * ARGV[5] progress JSON
 *
 * Returns the stored response text on a hit. Returns nil and writes nothing when the fingerprint
 * is missing or differs (group rewritten since, or another key), the fast-path window is closed
 * (now >= until), the member is not in the lease index, any live member's lease has passed, or
 * the stream or group document's length differs from the length its commit recorded (altered
 * outside the coordinator: the full path then reports METADATA_CORRUPT).
 */
import type { LuaScript } from './lua-script.js';

const lua = `local member = ARGV[1]
local key = ARGV[2]
local now = tonumber(ARGV[3])
local fp = redis.call('HGET', KEYS[4], member)
if not fp then
  return false
end
local g = redis.call('HMGET', KEYS[1], 'rev', 'until', 'len')
if not g[1] then
  return false
end
if tonumber(g[3]) ~= redis.call('HSTRLEN', KEYS[1], 'doc') then
  return false
end
if tonumber(redis.call('HGET', KEYS[5], 'len')) ~= redis.call('HSTRLEN', KEYS[5], 'doc') then
  return false
end
local head = g[1] .. '|' .. string.len(key) .. '|' .. key .. '|'
if string.sub(fp, 1, string.len(head)) ~= head then
  return false
end
if not (now < tonumber(g[2] or '0')) then
  return false
end
if not redis.call('ZSCORE', KEYS[2], member) then
  return false
end
if #redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[3], 'LIMIT', 0, 1) > 0 then
  return false
end
redis.call('ZADD', KEYS[2], 'XX', 'GT', ARGV[4], member)
local old = redis.call('HGET', KEYS[3], member)
local oldAt = old and tonumber(string.match(old, '^{"at":(%-?%d+)'))
if not oldAt or now >= oldAt then
  redis.call('HSET', KEYS[3], member, '{"at":' .. ARGV[3] .. ',"progress":' .. ARGV[5] .. '}')
end
return string.sub(fp, string.len(head) + 1)
`;

/** Renews a steady member's lease and progress and returns its recorded answer, or nil. */
export const FAST_HEARTBEAT: LuaScript = {
  name: 'fast-heartbeat',
  lua,
  sha1: '9a4a31d5b7deb0bc7ba29c1ab41155ef36ea5c9c',
};
