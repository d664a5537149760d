/**
 * Monitoring reads of many shard streams in one round trip, for stores where each round trip is
 * an HTTPS request and a Workers subrequest (the Upstash store). Read-only; a failed command
 * becomes nil for that key instead of failing the whole read.
 *
 * KEYS    shard stream keys (Upstash is not slot-partitioned; never used on Redis Cluster)
 * ARGV[1] '1' = per key {XINFO STREAM, XINFO GROUPS, MEMORY USAGE}; '0' = per key {XINFO STREAM}
 * Returns one array per key, in KEYS order; each element is the raw reply or nil.
 */
import type { LuaScript } from './lua-script.js';

const lua = `local function safe(r)
  if type(r) == 'table' and r.err then
    return false
  end
  return r
end
local full = ARGV[1] == '1'
local out = {}
for i, k in ipairs(KEYS) do
  local s = safe(redis.pcall('XINFO', 'STREAM', k))
  if full then
    out[i] = { s, safe(redis.pcall('XINFO', 'GROUPS', k)), safe(redis.pcall('MEMORY', 'USAGE', k)) }
  else
    out[i] = { s }
  end
end
return out
`;

/** `XINFO STREAM` (and optionally `XINFO GROUPS`, `MEMORY USAGE`) of every key. */
export const READ_SHARDS: LuaScript = {
  name: 'read-shards',
  lua,
  sha1: '4ac4e4ba5c6e304370d9e22e870d40370096854a',
};
