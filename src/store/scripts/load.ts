/**
 * The whole-stream read (layout 2): the stream hash and, per requested group, everything it
 * stores, in one consistent round trip. Used where reading the whole group is the point —
 * monitoring, admin requests, resharding passes — never by a heartbeat.
 *
 * KEYS[1] K:{P}:stream, then the 12 keys of each group ARGV names (`GROUP_KEY_PARTS` order; all
 * share the stream's hash tag, so one slot). ARGV[1] 'all' | 'named', ARGV[2..] the group names.
 * For 'all' the names must be the ones the stream's heartbeat view lists, in its order: otherwise
 * the answer is {-8, listed names} and the caller asks again with those.
 *
 * Returns {0} no stream; {-1, name} no stream but a named group's header exists; {-2} layout 1
 * (refused); else {1, rev, doc, hb, len, group…} with each group {name, 0} (no header) or
 * {name, 1, header, members, targets, leases+scores, live, deadlines+scores, acks}, {name, 2, parts}
 * when an index lost entries the header says it has, or {name, 3} when the header is missing but
 * other keys of the group are there.
 */
import { INTEGRITY_LUA } from './group-keys-lua.js';
import type { LuaScript } from './lua-script.js';

const lua = `${INTEGRITY_LUA}local function keyOf(i)
  return function(slot)
    return KEYS[1 + (i - 1) * 12 + slot]
  end
end
local function readGroup(i)
  local name = ARGV[1 + i]
  local key = keyOf(i)
  if redis.call('EXISTS', key(1)) == 0 then
    if redis.call('EXISTS', key(2), key(3), key(4), key(5), key(6), key(10)) > 0 then
      return { name, 3 }
    end
    return { name, 0 }
  end
  local lost = damaged(key)
  if lost then
    return { name, 2, lost }
  end
  return { name, 1, redis.call('HGETALL', key(1)), redis.call('HGETALL', key(2)), redis.call('HGETALL', key(4)),
    redis.call('ZRANGE', key(6), 0, -1, 'WITHSCORES'), redis.call('HGETALL', key(7)),
    redis.call('ZRANGE', key(9), 0, -1, 'WITHSCORES'), redis.call('SMEMBERS', key(11)) }
end

if redis.call('EXISTS', KEYS[1]) == 0 then
  for i = 1, #ARGV - 1 do
    if redis.call('EXISTS', keyOf(i)(1)) == 1 then
      return { -1, ARGV[1 + i] }
    end
  end
  return { 0 }
end
local s = redis.call('HMGET', KEYS[1], 'rev', 'doc', 'hb', 'len', 'layout')
if s[5] ~= '2' then
  return { -2 }
end
local out = { 1, s[1] or false, s[2] or false, s[3] or false, s[4] or false }
if ARGV[1] == 'all' then
  -- The caller named the groups it expects the stream to list; another list is answered instead.
  local ok, d = pcall(cjson.decode, s[3])
  local listed = {}
  if ok and type(d) == 'table' and type(d.g) == 'table' then
    for _, name in ipairs(d.g) do
      if type(name) == 'string' then
        listed[#listed + 1] = name
      end
    end
  end
  local same = #listed == #ARGV - 1
  for i = 1, #listed do
    same = same and listed[i] == ARGV[1 + i]
  end
  if not same then
    return { -8, listed }
  end
end
for i = 1, #ARGV - 1 do
  out[#out + 1] = readGroup(i)
end
return out
`;

/** Reads a stream and its groups whole. */
export const LOAD: LuaScript = { name: 'load', lua, sha1: '77c6a8bbc45d2b9c67af98d145afdf7f0593e6a5' };
