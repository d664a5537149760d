/**
 * Lists a stream prefix in the namespace's streams index, unless the index is full: the stream
 * quota (COORDINATOR_MAX_STREAMS) checked and applied in one step, so concurrent creates of
 * different streams (each under its own stream mutex) cannot go past it together.
 *
 * KEYS[1] K:streams   ARGV[1] the prefix   ARGV[2] the limit (0 = none)
 * Returns 1 when the prefix is listed now (or already was), 0 when the index holds the limit
 * of other prefixes already (nothing written).
 */
import type { LuaScript } from './lua-script.js';

const lua = `if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then
  return 1
end
local limit = tonumber(ARGV[2])
if limit > 0 and redis.call('SCARD', KEYS[1]) >= limit then
  return 0
end
redis.call('SADD', KEYS[1], ARGV[1])
return 1
`;

/** SADD to the streams index within a limit. */
export const REGISTER_STREAM: LuaScript = {
  name: 'register-stream',
  lua,
  sha1: '02a1589508dc472833d39721b18e45f3995c7e2a',
};
