/**
 * One heartbeat's read of its group (issue 10), and the steady-state fast path (SPEC §6) in the
 * same round trip. It reads what is O(the member's own shards): the stream's heartbeat view, the
 * group header, the member's record, target, lease, heartbeat time and deadline, the ownership
 * entries of its target and of the shards its request names with the status of each other
 * holder, and up to `k` members whose lease, deadline or timer is due (maintenance comes first).
 *
 * KEYS[1] K:{P}:stream; KEYS[2..13] the group's keys (`GROUP_KEY_PARTS` order).
 * ARGV[1] member id   ARGV[2] now (ms)   ARGV[3] fast-path key ('' = no fast path)
 * ARGV[4] lease the fast path renews to   ARGV[5] progress JSON the fast path stores
 * ARGV[6] k (due members listed at most)   ARGV[7..] shards the request names
 *
 * The fast path answers when the member's fingerprint matches the group header, the stream
 * revision, the member's record revision, its target and the request key; no correction round
 * is open; the member is in the lease index; and no lease, deadline or timer of the group is due.
 * It then renews the lease (never shortens it) and the heartbeat time and progress.
 *
 * Returns
 *   {0}                      no stream (and no group header either)
 *   {-1}                     a group header without a stream document (fails closed)
 *   {-2}                     the stream is stored in layout 1 (upgrade first)
 *   {-3}                     the stream document's length differs from the one recorded (altered)
 *   {-4}                     a stored target is not a shard list
 *   {2, rev, hb}             the stream exists, the group header does not
 *   {3, answer}              fast path: the stored answer
 *   {1, rev, hb, header, record, target, lease, at, deadline, expired, deadlines, timers,
 *    shards, entries, holders, statuses, acked, acks, live}
 */
import type { LuaScript } from './lua-script.js';

const lua = `local m = ARGV[1]
local now = ARGV[2]
local fastKey = ARGV[3]
local k = tonumber(ARGV[6])
local s = redis.call('HMGET', KEYS[1], 'rev', 'hb', 'len', 'layout')
if not s[1] then
  if redis.call('EXISTS', KEYS[2]) == 1 then
    return { -1 }
  end
  return { 0 }
end
if s[4] ~= '2' then
  return { -2 }
end
if tonumber(s[3]) ~= redis.call('HSTRLEN', KEYS[1], 'doc') then
  return { -3 }
end
local h = redis.call('HGETALL', KEYS[2])
if #h == 0 then
  return { 2, s[1], s[2] }
end
local hf = {}
for i = 1, #h, 2 do
  hf[h[i]] = h[i + 1]
end
local rec = redis.call('HGET', KEYS[3], m)
local tgt = redis.call('HGET', KEYS[5], m)
local lease = redis.call('ZSCORE', KEYS[7], m)
local expired = redis.call('ZRANGEBYSCORE', KEYS[7], '-inf', '(' .. now, 'LIMIT', 0, k)
local deadlines = redis.call('ZRANGEBYSCORE', KEYS[10], '-inf', now, 'LIMIT', 0, k)
local timers = redis.call('ZRANGEBYSCORE', KEYS[11], '-inf', now, 'LIMIT', 0, k)

local function liveAt(v)
  local head = v and string.match(v, '^{"at":%-?%d+')
  return head, head and string.sub(head, 7)
end

if fastKey ~= '' and rec and lease and not hf.cr and #expired == 0 and #deadlines == 0 and #timers == 0 then
  local fp = redis.call('HGET', KEYS[9], m)
  if fp then
    local head = (hf.ge or '') .. '|' .. (hf.ae or '') .. '|' .. (hf.mv or '') .. '|' .. s[1] .. '|'
      .. (string.match(rec, '^(%d+)|') or '') .. '|' .. (tgt or '') .. '|' .. string.len(fastKey) .. '|'
      .. fastKey .. '|'
    if string.sub(fp, 1, string.len(head)) == head then
      redis.call('ZADD', KEYS[7], 'XX', 'GT', ARGV[4], m)
      local _, at = liveAt(redis.call('HGET', KEYS[8], m))
      if not at or tonumber(now) >= tonumber(at) then
        redis.call('HSET', KEYS[8], m, '{"at":' .. now .. ',"progress":' .. ARGV[5] .. '}')
      end
      return { 3, string.sub(fp, string.len(head) + 1) }
    end
  end
end

local want = {}
local shards = {}
local function add(i)
  if i and not want[i] then
    want[i] = true
    shards[#shards + 1] = i
  end
end
if tgt then
  for part in string.gmatch(tgt, '[^,]+') do
    local a, b = string.match(part, '^(%d+)%-(%d+)$')
    if a then
      a = tonumber(a)
      b = tonumber(b)
      if b < a or b > 16383 then
        return { -4 }
      end
      for i = a, b do
        add(i)
      end
    elseif string.match(part, '^%d+$') then
      add(tonumber(part))
    else
      return { -4 }
    end
  end
end
for i = 7, #ARGV do
  add(tonumber(ARGV[i]))
end
local entries = {}
for from = 1, #shards, 500 do
  local chunk = {}
  for i = from, math.min(#shards, from + 499) do
    chunk[#chunk + 1] = shards[i]
  end
  local got = redis.call('HMGET', KEYS[6], unpack(chunk))
  for i = 1, #chunk do
    entries[#entries + 1] = got[i]
  end
end
local seen = {}
local holders = {}
for i = 1, #shards do
  local id = entries[i] and string.match(entries[i], '^(.*)|[cgr]$')
  if id and id ~= m and not seen[id] then
    seen[id] = true
    holders[#holders + 1] = id
  end
end
local statuses = {}
for from = 1, #holders, 500 do
  local chunk = {}
  for i = from, math.min(#holders, from + 499) do
    chunk[#chunk + 1] = holders[i]
  end
  local got = redis.call('HMGET', KEYS[4], unpack(chunk))
  for i = 1, #chunk do
    statuses[#statuses + 1] = got[i]
  end
end
local _, at = liveAt(redis.call('HGET', KEYS[8], m))
local acked, acks, live = 0, 0, 0
if hf.cr then
  acked = redis.call('SISMEMBER', KEYS[12], m)
  acks = redis.call('SCARD', KEYS[12])
  live = redis.call('ZCARD', KEYS[7])
end
return { 1, s[1], s[2], h, rec or false, tgt or false, lease or false, at or false,
  redis.call('ZSCORE', KEYS[10], m) or false, expired, deadlines, timers, shards, entries, holders, statuses,
  acked, acks, live }
`;

/** The heartbeat's read of its group, answering steady heartbeats itself. */
export const MEMBER_READ: LuaScript = {
  name: 'member-read',
  lua,
  sha1: '2daac4d17de1237bf268442c04c5ab125ba97688',
};
