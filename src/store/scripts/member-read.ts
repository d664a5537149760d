/**
 * One heartbeat's read of its group, and the steady-state fast path (docs/protocol.md#concurrency) in the
 * same round trip. It reads what is O(the member's own shards): the stream's heartbeat view, the
 * group header, the member's record, target, lease, heartbeat time and deadline, the ownership
 * entries of its target and of the shards its request names with the status of each other
 * holder, and up to `k` members whose lease, deadline or timer is due (maintenance comes first).
 *
 * KEYS[1] K:{P}:stream, KEYS[2..13] the group's keys (`GROUP_KEY_PARTS` order; one slot).
 * ARGV[1] the encoded group name (unused by the script)   ARGV[2] member id   ARGV[3] now (ms)
 * ARGV[4] fast-path key ('' = no fast path)   ARGV[5] lease the fast path renews to
 * ARGV[6] progress JSON the fast path stores   ARGV[7] k (due members listed at most)
 * ARGV[8] the shards the request names, comma-separated (one argument: cheaper to pass than many)
 * ARGV[9] how long a recovery hold lasts, ms (the member lease)
 *
 * The fast path (steady-lua.ts) answers a steady heartbeat from the member's stored fingerprint
 * and renews its lease, heartbeat time and progress.
 *
 * Redis restarts: the header keeps the `run_id` of the server that last read it on
 * the full path (`rn`). Another run id means the data may be older than what members were told
 * (restart from an older snapshot or AOF, failover to a lagging replica): the header gets a
 * recovery hold until now + ARGV[9] (`rc`), during which answers grant no shard a member does
 * not already report and the fast path is off. A header without `rn` just records it. Where
 * INFO is unavailable inside scripts (not Redis), nothing is detected.
 *
 * Returns
 *   {0}                      no stream (and no group header either)
 *   {-1}                     a group header without a stream document (fails closed)
 *   {-2}                     the stream is stored in layout 1 (refused, nothing written)
 *   {-3}                     the stream document's length differs from the one recorded (altered)
 *   {-4}                     a stored target is not a shard list
 *   {-6, parts}              an index lost entries the header says it has (nothing decided)
 *   {-7}                     the group header is missing but other keys of the group are there
 *   {2, rev, hb}             the stream exists, the group header does not
 *   {3, answer}              fast path: the stored answer
 *   {1, rev, hb, header, record, target, lease, at, deadline, expired, deadlines, timers,
 *    shards, entries, holders, statuses, acked, acks, live}
 */
import { GROUP_INTEGRITY_LUA } from './group-keys-lua.js';
import type { LuaScript } from './lua-script.js';
import { STEADY_LUA } from './steady-lua.js';

const lua = `${GROUP_INTEGRITY_LUA}${STEADY_LUA}local m = ARGV[2]
local now = ARGV[3]
local fastKey = ARGV[4]
local k = tonumber(ARGV[7])
local s = redis.call('HMGET', K[1], 'rev', 'hb', 'len', 'layout')
if not s[1] then
  if redis.call('EXISTS', K[2]) == 1 then
    return { -1 }
  end
  return { 0 }
end
if s[4] ~= '2' then
  return { -2 }
end
if tonumber(s[3]) ~= redis.call('HSTRLEN', K[1], 'doc') then
  return { -3 }
end
local h = redis.call('HGETALL', K[2])
if #h == 0 then
  -- No header: a new group, unless other keys of the group are there (a lost header).
  if redis.call('EXISTS', K[3], K[4], K[5], K[6], K[7], K[11]) > 0 then
    return { -7 }
  end
  return { 2, s[1], s[2] }
end
local hf = {}
for i = 1, #h, 2 do
  hf[h[i]] = h[i + 1]
end
local rec = redis.call('HGET', K[3], m)
local tgt = redis.call('HGET', K[5], m)
local lease = redis.call('ZSCORE', K[7], m)
local answer = steadyAnswer(hf, s[1], now, k, m, rec, tgt, lease, fastKey, ARGV[5], ARGV[6])
if answer then
  return { 3, answer }
end

-- The full path decides: first make sure no index it reads went missing.
local lost = lostParts()
if lost then
  return { -6, lost }
end
readDue(now, k)

local info = redis.pcall('INFO', 'server')
local run = type(info) == 'string' and string.match(info, 'run_id:(%x+)') or nil
if run and hf.rn ~= run then
  if hf.rn then
    local hold = tostring(tonumber(now) + tonumber(ARGV[9]))
    redis.call('HSET', K[2], 'rn', run, 'rc', hold)
    h[#h + 1] = 'rc'
    h[#h + 1] = hold
  else
    redis.call('HSET', K[2], 'rn', run)
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
for part in string.gmatch(ARGV[8] or '', '%d+') do
  add(tonumber(part))
end
-- HMGET of many fields, 500 at a time (unpack has a stack limit).
local function hmget(key, fields)
  local out = {}
  for from = 1, #fields, 500 do
    local chunk = {}
    for i = from, math.min(#fields, from + 499) do
      chunk[#chunk + 1] = fields[i]
    end
    local got = redis.call('HMGET', key, unpack(chunk))
    for i = 1, #chunk do
      out[#out + 1] = got[i]
    end
  end
  return out
end
local entries = hmget(K[6], shards)
local seen = {}
local holders = {}
for i = 1, #shards do
  local id = entries[i] and string.match(entries[i], '^(.*)|[cgr]$')
  if id and id ~= m and not seen[id] then
    seen[id] = true
    holders[#holders + 1] = id
  end
end
local statuses = hmget(K[4], holders)
local _, at = liveAt(redis.call('HGET', K[8], m))
local acked, acks = 0, 0
if hf.cr then
  acked = redis.call('SISMEMBER', K[12], m)
  acks = redis.call('SCARD', K[12])
end
local live = redis.call('ZCARD', K[7])
return { 1, s[1], s[2], h, rec or false, tgt or false, lease or false, at or false,
  redis.call('ZSCORE', K[10], m) or false, expired, deadlines, timers, shards, entries, holders, statuses,
  acked, acks, live }
`;

/** The heartbeat's read of its group, answering steady heartbeats itself. */
export const MEMBER_READ: LuaScript = {
  name: 'member-read',
  lua,
  sha1: 'eb42fc3c9e03280c6411d500eee96f1028dc81a9',
};
