/**
 * Reads of one group for its group-level steps, each one round trip on the group's
 * slot: what an assignment round needs, and the records of the members maintenance is due for.
 *
 * Every one takes KEYS[1] K:{P}:stream and ARGV[1] the encoded group name (the group's keys are
 * built from them: same slot); the ARGV below follow it. Every one returns {-2}, before anything
 * else, when the stream hash lacks the layout-2 marker (layout 1, which is refused).
 *
 * ASSIGNMENT_READ — ARGV now (ms), token, lock lease (ms). Takes (or renews) the group's assignment lock with the
 *   token. Returns {0} when the stream or the group header is missing, {-5} when someone else
 *   holds the lock, else {1, rev, hb, header, liveMembers (lease ≥ now), targets, owners,
 *   deadlines+scores}.
 * MEMBERS_READ — ARGV member ids. Returns {0} when the stream or the group header
 *   is missing, else {1, rev, hb, header, per member {record, target, lease, heartbeatAt, deadline}}.
 */
import { groupKeysLua } from './group-keys-lua.js';
import type { LuaScript } from './lua-script.js';

const prelude = `${groupKeysLua('ARGV[1]')}local s = redis.call('HMGET', KEYS[1], 'rev', 'hb', 'layout')
if not s[1] then
  return { 0 }
end
if s[3] ~= '2' then
  return { -2 }
end
if redis.call('EXISTS', K[2]) == 0 then
  return { 0 }
end
`;

const assignment = `${prelude}local lock = redis.call('GET', K[13])
if lock and lock ~= ARGV[3] then
  return { -5 }
end
redis.call('SET', K[13], ARGV[3], 'PX', ARGV[4])
return { 1, s[1], s[2], redis.call('HGETALL', K[2]),
  redis.call('ZRANGEBYSCORE', K[7], ARGV[2], '+inf'), redis.call('HGETALL', K[5]),
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
  sha1: 'cb12599623f7c1cfa6356bee73d9c44d58c52d8b',
};

/** The records of the named members (with lease, heartbeat time, target and deadline). */
export const MEMBERS_READ: LuaScript = {
  name: 'members-read',
  lua: members,
  sha1: 'd857c317d35de412a664fd3c504587c246c7cc55',
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
  sha1: 'cf34cdaa477631dba7f3fc166aa45e06ab5953b0',
};
