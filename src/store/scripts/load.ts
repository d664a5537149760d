/**
 * The whole-stream read (layout 2): the stream hash and, per requested group, everything it
 * stores, in one consistent round trip. Used where reading the whole group is the point —
 * monitoring, admin requests, resharding passes — never by a heartbeat.
 *
 * KEYS[1] K:{P}:stream; for 'named' also the 12 keys of each named group (`GROUP_KEY_PARTS` order).
 * ARGV[1] 'all' | 'named'; for 'named', ARGV[2..] = the group names in KEYS order. For 'all' the
 * names come from the stream's heartbeat view and their keys are built here (same hash tag).
 *
 * Returns {0} no stream; {-1, name} no stream but a named group's header exists; {-2} layout 1;
 * else {1, rev, doc, hb, len, group…} with each group {name, 0} (no header) or
 * {name, 1, header, members, targets, leases+scores, live, deadlines+scores, acks}.
 */
import { GROUP_KEY_PARTS } from '../keys.js';
import type { LuaScript } from './lua-script.js';

const lua = `local parts = { ${GROUP_KEY_PARTS.map((p) => `'${p}'`).join(', ')} }
local function readGroup(name, key)
  if redis.call('EXISTS', key(1)) == 0 then
    return { name, 0 }
  end
  return { name, 1, redis.call('HGETALL', key(1)), redis.call('HGETALL', key(2)), redis.call('HGETALL', key(4)),
    redis.call('ZRANGE', key(6), 0, -1, 'WITHSCORES'), redis.call('HGETALL', key(7)),
    redis.call('ZRANGE', key(9), 0, -1, 'WITHSCORES'), redis.call('SMEMBERS', key(11)) }
end

if redis.call('EXISTS', KEYS[1]) == 0 then
  for i = 2, #ARGV do
    if redis.call('EXISTS', KEYS[2 + (i - 2) * 12]) == 1 then
      return { -1, ARGV[i] }
    end
  end
  return { 0 }
end
local s = redis.call('HMGET', KEYS[1], 'rev', 'doc', 'hb', 'len', 'layout')
if s[5] ~= '2' then
  return { -2 }
end
local out = { 1, s[1] or false, s[2] or false, s[3] or false, s[4] or false }

-- Mirrors encodeURIComponent, which keys.ts uses for <G>.
local function enc(v)
  return (string.gsub(v, "[^%w%-_%.!~%*'%(%)]", function(ch)
    return string.format('%%%02X', string.byte(ch))
  end))
end

if ARGV[1] == 'all' then
  local ok, d = pcall(cjson.decode, s[3])
  if ok and type(d) == 'table' and type(d.g) == 'table' then
    local base = string.sub(KEYS[1], 1, -8)
    for _, name in ipairs(d.g) do
      if type(name) == 'string' then
        local e = enc(name)
        out[#out + 1] = readGroup(name, function(slot)
          return base .. ':' .. parts[slot] .. ':' .. e
        end)
      end
    end
  end
else
  for i = 2, #ARGV do
    local first = 1 + (i - 2) * 12
    out[#out + 1] = readGroup(ARGV[i], function(slot)
      return KEYS[first + slot]
    end)
  end
end
return out
`;

/** Reads a stream and its groups whole. */
export const LOAD: LuaScript = { name: 'load', lua, sha1: 'be71c5184ca9c8e3e546dd15eaeb44313b7adfa0' };
