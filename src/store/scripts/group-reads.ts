/**
 * Reads of one group for its group-level steps (issue 10), each one round trip on the group's
 * slot: what an assignment round needs, and the records of the members maintenance is due for.
 *
 * ASSIGNMENT_READ — KEYS[1] K:{P}:stream, KEYS[2..13] the group's keys; ARGV[1] now (ms),
 *   ARGV[2] token, ARGV[3] lock lease (ms). Takes (or renews) the group's assignment lock with the
 *   token. Returns {0} when the stream or the group header is missing, {-5} when someone else
 *   holds the lock, else {1, rev, hb, header, liveMembers (lease ≥ now), targets, owners,
 *   deadlines+scores}.
 * MEMBERS_READ — same KEYS; ARGV = member ids. Returns {0} when the stream or the group header
 *   is missing, else {1, rev, hb, header, per member {record, target, lease, heartbeatAt, deadline}}.
 */
import type { LuaScript } from './lua-script.js';

const prelude = `local s = redis.call('HMGET', KEYS[1], 'rev', 'hb', 'layout')
if not s[1] or s[3] ~= '2' or redis.call('EXISTS', KEYS[2]) == 0 then
  return { 0 }
end
`;

const assignment = `${prelude}local lock = redis.call('GET', KEYS[13])
if lock and lock ~= ARGV[2] then
  return { -5 }
end
redis.call('SET', KEYS[13], ARGV[2], 'PX', ARGV[3])
return { 1, s[1], s[2], redis.call('HGETALL', KEYS[2]),
  redis.call('ZRANGEBYSCORE', KEYS[7], ARGV[1], '+inf'), redis.call('HGETALL', KEYS[5]),
  redis.call('HGETALL', KEYS[6]), redis.call('ZRANGE', KEYS[10], 0, -1, 'WITHSCORES') }
`;

const members = `${prelude}local out = { 1, s[1], s[2], redis.call('HGETALL', KEYS[2]) }
for _, m in ipairs(ARGV) do
  local live = redis.call('HGET', KEYS[8], m)
  local head = live and string.match(live, '^{"at":%-?%d+')
  out[#out + 1] = { redis.call('HGET', KEYS[3], m) or false, redis.call('HGET', KEYS[5], m) or false,
    redis.call('ZSCORE', KEYS[7], m) or false, head and string.sub(head, 7) or false,
    redis.call('ZSCORE', KEYS[10], m) or false }
end
return out
`;

/** Live members, targets, ownership and deadlines of a group (an assignment round's input). */
export const ASSIGNMENT_READ: LuaScript = {
  name: 'assignment-read',
  lua: assignment,
  sha1: 'fe11c8b4f496f91b1999dc1f86f530d2626f0b0d',
};

/** The records of the named members (with lease, heartbeat time, target and deadline). */
export const MEMBERS_READ: LuaScript = {
  name: 'members-read',
  lua: members,
  sha1: '278c16ae386b64b0b726deefe6fb45f922395888',
};

const due = `${prelude}local k = tonumber(ARGV[2])
local h = redis.call('HMGET', KEYS[2], 'ge', 'ae')
return { 1, redis.call('ZRANGEBYSCORE', KEYS[7], '-inf', '(' .. ARGV[1], 'LIMIT', 0, k),
  redis.call('ZRANGEBYSCORE', KEYS[10], '-inf', ARGV[1], 'LIMIT', 0, k),
  redis.call('ZRANGEBYSCORE', KEYS[11], '-inf', ARGV[1], 'LIMIT', 0, k), h[1] or false, h[2] or false }
`;

/**
 * DUE_READ — same KEYS; ARGV[1] now (ms), ARGV[2] k. Returns {0} when the stream or the group
 * header is missing, else {1, expired, deadlines, timers, groupEpoch, assignmentEpoch}: members
 * whose lease passed, whose deadline came or whose timer is due (at most k of each).
 */
export const DUE_READ: LuaScript = {
  name: 'due-read',
  lua: due,
  sha1: 'f0504fb1f23e62f0eb775753fdad21d581a97093',
};
