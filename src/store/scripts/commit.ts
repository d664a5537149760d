/**
 * The commit script of layout 2: runs a list of checks — every one must hold, or
 * nothing is written — then a list of writes. It decides nothing: the plan comes from
 * `core/commit-plan.ts` through `commit-args.ts`, so heartbeats, maintenance, assignment rounds
 * and stream-wide changes all commit through this one script.
 *
 * KEYS[1..3]           K:{P}:stream, K:{P}:lock, K:{P}:commit; then each group's 12 keys in
 *                      `GROUP_KEY_PARTS` order (header, members, status, targets, owners, leases,
 *                      live, fast, deadlines, timers, acks, assignLock). Every key is declared and
 *                      all share the stream's hash tag (one slot).
 * ARGV[1]              number of groups n; ARGV[2..n+1] their encoded names (the stream hash
 *                      keeps each group's highest epoch as `ge:<name>`); then operations: opcode,
 *                      group index (0 = stream), args.
 *
 * In doubt: `ct token ms` (stream-wide plans) records the plan's one-time token in
 * K:{P}:commit for ms; a plan whose token is already there was applied by an earlier send of the
 * same call (lost reply, client resend) and answers {2, …} as applied, writing nothing. `lk token`
 * requires the stream mutex K:{P}:lock to hold token, else {-1, index}: a section that lost its
 * lease never commits.
 *
 * Checks: lk stream mutex · sx stream absent · sr rev (and layout 2) · ge/gn header exists/absent · rr member rev ·
 * ti member target · te member target (absent counts as empty) · di member deadline score · si member
 * holder status · oi shard entry · om shard member (absent or that member's) · la member lease
 * (absent or ≤) · lb member n (in the lease index, or fewer than n members there: the member
 * quota of a join) · ri round · ki assignment-lock token. `-` stands for "absent".
 * Writes: sd doc head (rev+1) · sX delete stream · sp pass time · gc ge ae mv at (create header, with the Redis run id `rn` the member read compares) ·
 * gX delete group · hi field n · hs field value · hn field value (if absent) · hd field ·
 * ae epoch at (the assignment epoch; `pa`, the oldest unassigned change, becomes at if the
 * group epoch is still ahead, else is cleared) · ms member value · mj member value
 * floor (a joiner's record, its epoch set to max(floor, the group epoch after this commit)) · md member ·
 * ss member status · ts/td member target · os shard entry · or shard member (delete if its) ·
 * ls member lease (GT) · lr member · vs member at progress ('' keeps the stored progress) ·
 * ds/dn member at (NX) · dr member · zs member at · zr member · as member · ax · fs member value ·
 * kr token ms (the assignment lock, if still the token's: released for 0, else kept for ms) ·
 * kc token ge ms (the same, released only if the group epoch is still ge, else kept for ms) ·
 * dm prefix at (lowers the stream's time in the due index, whose three keys then follow the
 * groups' in KEYS: only where every key shares one slot, see `due-index.ts`).
 *
 * Returns {1, streamRev, ge1, ae1, mv1, ge2, …} (each group's header after the writes; 2 instead
 * of 1 for a plan already applied), {0, index} naming the first check that failed, or {-1, index}
 * when the mutex is not the plan's (nothing written).
 */
import { MARK_DUE_LUA } from './due-index.js';
import { INTEGRITY_LUA } from './group-keys-lua.js';
import type { LuaScript } from './lua-script.js';

