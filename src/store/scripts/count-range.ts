/**
 * Counts the entries of one shard stream between two ids without sending them (an offsets reset
 * tells how many records it skips or replays, docs/operating.md#replaying-or-skipping-records).
 * Read-only and bounded: at most ARGV[3] entries per call, so a long range is counted over several
 * short calls instead of one that would hold up every other client.
 *
 * KEYS[1] shard stream key
 * ARGV[1] exclusive low id   ARGV[2] inclusive high id (`+`: the end)   ARGV[3] most entries to count
 * Returns {count, lastId}: the entries in (ARGV[1], ARGV[2]] up to ARGV[3], and the id of the last
 * one counted ('' when none).
 */
import type { LuaScript } from './lua-script.js';

const lua = `local r = redis.call('XRANGE', KEYS[1], '(' .. ARGV[1], ARGV[2], 'COUNT', ARGV[3])
local n = #r
if n == 0 then
  return { 0, '' }
end
return { n, r[n][1] }
`;

/** Counts the entries in (low, high] of a stream, a bounded number per call. */
export const COUNT_RANGE: LuaScript = {
  name: 'count-range',
  lua,
  sha1: 'e4455d64511689c66c0599d897be50c8d0905eb7',
};
