/**
 * The load script: a consistent read of a stream and its groups in one round trip.
 *
 * KEYS[1] K:{P}:stream; for named groups also KEYS[4i-2 .. 4i+1] = group i's group, leases,
 * live, fast keys (fast is unused but keeps the layout of the other scripts).
 * ARGV[1] 'all' | 'named'; for 'named', ARGV[2..] = group names in KEYS order.
 * For 'all' the group names come from the stream doc's `groups` list, read in this script; their
 * keys are built here from KEYS[1] (same hash tag, so same slot on Cluster).
 *
 * Returns {0} when the stream hash does not exist, {-1, name} when it does not but a named group's
 * hash does (metadata deleted behind the coordinator's back), else
 * {1, streamRev, streamDoc, group...} with each group {name, 0} (missing) or
 * {name, 1, rev, doc, {member, score, ...} leases, {member, liveJson, ...} live}.
 */
import type { LuaScript } from './lua-script.js';

const lua = `if redis.call('EXISTS', KEYS[1]) == 0 then
  for i = 2, #ARGV do
    if redis.call('EXISTS', KEYS[(i - 1) * 4 - 2]) == 1 then
      return { -1, ARGV[i] }
    end
  end
  return { 0 }
end
local s = redis.call('HMGET', KEYS[1], 'rev', 'doc')
local out = { 1, s[1], s[2] }

local function readGroup(name, gk, lk, vk)
  if redis.call('EXISTS', gk) == 0 then
    return { name, 0 }
  end
  local h = redis.call('HMGET', gk, 'rev', 'doc')
  return { name, 1, h[1], h[2], redis.call('ZRANGE', lk, 0, -1, 'WITHSCORES'), redis.call('HGETALL', vk) }
end

-- Mirrors encodeURIComponent, which keys.ts uses for <G>.
local function enc(v)
  return (string.gsub(v, "[^%w%-_%.!~%*'%(%)]", function(ch)
    return string.format('%%%02X', string.byte(ch))
  end))
end

if ARGV[1] == 'all' then
  local ok, d = pcall(cjson.decode, s[2])
  if ok and type(d) == 'table' and type(d.groups) == 'table' then
    local base = string.sub(KEYS[1], 1, -8)
    for _, name in ipairs(d.groups) do
      if type(name) == 'string' then
        local e = enc(name)
        out[#out + 1] = readGroup(name, base .. ':group:' .. e, base .. ':leases:' .. e, base .. ':live:' .. e)
      end
    end
  end
else
  for i = 2, #ARGV do
    local k = (i - 1) * 4 - 2
    out[#out + 1] = readGroup(ARGV[i], KEYS[k], KEYS[k + 1], KEYS[k + 2])
  end
end
return out
`;

/** Reads the stream hash and the requested groups' hashes, leases and live entries. */
export const LOAD: LuaScript = { name: 'load', lua, sha1: 'be0831d10d79429598d38b898c95f0bda68d8bb8' };