const lua = `${INTEGRITY_LUA}${MARK_DUE_LUA}local arity = { lk = 1, ct = 2, sx = 0, sr = 1, ge = 0, gn = 0, rr = 2, ti = 2, te = 2, di = 2, si = 2, oi = 2, om = 2, la = 2, lb = 2, ri = 1, ki = 1,
  sd = 2, sX = 0, sp = 1, gc = 4, gX = 0, hi = 2, hs = 2, hn = 2, hd = 1, ae = 2, ms = 2, mj = 3, md = 1, ss = 2, ts = 2, td = 1,
  os = 2, ['or'] = 2, kr = 2, kc = 3, ls = 2, lr = 1, vs = 3, ds = 2, dn = 2, dr = 1, zs = 2, zr = 1, as = 1, ax = 0, fs = 2, kD = 1, mc = 1, dm = 2 }
local check = { lk = true, sx = true, sr = true, ge = true, gn = true, rr = true, ti = true, te = true, di = true, si = true, oi = true, om = true,
  la = true, lb = true, ri = true, ki = true, mc = true }
local groups = tonumber(ARGV[1])
local keys = {}
for g = 1, groups do
  keys[g] = {}
  for slot = 1, 12 do
    keys[g][slot] = KEYS[3 + (g - 1) * 12 + slot]
  end
end
local ops = {}
local i = 2 + groups
while i <= #ARGV do
  local n = arity[ARGV[i]]
  if n == nil then
    return redis.error_reply('ERR commit: unknown operation ' .. tostring(ARGV[i]))
  end
  local op = { c = ARGV[i], g = tonumber(ARGV[i + 1]) }
  for j = 1, n do
    op[j] = ARGV[i + 1 + j]
  end
  ops[#ops + 1] = op
  i = i + 2 + n
end
local function K(g, slot)
  return keys[g][slot]
end
local function reply(code)
  local out = { code, redis.call('HGET', KEYS[1], 'rev') or false }
  for g = 1, groups do
    local h = redis.call('HMGET', K(g, 1), 'ge', 'ae', 'mv')
    out[#out + 1] = h[1] or false
    out[#out + 1] = h[2] or false
    out[#out + 1] = h[3] or false
  end
  return out
end
local commitKey = KEYS[3]
for _, op in ipairs(ops) do
  if op.c == 'ct' and redis.call('GET', commitKey) == op[1] then
    return reply(2)
  end
end
-- A group whose indexes no longer have the sizes its header recorded lost a key: nothing is
-- written ({-3, group, parts…}) unless this plan rebuilds those indexes (kD) or deletes the
-- group's keys (gX: a group delete, or an operator's reset).
local rebuilding = {}
for _, op in ipairs(ops) do
  if op.c == 'kD' or op.c == 'gX' then
    rebuilding[op.g] = true
  end
end
for g = 1, groups do
  if not rebuilding[g] then
    local d = damaged(function(slot)
      return K(g, slot)
    end)
    if d then
      return { -3, g, unpack(d) }
    end
  end
end
local function absent(v)
  if v == '-' then
    return false
  end
  return v
end
local function same(a, b)
  return (a or false) == (b or false)
end
local function recRev(v)
  if not v then
    return false
  end
  return string.match(v, '^(%d+)|')
end
local function ownerOf(v)
  if not v then
    return false
  end
  return string.match(v, '^(.*)|[cgr]$')
end

for idx, op in ipairs(ops) do
  local c = op.c
  if check[c] then
    local ok
    if c == 'lk' then
      if redis.call('GET', KEYS[2]) ~= op[1] then
        return { -1, idx }
      end
      ok = true
    elseif c == 'sx' then
      ok = redis.call('EXISTS', KEYS[1]) == 0
    elseif c == 'sr' then
      local s = redis.call('HMGET', KEYS[1], 'rev', 'layout')
      ok = s[1] == op[1] and s[2] == '2'
    elseif c == 'ge' then
      ok = redis.call('EXISTS', K(op.g, 1)) == 1
    elseif c == 'gn' then
      ok = redis.call('EXISTS', K(op.g, 1)) == 0
    elseif c == 'rr' then
      ok = same(recRev(redis.call('HGET', K(op.g, 2), op[1])), absent(op[2]))
    elseif c == 'ti' then
      ok = same(redis.call('HGET', K(op.g, 4), op[1]), absent(op[2]))
    elseif c == 'te' then
      ok = (redis.call('HGET', K(op.g, 4), op[1]) or '') == op[2]
    elseif c == 'di' then
      local s = redis.call('ZSCORE', K(op.g, 9), op[1])
      if op[2] == '-' then
        ok = not s
      else
        ok = s ~= false and tonumber(s) == tonumber(op[2])
      end
    elseif c == 'si' then
      ok = same(redis.call('HGET', K(op.g, 3), op[1]), absent(op[2]))
    elseif c == 'oi' then
      ok = same(redis.call('HGET', K(op.g, 5), op[1]), absent(op[2]))
    elseif c == 'om' then
      local o = ownerOf(redis.call('HGET', K(op.g, 5), op[1]))
      ok = (not o) or o == op[2]
    elseif c == 'la' then
      local s = redis.call('ZSCORE', K(op.g, 6), op[1])
      ok = (not s) or tonumber(s) <= tonumber(op[2])
    elseif c == 'lb' then
      ok = redis.call('ZSCORE', K(op.g, 6), op[1]) ~= false or redis.call('ZCARD', K(op.g, 6)) < tonumber(op[2])
    elseif c == 'ri' then
      ok = same(redis.call('HGET', K(op.g, 1), 'cr'), absent(op[1]))
    elseif c == 'ki' then
      ok = redis.call('GET', K(op.g, 12)) == op[1]
    elseif c == 'mc' then
      ok = redis.call('HLEN', K(op.g, 2)) == tonumber(op[1])
    end
    if not ok then
      return { 0, idx }
    end
  end
end

for _, op in ipairs(ops) do
  local c = op.c
  local g = op.g
  if c == 'sd' then
    local rev = redis.call('HGET', KEYS[1], 'rev')
    local nextRev = rev and (tonumber(rev) + 1) or 1
    redis.call('HSET', KEYS[1], 'rev', string.format('%d', nextRev), 'doc', op[1], 'len', string.len(op[1]),
      'hb', op[2], 'layout', '2')
  elseif c == 'sX' then
    redis.call('DEL', KEYS[1])
  elseif c == 'sp' then
    redis.call('HSET', KEYS[1], 'pass', op[1])
  elseif c == 'ct' then
    redis.call('SET', commitKey, op[1], 'PX', op[2])
  elseif c == 'gc' then
    redis.call('HSET', K(g, 1), 'ge', op[1], 'ae', op[2], 'mv', op[3], 'ca', op[4], 'ua', op[4])
    local info = redis.pcall('INFO', 'server')
    local run = type(info) == 'string' and string.match(info, 'run_id:(%x+)') or nil
    if run then
      redis.call('HSET', K(g, 1), 'rn', run)
    end
  elseif c == 'gX' then
    for s = 1, 12 do
      redis.call('DEL', K(g, s))
    end
  elseif c == 'hi' then
    redis.call('HINCRBY', K(g, 1), op[1], op[2])
  elseif c == 'hs' then
    redis.call('HSET', K(g, 1), op[1], op[2])
  elseif c == 'hn' then
    redis.call('HSETNX', K(g, 1), op[1], op[2])
  elseif c == 'ae' then
    redis.call('HSET', K(g, 1), 'ae', op[1])
    if tonumber(redis.call('HGET', K(g, 1), 'ge')) > tonumber(op[1]) then
      redis.call('HSET', K(g, 1), 'pa', op[2])
    else
      redis.call('HDEL', K(g, 1), 'pa')
    end
  elseif c == 'hd' then
    redis.call('HDEL', K(g, 1), op[1])
  elseif c == 'ms' then
    redis.call('HSET', K(g, 2), op[1], op[2])
  elseif c == 'md' then
    for _, s in ipairs({ 2, 3, 4, 7, 8 }) do
      redis.call('HDEL', K(g, s), op[1])
    end
    for _, s in ipairs({ 6, 9, 10 }) do
      redis.call('ZREM', K(g, s), op[1])
    end
    redis.call('SREM', K(g, 11), op[1])
  elseif c == 'ss' then
    redis.call('HSET', K(g, 3), op[1], op[2])
  elseif c == 'ts' then
    redis.call('HSET', K(g, 4), op[1], op[2])
  elseif c == 'td' then
    redis.call('HDEL', K(g, 4), op[1])
  elseif c == 'os' then
    redis.call('HSET', K(g, 5), op[1], op[2])
  elseif c == 'or' then
    if ownerOf(redis.call('HGET', K(g, 5), op[1])) == op[2] then
      redis.call('HDEL', K(g, 5), op[1])
    end
  elseif c == 'ls' then
    redis.call('ZADD', K(g, 6), 'GT', op[2], op[1])
  elseif c == 'lr' then
    redis.call('ZREM', K(g, 6), op[1])
  elseif c == 'vs' then
    local old = redis.call('HGET', K(g, 7), op[1])
    local head = old and string.match(old, '^{"at":%-?%d+')
    local oldAt = head and tonumber(string.sub(head, 7))
    local at = tonumber(op[2])
    if op[3] ~= '' then
      if not oldAt or at >= oldAt then
        redis.call('HSET', K(g, 7), op[1], '{"at":' .. op[2] .. ',"progress":' .. op[3] .. '}')
      end
    elseif not oldAt then
      redis.call('HSET', K(g, 7), op[1], '{"at":' .. op[2] .. '}')
    elseif at > oldAt then
      redis.call('HSET', K(g, 7), op[1], '{"at":' .. op[2] .. string.sub(old, string.len(head) + 1))
    end
  elseif c == 'ds' then
    redis.call('ZADD', K(g, 9), op[2], op[1])
  elseif c == 'dn' then
    redis.call('ZADD', K(g, 9), 'NX', op[2], op[1])
  elseif c == 'dr' then
    redis.call('ZREM', K(g, 9), op[1])
  elseif c == 'zs' then
    redis.call('ZADD', K(g, 10), op[2], op[1])
  elseif c == 'zr' then
    redis.call('ZREM', K(g, 10), op[1])
  elseif c == 'as' then
    redis.call('SADD', K(g, 11), op[1])
  elseif c == 'ax' then
    redis.call('DEL', K(g, 11))
  elseif c == 'kD' then
    redis.call('DEL', K(g, tonumber(op[1])))
  elseif c == 'dm' then
    local d = 3 + groups * 12
    markDue(KEYS[d + 1], KEYS[d + 2], KEYS[d + 3], op[1], op[2])
  elseif c == 'fs' then
    redis.call('HSET', K(g, 8), op[1], op[2])
  elseif c == 'kc' then
    if redis.call('GET', K(g, 12)) == op[1] then
      if redis.call('HGET', K(g, 1), 'ge') == op[2] then
        redis.call('DEL', K(g, 12))
      else
        redis.call('PEXPIRE', K(g, 12), op[3])
      end
    end
  elseif c == 'kr' then
    if redis.call('GET', K(g, 12)) == op[1] then
      if op[2] == '0' then
        redis.call('DEL', K(g, 12))
      else
        redis.call('PEXPIRE', K(g, 12), op[2])
      end
    end
  end
end

-- Joins: the record's epoch is the group epoch after this commit's bump (unique per join).
for _, op in ipairs(ops) do
  if op.c == 'mj' then
    local ge = tonumber(redis.call('HGET', K(op.g, 1), 'ge'))
    local e = math.max(ge, tonumber(op[3]))
    redis.call('HSET', K(op.g, 2), op[1], (string.gsub(op[2], '"e":0,', '"e":' .. string.format('%d', e) .. ',', 1)))
  end
end

-- What every index of a group now holds, for the next read to compare; and the highest group
-- epoch the group reached, kept in the stream hash so even a reset after a lost header never
-- answers an epoch below one already given out.
for g = 1, groups do
  if redis.call('EXISTS', K(g, 1)) == 1 then
    recount(function(slot)
      return K(g, slot)
    end)
    local ge = redis.call('HGET', K(g, 1), 'ge')
    local mark = 'ge:' .. ARGV[1 + g]
    if ge and tonumber(ge) > tonumber(redis.call('HGET', KEYS[1], mark) or '-1') then
      redis.call('HSET', KEYS[1], mark, ge)
    end
  end
end

return reply(1)
`;

/** Checks, then writes, of one plan (see the header comment). */
export const COMMIT: LuaScript = { name: 'commit', lua, sha1: 'ce582f6a4445f0967c1fbf3525be4021dfbcf1bf' };
