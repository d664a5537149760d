/**
 * The steady-state fast path (docs/protocol.md#concurrency) as Lua shared by the single
 * heartbeat's read (member-read.ts) and the batch's steady read (`STEADY_READ` below), so both
 * answer a steady heartbeat by the same rule.
 *
 * A member's heartbeat is answered from its stored fingerprint when the fingerprint matches the
 * group header, the stream revision, the member's record revision, its target and the request
 * key; each shard the answer keeps pending is still held by the same member with the same status;
 * no correction round is open and no recovery hold runs; the member is in the lease index; and no
 * lease, deadline or timer is due (read only once the header's cached earliest time `nd` has
 * passed). It then renews the lease (never shortens it) and the heartbeat time and progress.
 */
import { GROUP_INTEGRITY_LUA } from './group-keys-lua.js';
import type { LuaScript } from './lua-script.js';

/**
 * Lua (after GROUP_INTEGRITY_LUA) defining `readDue(now, k)` (fills `expired`, `deadlines`,
 * `timers` once per script), `groupKey(slot)`, `liveAt(entry)`, `steadyOpen(hf, now)` (whether
 * the group lets any fast answer through) and `steadyAnswer(hf, rev, now, k, m, rec, tgt, lease,
 * fastKey, leaseTo, progress)`, the stored answer of member `m` or nil. `hf` is the header's
 * fields; a fast answer that re-armed `nd` updates `hf.nd` too, so the next member of a batch
 * sees it.
 */
export const STEADY_LUA = `local expired, deadlines, timers
local function readDue(now, k)
  if not expired then
    expired = redis.call('ZRANGEBYSCORE', K[7], '-inf', '(' .. now, 'LIMIT', 0, k)
    deadlines = redis.call('ZRANGEBYSCORE', K[10], '-inf', now, 'LIMIT', 0, k)
    timers = redis.call('ZRANGEBYSCORE', K[11], '-inf', now, 'LIMIT', 0, k)
  end
end
local function groupKey(slot)
  return K[slot + 1]
end
local function liveAt(v)
  local head = v and string.match(v, '^{"at":%-?%d+')
  return head, head and string.sub(head, 7)
end
local function steadyOpen(hf, now)
  return not hf.cr and not (hf.rc and tonumber(hf.rc) > tonumber(now))
end

-- Nothing is due while the cached earliest time ('nd') lies ahead; once it has passed, the
-- indexes are read, and when they hold nothing due after all (renewals moved the earliest lease
-- later) the answer sets the cache again, so a steady group reads them about once per lease.
local function steadyAnswer(hf, rev, now, k, m, rec, tgt, lease, fastKey, leaseTo, progress)
  if fastKey == '' or not rec or not lease or not steadyOpen(hf, now) then
    return nil
  end
  local stale = false
  if not (hf.nd == '-' or (hf.nd ~= nil and tonumber(now) < tonumber(hf.nd))) then
    readDue(now, k)
    if #expired > 0 or #deadlines > 0 or #timers > 0 then
      return nil
    end
    stale = true
  end
  local fp = redis.call('HGET', K[9], m)
  if not fp then
    return nil
  end
  local head = (hf.ge or '') .. '|' .. (hf.ae or '') .. '|' .. (hf.mv or '') .. '|' .. rev .. '|'
    .. (string.match(rec, '^(%d+)|') or '') .. '|' .. (tgt or '') .. '|' .. string.len(fastKey) .. '|'
    .. fastKey .. '|'
  if string.sub(fp, 1, string.len(head)) ~= head then
    return nil
  end
  local pos = string.len(head) + 1
  -- Each pending shard must still be held by the same member with the same status.
  local n = string.match(fp, '^(%d+)|', pos)
  if not n then
    return nil
  end
  pos = pos + string.len(n) + 1
  for _ = 1, tonumber(n) do
    local shard, status, len = string.match(fp, '^(%d+),(%a),(%d+):', pos)
    if not shard then
      return nil
    end
    pos = pos + string.len(shard) + string.len(len) + 4
    local entry = string.sub(fp, pos, pos + tonumber(len) - 1)
    pos = pos + tonumber(len) + 1
    local holder = string.match(entry, '^(.*)|[cgr]$')
    if redis.call('HGET', K[6], shard) ~= entry or redis.call('HGET', K[4], holder) ~= status then
      return nil
    end
  end
  redis.call('ZADD', K[7], 'XX', 'GT', leaseTo, m)
  if stale then
    hf.nd = nextDue(groupKey)
    redis.call('HSET', K[2], 'nd', hf.nd)
  end
  local _, at = liveAt(redis.call('HGET', K[8], m))
  if not at or tonumber(now) >= tonumber(at) then
    redis.call('HSET', K[8], m, '{"at":' .. now .. ',"progress":' .. progress .. '}')
  end
  return string.sub(fp, pos)
end
`;

const lua = `${GROUP_INTEGRITY_LUA}${STEADY_LUA}local now = ARGV[2]
local s = redis.call('HMGET', K[1], 'rev', 'layout', 'len')
if not s[1] or s[2] ~= '2' or tonumber(s[3]) ~= redis.call('HSTRLEN', K[1], 'doc') then
  return {}
end
local h = redis.call('HGETALL', K[2])
if #h == 0 then
  return {}
end
local hf = {}
for i = 1, #h, 2 do
  hf[h[i]] = h[i + 1]
end
if not steadyOpen(hf, now) then
  return {}
end
local out = {}
for i = 4, #ARGV, 3 do
  local m = ARGV[i]
  local rec = redis.call('HGET', K[3], m)
  local tgt = redis.call('HGET', K[5], m)
  local lease = redis.call('ZSCORE', K[7], m)
  out[#out + 1] = steadyAnswer(hf, s[1], now, 1, m, rec, tgt, lease, ARGV[i + 1], ARGV[3], ARGV[i + 2]) or false
end
return out
`;

/**
 * The steady heartbeats of one batch (one group, so one slot) in one call: each member's stored
 * answer where the fast path applies, renewed as a single heartbeat's fast path renews it.
 *
 * KEYS[1] K:{P}:stream, KEYS[2..13] the group's keys (`GROUP_KEY_PARTS` order; one slot).
 * ARGV[1] the encoded group name (unused)   ARGV[2] now (ms)   ARGV[3] lease the answers renew to
 * ARGV[4..] per member: member id, fast-path key, progress JSON
 *
 * Returns one entry per member, the stored answer or nil (that member takes the full path); an
 * empty list when the group lets no fast answer through or anything the full path would report
 * (missing stream or header, layout 1, an altered stream document) is there: the full path then
 * reads and reports it.
 */
export const STEADY_READ: LuaScript = {
  name: 'steady-read',
  lua,
  sha1: '5b7749c4b96027e8fbd55cba917e15ac1725e82c',
};
