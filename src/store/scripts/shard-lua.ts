/**
 * Lua shared by the shard scripts: one consistent read of a shard stream (type, `XINFO STREAM`
 * length and entries-added, `XINFO GROUPS` name/pending/lag/last-delivered-id, and for each group
 * whether any entry follows its last-delivered-id) and its reply encoding
 * `{code, length, entriesAdded|nil, nGroups, (name, pending|nil, lag|nil, lastDeliveredId|nil, after 1|0|nil)...}`.
 */

/** `read(key)` → table or (nil, errorText); `encode(code, r)` → reply array. Prepended to scripts. */
export const READ_SHARD_LUA = `local MAX_ID = '18446744073709551615-18446744073709551615'

-- 1 when an entry follows id (exclusive XRANGE start), 0 when none does, false when unknown.
local function after(key, id)
  if not id then
    return false
  end
  if id == MAX_ID then
    return 0
  end
  local x = redis.pcall('XRANGE', key, '(' .. id, '+', 'COUNT', 1)
  if type(x) ~= 'table' or x.err then
    return false
  end
  if #x > 0 then
    return 1
  end
  return 0
end

local function read(key)
  local t = redis.call('TYPE', key)
  local ty = type(t) == 'table' and t.ok or t
  if ty ~= 'stream' then
    return nil, 'WRONGTYPE the key holds a ' .. tostring(ty) .. ', not a stream'
  end
  local info = redis.pcall('XINFO', 'STREAM', key)
  if type(info) == 'table' and info.err then
    return nil, info.err
  end
  local r = { length = 0, added = false, groups = {} }
  for i = 1, #info, 2 do
    if info[i] == 'length' then
      r.length = info[i + 1]
    elseif info[i] == 'entries-added' then
      r.added = info[i + 1]
    end
  end
  local gs = redis.pcall('XINFO', 'GROUPS', key)
  if type(gs) == 'table' and gs.err then
    return nil, gs.err
  end
  for _, g in ipairs(gs) do
    local e = { name = false, pending = false, lag = false, last = false, after = false }
    for i = 1, #g, 2 do
      local f = g[i]
      if f == 'name' or f == 'pending' or f == 'lag' then
        e[f] = g[i + 1]
      elseif f == 'last-delivered-id' and type(g[i + 1]) == 'string' then
        e.last = g[i + 1]
      end
    end
    e.after = after(key, e.last)
    r.groups[#r.groups + 1] = e
  end
  return r
end

local function encode(code, r)
  local out = { code, r.length, r.added, #r.groups }
  for _, g in ipairs(r.groups) do
    out[#out + 1] = g.name
    out[#out + 1] = g.pending
    out[#out + 1] = g.lag
    out[#out + 1] = g.last
    out[#out + 1] = g.after
  end
  return out
end
`;
