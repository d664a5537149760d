/**
 * The sweep's look at one stream the due index named: per group, whether anything is due — an
 * expired lease, a rebalance deadline, a fence lapse or prune, an assignment round — and when it
 * next will be, in O(log N) each, so a visit costs one round trip whatever the size of its groups.
 *
 * KEYS[1] K:{P}:stream   ARGV[1] now (ms)
 * Returns {0} no stream; {-2} layout 1 (refused); else {1, rev, hb, group…} with each group
 * {name, exists, assignmentDue, leaseDue, deadlineDue, timerDue, roundOpen} (1/0 flags) and the
 * earliest time anything of it falls due (`now` when something is due already; false: never),
 * which the sweep records in the due index.
 */
import { GROUP_KEY_PARTS } from '../keys.js';
import { INTEGRITY_LUA } from './group-keys-lua.js';
import type { LuaScript } from './lua-script.js';

const lua = `${INTEGRITY_LUA}local parts = { ${GROUP_KEY_PARTS.map((p) => `'${p}'`).join(', ')} }
local s = redis.call('HMGET', KEYS[1], 'rev', 'hb', 'layout')
if not s[1] then
  return { 0 }
end
if s[3] ~= '2' then
  return { -2 }
end
local function enc(v)
  return (string.gsub(v, "[^%w%-_%.!~%*'%(%)]", function(ch)
    return string.format('%%%02X', string.byte(ch))
  end))
end
local function flag(b)
  if b then
    return 1
  end
  return 0
end
local now = tonumber(ARGV[1])
-- The lowest score of a sorted set plus \`after\`, or nil when it is empty.
local function first(k, after)
  local r = redis.call('ZRANGE', k, 0, 0, 'WITHSCORES')
  return r[2] and tonumber(r[2]) + after or nil
end
local function earliest(a, b)
  if not a then
    return b
  end
  if not b then
    return a
  end
  return math.min(a, b)
end
local out = { 1, s[1], s[2] }
local ok, d = pcall(cjson.decode, s[2])
if ok and type(d) == 'table' and type(d.g) == 'table' then
  local base = string.sub(KEYS[1], 1, -8)
  for _, name in ipairs(d.g) do
    if type(name) == 'string' then
      local e = enc(name)
      local function key(slot)
        return base .. ':' .. parts[slot] .. ':' .. e
      end
      local h = redis.call('HMGET', key(1), 'ge', 'ae', 'cr')
      if not h[1] then
        out[#out + 1] = { name, 0, 0, 0, 0, 0, 0, false }
      else
        -- A lease is due once it has passed (score < now), a deadline or timer at its score.
        local lease, deadline, timer = first(key(6), 1), first(key(9), 0), first(key(10), 0)
        local roundDue = tonumber(h[2]) < tonumber(h[1])
        -- A group that lost an index is reported with a lease due: the sweep's read of it finds
        -- out what is lost and rebuilds it.
        local lost = damaged(key) ~= nil
        local nextAt = earliest(earliest(lease, deadline), timer)
        if roundDue or lost then
          nextAt = now
        end
        out[#out + 1] = { name, 1, flag(roundDue), flag(lost or (lease and lease <= now)),
          flag(deadline and deadline <= now), flag(timer and timer <= now), flag(h[3] ~= false),
          nextAt and string.format('%d', nextAt) or false }
      end
    end
  end
end
return out
`;

/** Per group of a stream: is any maintenance or assignment round due? */
export const STREAM_PROBE: LuaScript = {
  name: 'stream-probe',
  lua,
  sha1: '8e5a22ac81b0f9bce40ff683170ff52eecbf7b1c',
};
