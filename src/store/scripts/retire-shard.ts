/**
 * Atomic retirement of a drained shard (docs/protocol.md#invariants, docs/protocol.md#resharding): re-checks the drain evidence and
 * deletes the key in one script, so a late `XADD` either lands before the check (which then
 * fails) or is refused by `NOMKSTREAM` after the delete. Same rules as `core/drain-evidence.ts`:
 * every consumer group on the key is one the coordinator manages (a key carrying anyone else's
 * group is never deleted), every group has nothing pending, and unless the stream is empty,
 * no entry follows any group's last-delivered-id (an `XRANGE` from just after it finds nothing;
 * `lag` is not consulted: it can be stale or nil while the IDs are exact), some group exists and
 * every managed group is there.
 *
 * KEYS[1] shard stream key (only this key: it lives in another slot than the coordinator keys)
 * ARGV    names of the consumer groups the coordinator manages on the stream
 * Returns {1} deleted, {2} already absent, {-1, errorText} not a stream or a read failed
 * (nothing deleted), {0, length, entriesAdded|nil, nGroups, (name, pending|nil, lag|nil,
 * lastDeliveredId|nil, after 1|0|nil)...} when the evidence did not hold (nothing deleted).
 */
import type { LuaScript } from './lua-script.js';
import { READ_SHARD_LUA } from './shard-lua.js';

const lua = `${READ_SHARD_LUA}
local key = KEYS[1]
if redis.call('EXISTS', key) == 0 then
  return { 2 }
end
local r, err = read(key)
if not r then
  return { -1, err }
end
local drained = true
local managed = {}
for i = 1, #ARGV do
  managed[ARGV[i]] = true
end
local present = {}
for _, g in ipairs(r.groups) do
  if g.pending ~= 0 then
    drained = false
  end
  if g.name then
    present[g.name] = true
  end
  if not (g.name and managed[g.name]) then
    drained = false
  end
end
if r.length > 0 then
  if #r.groups == 0 then
    drained = false
  end
  for _, g in ipairs(r.groups) do
    if g.after ~= 0 then
      drained = false
    end
  end
  for i = 1, #ARGV do
    if not present[ARGV[i]] then
      drained = false
    end
  end
end
if not drained then
  return encode(0, r)
end
redis.call('DEL', key)
return { 1 }
`;

/** Re-checks a shard's drain evidence and deletes its key atomically. */
export const RETIRE_SHARD: LuaScript = {
  name: 'retire-shard',
  lua,
  sha1: '00c6469fb8126a5042a9ee4b2cc7afecf8e40d4f',
};
