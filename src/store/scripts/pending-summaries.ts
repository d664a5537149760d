/**
 * `XPENDING key group` (the summary form) of many shard/group pairs in one round trip, for the
 * Upstash inspector (each round trip is a Workers subrequest). Read-only; a failed command (a
 * missing key or group) becomes nil for that pair.
 *
 * KEYS  shard stream keys
 * ARGV  the consumer group of each key, in KEYS order
 * Returns one raw reply (or nil) per key, in KEYS order.
 */
import type { LuaScript } from './lua-script.js';

const lua = `local out = {}
for i, k in ipairs(KEYS) do
  local r = redis.pcall('XPENDING', k, ARGV[i])
  if type(r) == 'table' and r.err then
    out[i] = false
  else
    out[i] = r
  end
end
return out
`;

/** `XPENDING` summaries of key/group pairs. */
export const PENDING_SUMMARIES: LuaScript = {
  name: 'pending-summaries',
  lua,
  sha1: 'fb31e3033d0aa445645acb524d69b1823fdc42af',
};
