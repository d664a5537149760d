/**
 * The sweep's look at one stream: per group, whether anything is due — an expired
 * lease, a rebalance deadline, a fence lapse or prune, an assignment round — in O(log N) each,
 * so an idle stream costs one round trip whatever the size of its groups.
 *
 * KEYS[1] K:{P}:stream   ARGV[1] now (ms)
 * Returns {0} no stream; {-2} layout 1 (refused); else {1, rev, hb, group…} with each group
 * {name, exists, assignmentDue, leaseDue, deadlineDue, timerDue, roundOpen} (1/0 flags).
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
        out[#out + 1] = { name, 0, 0, 0, 0, 0, 0 }
      else
        -- A group that lost an index is reported with a lease due: the sweep's read of it finds
        -- out what is lost and rebuilds it.
        out[#out + 1] = { name, 1, flag(tonumber(h[2]) < tonumber(h[1])),
          flag(damaged(key) ~= nil or #redis.call('ZRANGEBYSCORE', key(6), '-inf', '(' .. ARGV[1], 'LIMIT', 0, 1) > 0),
          flag(#redis.call('ZRANGEBYSCORE', key(9), '-inf', ARGV[1], 'LIMIT', 0, 1) > 0),
          flag(#redis.call('ZRANGEBYSCORE', key(10), '-inf', ARGV[1], 'LIMIT', 0, 1) > 0),
          flag(h[3] ~= false) }
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
  sha1: '34ca7527c92230a1935fc0d5044954e4119effc9',
};
