/**
 * Reads of one group for its group-level steps, each one round trip on the group's
 * slot: what an assignment round needs, and the records of the members maintenance is due for.
 *
 * Every one takes KEYS[1] K:{P}:stream and KEYS[2..13] the group's keys (`GROUP_KEY_PARTS` order,
 * one slot), and ARGV[1] the encoded group name (unused by the scripts); the ARGV below follow it. Every one returns {-2}, before anything
 * else, when the stream hash lacks the layout-2 marker (layout 1, which is refused); {-7} when the
 * group header is missing but other keys of the group are there; {-6, parts} when an index lost
 * entries the header says it has (nothing is read or written).
 *
 * ASSIGNMENT_READ — ARGV now (ms), token, lock lease (ms). Takes (or renews) the group's assignment lock with the
 *   token. Returns {0} when the stream or the group header is missing, {-5} when someone else
 *   holds the lock, else {1, rev, hb, header, liveMembers+leases (lease ≥ now, earliest first),
 *   targets, owners, deadlines+scores}.
 * MEMBERS_READ — ARGV member ids. Returns {0} when the stream or the group header
 *   is missing, else {1, rev, hb, header, per member {record, target, lease, heartbeatAt, deadline}}.
 */
import { GROUP_INTEGRITY_LUA, GROUP_KEYS_LUA } from './group-keys-lua.js';
import type { LuaScript } from './lua-script.js';

const prelude = `${GROUP_INTEGRITY_LUA}local s = redis.call('HMGET', KEYS[1], 'rev', 'hb', 'layout')
if not s[1] then
  return { 0 }
end
if s[3] ~= '2' then
  return { -2 }
end
if redis.call('EXISTS', K[2]) == 0 then
  if redis.call('EXISTS', K[3], K[4], K[5], K[6], K[7], K[11]) > 0 then
    return { -7 }
  end
  return { 0 }
end
local lost = lostParts()
if lost then
  return { -6, lost }
end
`;

const assignment = `${prelude}local lock = redis.call('GET', K[13])
if lock and lock ~= ARGV[3] then
  return { -5 }
end
redis.call('SET', K[13], ARGV[3], 'PX', ARGV[4])
return { 1, s[1], s[2], redis.call('HGETALL', K[2]),
  redis.call('ZRANGEBYSCORE', K[7], ARGV[2], '+inf', 'WITHSCORES'), redis.call('HGETALL', K[5]),
  redis.call('HGETALL', K[6]), redis.call('ZRANGE', K[10], 0, -1, 'WITHSCORES') }
`;

const members = `${prelude}local out = { 1, s[1], s[2], redis.call('HGETALL', K[2]) }
for i = 2, #ARGV do
  local m = ARGV[i]
  local live = redis.call('HGET', K[8], m)
  local head = live and string.match(live, '^{"at":%-?%d+')
  out[#out + 1] = { redis.call('HGET', K[3], m) or false, redis.call('HGET', K[5], m) or false,
    redis.call('ZSCORE', K[7], m) or false, head and string.sub(head, 7) or false,
    redis.call('ZSCORE', K[10], m) or false }
end
return out
`;

/** Live members, targets, ownership and deadlines of a group (an assignment round's input). */
export const ASSIGNMENT_READ: LuaScript = {
  name: 'assignment-read',
  lua: assignment,
  sha1: '2e169486b16cf502c81efb62d46bd2d13e6bc63a',
};

/** The records of the named members (with lease, heartbeat time, target and deadline). */
export const MEMBERS_READ: LuaScript = {
  name: 'members-read',
  lua: members,
  sha1: 'b1356b9063e9184e0d4fa092c4a7b3150c22c3f9',
};

const due = `${prelude}local k = tonumber(ARGV[3])
local h = redis.call('HMGET', K[2], 'ge', 'ae')
return { 1, redis.call('ZRANGEBYSCORE', K[7], '-inf', '(' .. ARGV[2], 'LIMIT', 0, k),
  redis.call('ZRANGEBYSCORE', K[10], '-inf', ARGV[2], 'LIMIT', 0, k),
  redis.call('ZRANGEBYSCORE', K[11], '-inf', ARGV[2], 'LIMIT', 0, k), h[1] or false, h[2] or false }
`;

/**
 * DUE_READ — ARGV now (ms), k. Returns {0} when the stream or the group
 * header is missing, else {1, expired, deadlines, timers, groupEpoch, assignmentEpoch}: members
 * whose lease passed, whose deadline came or whose timer is due (at most k of each).
 */
export const DUE_READ: LuaScript = {
  name: 'due-read',
  lua: due,
  sha1: '7fa86019e6ae385152f36f6ee01f79bfd58a185f',
};

const records = `${GROUP_KEYS_LUA}local s = redis.call('HMGET', KEYS[1], 'rev', 'layout')
if not s[1] then
  return { 0 }
end
if s[2] ~= '2' then
  return { -2 }
end
return { 1, redis.call('HGETALL', K[2]), redis.call('HGETALL', K[3]), redis.call('HGETALL', K[8]),
  redis.call('ZRANGE', K[7], 0, -1, 'WITHSCORES'), redis.call('HGET', K[1], 'ge:' .. ARGV[1]) or false }
`;

/**
 * GROUP_RECORDS — no further ARGV. What rebuilding a group's derived indexes starts from, read
 * whatever the indexes hold: {0} when the stream is missing, else
 * {1, header (empty when lost), members, live, leases+scores, the highest group epoch the
 * stream hash recorded}.
 */
export const GROUP_RECORDS: LuaScript = {
  name: 'group-records',
  lua: records,
  sha1: '415430016a2d90dddeb997c6cb8709be4232162e',
};
