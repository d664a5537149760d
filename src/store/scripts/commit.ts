/**
 * The commit script: compare-and-set of a stream's documents plus lease bookkeeping (SPEC §6).
 *
 * KEYS[1]            K:{P}:stream
 * KEYS[4i-2 .. 4i+1] group i: K:{P}:group:<G>, K:{P}:leases:<G>, K:{P}:live:<G>, K:{P}:fast:<G>
 *
 * ARGV (read in order):
 *   expectedRev ('0' = create: the stream hash must not exist)
 *   streamOp ('-' keep | 'set' | 'del'), streamDoc ('' unless set)
 *   nGroups, then per group i:
 *     op ('-' keep | 'set' | 'del'), doc ('' unless set), until ('' = unchanged)
 *     nMembers, memberId...            ids of the new doc; per-member entries of others are pruned
 *     nExpiries, (memberId, observedLease)...
 *     nLeases, (memberId, live '1'|'0', leaseExpiresAt)...       ZADD GT if live, else ZREM
 *     nLive, (memberId, at, hasProgress '1'|'0', progressJson)... live hash, newest `at` wins
 *     hasFast '1'|'0', then (memberId, key, response) if '1'
 *
 * Returns {1, revision} on success, {0} on a revision conflict, {-1} when an expired member's
 * stored lease is later than the lease the expiry was decided on (nothing is written then).
 * The revision is bumped only when a document is written; lease-only commits keep it. Every
 * written document's byte length goes into the hash's `len` field, so the fast path can refuse
 * to answer from a document someone altered behind the coordinator's back (fail closed).
 */
import type { LuaScript } from './lua-script.js';

const lua = `local c = 1
local function take()
  local v = ARGV[c]
  c = c + 1
  return v
end
local function takeN()
  return tonumber(take())
end

local expected = take()
local streamOp = take()
local streamDoc = take()
local groups = {}
for i = 1, takeN() do
  local g = { key = KEYS[i * 4 - 2], leases = KEYS[i * 4 - 1], live = KEYS[i * 4], fast = KEYS[i * 4 + 1] }
  g.op = take()
  g.doc = take()
  g.untilv = take()
  g.members = {}
  for _ = 1, takeN() do
    g.members[take()] = true
  end
  g.expiries = {}
  for _ = 1, takeN() do
    local m = take()
    g.expiries[#g.expiries + 1] = { m, tonumber(take()) }
  end
  g.leaseOps = {}
  for _ = 1, takeN() do
    local m = take()
    local live = take()
    g.leaseOps[#g.leaseOps + 1] = { m, live, take() }
  end
  g.liveOps = {}
  for _ = 1, takeN() do
    local m = take()
    local at = take()
    local has = take()
    g.liveOps[#g.liveOps + 1] = { m, at, has, take() }
  end
  if take() == '1' then
    g.fastMember = take()
    g.fastKey = take()
    g.fastResponse = take()
  end
  groups[i] = g
end

if expected == '0' then
  if redis.call('EXISTS', KEYS[1]) == 1 then
    return { 0 }
  end
elseif redis.call('HGET', KEYS[1], 'rev') ~= expected then
  return { 0 }
end

for _, g in ipairs(groups) do
  for _, e in ipairs(g.expiries) do
    local s = redis.call('ZSCORE', g.leases, e[1])
    if s and tonumber(s) > e[2] then
      return { -1 }
    end
  end
end

local wrote = streamOp ~= '-'
for _, g in ipairs(groups) do
  if g.op ~= '-' then
    wrote = true
  end
end
local rev = tonumber(expected)
if wrote then
  rev = rev + 1
end
local revs = string.format('%d', rev)

if streamOp == 'set' then
  redis.call('HSET', KEYS[1], 'rev', revs, 'doc', streamDoc, 'len', string.len(streamDoc))
elseif streamOp == 'del' then
  redis.call('DEL', KEYS[1])
elseif wrote then
  redis.call('HSET', KEYS[1], 'rev', revs)
end

local function atOf(v)
  if not v then
    return nil
  end
  return tonumber(string.match(v, '^{"at":(%-?%d+)'))
end

local function prune(key, present, cmd, keep)
  for _, m in ipairs(present) do
    if not keep[m] then
      redis.call(cmd, key, m)
    end
  end
end

for _, g in ipairs(groups) do
  if g.op == 'del' then
    redis.call('DEL', g.key, g.leases, g.live, g.fast)
  else
    if g.op == 'set' then
      redis.call('HSET', g.key, 'rev', revs, 'doc', g.doc, 'len', string.len(g.doc))
    end
    if redis.call('HEXISTS', g.key, 'doc') == 1 then
      if g.untilv ~= '' then
        redis.call('HSET', g.key, 'until', g.untilv)
      end
      for _, l in ipairs(g.leaseOps) do
        if l[2] == '1' then
          redis.call('ZADD', g.leases, 'GT', l[3], l[1])
        else
          redis.call('ZREM', g.leases, l[1])
        end
      end
      for _, w in ipairs(g.liveOps) do
        local old = atOf(redis.call('HGET', g.live, w[1]))
        local at = tonumber(w[2])
        if w[3] == '1' then
          if not old or at >= old then
            redis.call('HSET', g.live, w[1], '{"at":' .. w[2] .. ',"progress":' .. w[4] .. '}')
          end
        elseif not old or at > old then
          redis.call('HSET', g.live, w[1], '{"at":' .. w[2] .. '}')
        end
      end
      if g.op == 'set' then
        prune(g.leases, redis.call('ZRANGE', g.leases, 0, -1), 'ZREM', g.members)
        prune(g.live, redis.call('HKEYS', g.live), 'HDEL', g.members)
        prune(g.fast, redis.call('HKEYS', g.fast), 'HDEL', g.members)
      end
      local grev = redis.call('HGET', g.key, 'rev')
      if g.fastMember and grev then
        local head = grev .. '|' .. string.len(g.fastKey) .. '|' .. g.fastKey .. '|'
        redis.call('HSET', g.fast, g.fastMember, head .. g.fastResponse)
      end
    end
  end
end

return { 1, rev }
`;

/** Compare-and-set commit of documents, leases, live entries and the fast-path fingerprint. */
export const COMMIT: LuaScript = { name: 'commit', lua, sha1: '18f103742c274228d795ee6a3caffa9e63a6c45f' };
