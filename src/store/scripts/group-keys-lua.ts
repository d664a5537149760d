/**
 * Lua shared by the group scripts: how they name a group's keys and check that none went missing,
 * kept with every other Lua text of the project (the key names themselves live in ../keys.ts).
 */
/**
 * Lua naming a group's keys `K`: `K[1]` = KEYS[1] (the stream hash) and `K[2..13]` = KEYS[2..13],
 * the group's 12 keys in `GROUP_KEY_PARTS` order. Every key is declared (they share the stream's
 * hash tag, so one slot): on a Cluster slot in migration Redis then answers ASK or TRYAGAIN
 * instead of running the script over half the group's keys.
 */
export const GROUP_KEYS_LUA = `local K = KEYS
`;

/**
 * The group indexes whose size the header records after every commit (`n<part>` fields), so a
 * read notices a key that went missing (eviction, an operator's DEL, a lost write) instead of
 * reading it as empty: header field, key slot (1 = the header), the command that sizes it, and
 * the key's part name. Member records are the source of truth; the others are derived from them
 * (docs/running-redis.md#when-a-group-is-reported-corrupt).
 */
const COUNTED: ReadonlyArray<readonly [field: string, slot: number, command: string, part: string]> = [
  ['nm', 2, 'HLEN', 'm'],
  ['ns', 3, 'HLEN', 'st'],
  ['nt', 4, 'HLEN', 't'],
  ['no', 5, 'HLEN', 'o'],
  ['nl', 6, 'ZCARD', 'leases'],
  ['nz', 10, 'ZCARD', 'tm'],
];

/**
 * The time-ordered indexes (leases, deadlines, timers): the header caches the earliest score of
 * the three as `nd` ('-' when all are empty), so the member read's fast path knows nothing is due
 * without reading them. `nd` is never later than the truth: every commit sets it exactly, and the
 * only other write to these indexes, the fast path's lease renewal, only moves a score later.
 */
const TIMED_SLOTS = [6, 9, 10] as const;

/**
 * Lua defining `damaged(key)`, `nextDue(key)` and `recount(key)`, where `key(slot)` names one of
 * a group's keys (slot 1 = the header, then `GROUP_KEY_PARTS` order). `damaged` returns nil when
 * every counted index has the size the header recorded (or the header has recorded none yet),
 * else the list of the parts that differ. `nextDue` is the earliest score of the timed indexes
 * ('-' when none). `recount` records the current sizes and `nd` = `nextDue` in the header.
 */
export const INTEGRITY_LUA = `local COUNTED = { ${COUNTED.map(([f, s, c, p]) => `{ '${f}', ${s}, '${c}', '${p}' }`).join(', ')} }
local function damaged(key)
  local want = redis.call('HMGET', key(1), ${COUNTED.map(([f]) => `'${f}'`).join(', ')})
  if not want[1] then
    return nil
  end
  local out = nil
  for i, c in ipairs(COUNTED) do
    if tonumber(want[i]) ~= redis.call(c[3], key(c[2])) then
      out = out or {}
      out[#out + 1] = c[4]
    end
  end
  return out
end
local function nextDue(key)
  local at = nil
  for _, slot in ipairs({ ${TIMED_SLOTS.join(', ')} }) do
    local first = redis.call('ZRANGE', key(slot), 0, 0, 'WITHSCORES')[2]
    if first and (not at or tonumber(first) < tonumber(at)) then
      at = first
    end
  end
  return at or '-'
end
local function recount(key)
  local v = {}
  for _, c in ipairs(COUNTED) do
    v[#v + 1] = c[1]
    v[#v + 1] = redis.call(c[3], key(c[2]))
  end
  v[#v + 1] = 'nd'
  v[#v + 1] = nextDue(key)
  redis.call('HSET', key(1), unpack(v))
end
`;

/**
 * The group scripts' prelude: `K` (see GROUP_KEYS_LUA), `damaged`/`recount` (see INTEGRITY_LUA),
 * and `lostParts()`, the parts of this group whose size differs from what its header recorded
 * (nil when none), with the group's keys at `K[2..13]`.
 */
export const GROUP_INTEGRITY_LUA = `${GROUP_KEYS_LUA}${INTEGRITY_LUA}local function lostParts()
  return damaged(function(slot)
    return K[slot + 1]
  end)
end
`;
