/**
 * The namespace's due index (docs/architecture.md#the-due-index): which streams have
 * time-driven work due, and when. Three keys in one slot (`dueIndexKeys`):
 *
 * - `at`, a sorted set stream prefix → the earliest time it may have work due, plus the sentinel
 *   member `''` at -inf that says the index is complete (seeded from the streams index once): a
 *   claim's one range read then also tells a complete index from a lost one;
 * - `claims`, a hash prefix → until when a sweep has claimed it (the claim moved its score there);
 * - `late`, a hash prefix → the earliest due time a commit recorded while the stream was claimed.
 *
 * A score is never later than the stream's real next due time; earlier only costs a visit.
 * Sweeps claim due entries by moving them forward (a visibility timeout: an instance that dies
 * mid-visit leaves a claim that lapses and is taken again), and settle each visit with the next
 * due time the visit read. A commit during the visit cannot be lost: it records its time in
 * `late`, which the settle folds in.
 *
 * DUE_MARK   KEYS at, claims, late; ARGV prefix, at. Lowers the prefix's score to `at` (or records
 *            it in `late` while claimed). Returns 1 lowered, 0 not (already earlier, or claimed).
 * DUE_CLAIM  KEYS at, claims; ARGV now, until, max. Claims up to `max` entries due at `now`
 *            (score ≤ now) until `until`. Returns {-1} when the index is not seeded, else
 *            {1, claimed prefixes, how many entries stay due}.
 * DUE_SETTLE KEYS at, claims, late; ARGV prefix, next ('' = nothing due), the claim's `until`.
 *            Ends the caller's claim: the score becomes min(next, late) or the entry goes. When
 *            the claim is no longer the caller's, only lowers the score to `next`.
 * DUE_SEED   KEYS at; ARGV at, `1` on the last call, prefixes…. Lists each prefix due at `at`
 *            (keeping earlier scores); the last call marks the index complete.
 */
import type { LuaScript } from './lua-script.js';

/**
 * Lua defining `markDue(at, claims, late, prefix, when)`: lowers `prefix`'s score in `at` to
 * `when` (a string of ms), or records it in `late` while a sweep holds a claim in `claims`.
 * Shared by DUE_MARK and the commit, which marks in the same script where every key is in one
 * slot (standalone Redis, Upstash).
 */
export const MARK_DUE_LUA = `local function markDue(atKey, claimsKey, lateKey, p, when)
  local t = tonumber(when)
  if redis.call('HEXISTS', claimsKey, p) == 1 then
    local late = redis.call('HGET', lateKey, p)
    if not late or t < tonumber(late) then
      redis.call('HSET', lateKey, p, when)
    end
    return 0
  end
  local cur = redis.call('ZSCORE', atKey, p)
  if cur and tonumber(cur) <= t then
    return 0
  end
  redis.call('ZADD', atKey, when, p)
  return 1
end
`;

const markLua = `${MARK_DUE_LUA}return markDue(KEYS[1], KEYS[2], KEYS[3], ARGV[1], ARGV[2])
`;

const claimLua = `local max = tonumber(ARGV[3])
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, max + 1)
if due[1] ~= '' then
  return { -1 }
end
local out = {}
for i = 2, #due do
  redis.call('ZADD', KEYS[1], ARGV[2], due[i])
  redis.call('HSET', KEYS[2], due[i], ARGV[2])
  out[#out + 1] = due[i]
end
local backlog = 0
if #out >= max then
  backlog = redis.call('ZCOUNT', KEYS[1], '-inf', ARGV[1]) - 1
end
return { 1, out, backlog }
`;

const settleLua = `local p = ARGV[1]
local nextAt = ARGV[2] ~= '' and tonumber(ARGV[2]) or nil
local claim = redis.call('HGET', KEYS[2], p)
if claim and tonumber(claim) == tonumber(ARGV[3]) then
  redis.call('HDEL', KEYS[2], p)
  local late = redis.call('HGET', KEYS[3], p)
  if late then
    redis.call('HDEL', KEYS[3], p)
    if not nextAt or tonumber(late) < nextAt then
      nextAt = tonumber(late)
    end
  end
  if nextAt then
    redis.call('ZADD', KEYS[1], nextAt, p)
  else
    redis.call('ZREM', KEYS[1], p)
  end
  return 1
end
if nextAt then
  local cur = redis.call('ZSCORE', KEYS[1], p)
  if not cur or nextAt < tonumber(cur) then
    redis.call('ZADD', KEYS[1], nextAt, p)
  end
end
return 0
`;

const seedLua = `for i = 3, #ARGV do
  local cur = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if not cur or tonumber(ARGV[1]) < tonumber(cur) then
    redis.call('ZADD', KEYS[1], ARGV[1], ARGV[i])
  end
end
if ARGV[2] == '1' then
  redis.call('ZADD', KEYS[1], '-inf', '')
end
return 1
`;

/** Lowers a stream's due time (what a commit creating time-driven work runs first). */
export const DUE_MARK: LuaScript = {
  name: 'due-mark',
  lua: markLua,
  sha1: 'e1345de46096029a0f3f8ef1e1b876f42ec175d2',
};

/** Claims the streams due now. */
export const DUE_CLAIM: LuaScript = {
  name: 'due-claim',
  lua: claimLua,
  sha1: 'bac94813ce46fd4b84cafac38fb8cd8f7324057a',
};

/** Ends a visit: the stream's next due time, or none. */
export const DUE_SETTLE: LuaScript = {
  name: 'due-settle',
  lua: settleLua,
  sha1: '576ae68541e38b2433f9cd45441751a82e5b0d05',
};

/** Lists every stream as due (an index that is new or was lost) and marks it complete. */
export const DUE_SEED: LuaScript = {
  name: 'due-seed',
  lua: seedLua,
  sha1: 'f3a3b63e14498b52755240e5c5078e961d4b38dc',
};
