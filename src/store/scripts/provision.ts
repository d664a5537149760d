/**
 * Provisioning of one shard stream and consumer group at the tail (docs/protocol.md#provisioning), atomic so an
 * XADD cannot slip between reading `entries-added` and creating the group (which would leave the
 * group's lag off by one for ever).
 *
 * KEYS[1] shard stream key   ARGV[1] consumer group name
 * Returns {1} created, {2} the group already existed (BUSYGROUP: success), {0, redisErrorText}
 * on any other error.
 */
import type { LuaScript } from './lua-script.js';

const lua = `local added = 0
local info = redis.pcall('XINFO', 'STREAM', KEYS[1])
if type(info) == 'table' and not info.err then
  for i = 1, #info, 2 do
    if info[i] == 'entries-added' then
      added = info[i + 1]
    end
  end
end
local r = redis.pcall('XGROUP', 'CREATE', KEYS[1], ARGV[1], '$', 'MKSTREAM', 'ENTRIESREAD', added)
if type(r) == 'table' and r.err then
  if string.sub(r.err, 1, 9) == 'BUSYGROUP' then
    return { 2 }
  end
  return { 0, r.err }
end
return { 1 }
`;

/** Creates the shard stream and the group at its tail, treating BUSYGROUP as success. */
export const PROVISION: LuaScript = {
  name: 'provision',
  lua,
  sha1: '855ece8fe536d75a5ab2074432212dd185224cba',
};
