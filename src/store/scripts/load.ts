/**
 * The whole-stream read (layout 2): the stream hash and, per requested group, everything it
 * stores, in one consistent round trip. Used where reading the whole group is the point —
 * monitoring, admin requests, resharding passes — never by a heartbeat.
 *
 * KEYS[1] K:{P}:stream (every group key is built from it: same hash tag, same slot).
 * ARGV[1] 'all' | 'named'; for 'named', ARGV[2..] = the group names. For 'all' the names come
 * from the stream's heartbeat view.
 *
 * Returns {0} no stream; {-1, name} no stream but a named group's header exists; {-2} layout 1
 * (refused); else {1, rev, doc, hb, len, group…} with each group {name, 0} (no header) or
 * {name, 1, header, members, targets, leases+scores, live, deadlines+scores, acks}.
 */
import { GROUP_KEY_PARTS } from '../keys.js';
import type { LuaScript } from './lua-script.js';

const lua = `local parts = { ${GROUP_KEY_PARTS.map((p) => `'${p}'`).join(', ')} }
local base = string.sub(KEYS[1], 1, -8)
-- Mirrors encodeURIComponent, which keys.ts uses for <G>.
local function enc(v)
  return (string.gsub(v, "[^%w%-_%.!~%*'%(%)]", function(ch)
    return string.format('%%%02X', string.byte(ch))
  end))
end
local function keyOf(name)
  local e = enc(name)
  return function(slot)
    return base .. ':' .. parts[slot] .. ':' .. e
  end
end
local function readGroup(name)
  local key = keyOf(name)
  if redis.call('EXISTS', key(1)) == 0 then
    return { name, 0 }
  end
  return { name, 1, redis.call('HGETALL', key(1)), redis.call('HGETALL', key(2)), redis.call('HGETALL', key(4)),
    redis.call('ZRANGE', key(6), 0, -1, 'WITHSCORES'), redis.call('HGETALL', key(7)),
    redis.call('ZRANGE', key(9), 0, -1, 'WITHSCORES'), redis.call('SMEMBERS', key(11)) }
end

if redis.call('EXISTS', KEYS[1]) == 0 then
  for i = 2, #ARGV do
    if redis.call('EXISTS', keyOf(ARGV[i])(1)) == 1 then
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
local names = {}
if ARGV[1] == 'all' then
  local ok, d = pcall(cjson.decode, s[3])
  if ok and type(d) == 'table' and type(d.g) == 'table' then
    for _, name in ipairs(d.g) do
      if type(name) == 'string' then
        names[#names + 1] = name
      end
    end
  end
else
  for i = 2, #ARGV do
    names[#names + 1] = ARGV[i]
  end
end
for _, name in ipairs(names) do
  out[#out + 1] = readGroup(name)
end
return out
`;

/** Reads a stream and its groups whole. */
export const LOAD: LuaScript = { name: 'load', lua, sha1: '4deb2eb38319cdf7eb956422fdee24d5124abdd2' };
