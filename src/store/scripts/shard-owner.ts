/**
 * Fenced acks: the ownership token of a shard for one consumer group, kept in the
 * shard's own Cluster slot (`{<prefix>:<i>}:owner`, a hash with one field per group) so a
 * script can check it and touch the stream atomically. The value is
 * `<epoch>:<claimedUntil ms>:<memberId>`; `epoch` is the assignment epoch of the heartbeat
 * answer that granted the shard (monotonic per group). `claimedUntil` only bounds how long a
 * higher epoch refuses claims (an escape hatch for a deleted and recreated group, whose epochs
 * start again at 1); checks ignore it. It is read and written on Redis' clock (`TIME` inside the
 * claim), never the member's: a member whose clock runs ahead would otherwise see a newer owner's
 * protection as lapsed and take its token.
 *
 * The token hash lives exactly as long as its shard: deleting a stream or retiring a shard
 * deletes it with the shard key (`delete-shard.ts`, `clear-shard-keys.ts`), so a re-created
 * stream or a re-added shard never meets a dead incarnation's epochs.
 *
 * OWNER_CLAIM — KEYS[1] = token key; ARGV = group, epoch, memberId, protection ms.
 *   Returns {1} claimed, or {0, stored} when a higher epoch still holds it (the caller is stale).
 * OWNER_RELEASE — KEYS[1] = token key; ARGV = group, epoch, memberId.
 *   Deletes the field only if it is still the caller's; returns 1 deleted, 0 not its own.
 * FENCED_COMMAND — KEYS[1] = shard stream key, KEYS[2] = token key;
 *   ARGV = group, epoch, memberId, command, its arguments after the key.
 *   Runs the command only while the token is the caller's: {1, reply} or {0, stored | false}.
 *   Commands: XACK, XACKDEL, XACK+XDEL (ack then delete the ids), XCLAIM, XAUTOCLAIM, CHECK.
 */
import type { LuaScript } from './lua-script.js';

const claimLua = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local v = redis.call('HGET', KEYS[1], ARGV[1])
if v then
  local e, u = string.match(v, '^(%d+):(%d+):')
  if e and tonumber(e) > tonumber(ARGV[2]) and tonumber(u) > now then
    return {0, v}
  end
end
local untilMs = string.format('%d', now + tonumber(ARGV[4]))
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. ':' .. untilMs .. ':' .. ARGV[3])
return {1}
`;

const releaseLua = `local v = redis.call('HGET', KEYS[1], ARGV[1])
if not v then return 0 end
local e, m = string.match(v, '^(%d+):%d+:(.*)$')
if e == ARGV[2] and m == ARGV[3] then
  redis.call('HDEL', KEYS[1], ARGV[1])
  return 1
end
return 0
`;

const fencedLua = `local v = redis.call('HGET', KEYS[2], ARGV[1])
local e, m
if v then e, m = string.match(v, '^(%d+):%d+:(.*)$') end
if e ~= ARGV[2] or m ~= ARGV[3] then return {0, v} end
local c = ARGV[4]
if c == 'CHECK' then return {1, 1} end
if c == 'XACK+XDEL' then
  redis.call('XACK', KEYS[1], ARGV[1], unpack(ARGV, 5))
  return {1, redis.call('XDEL', KEYS[1], unpack(ARGV, 5))}
end
if c == 'XACK' or c == 'XACKDEL' or c == 'XCLAIM' or c == 'XAUTOCLAIM' then
  return {1, redis.call(c, KEYS[1], ARGV[1], unpack(ARGV, 5))}
end
return redis.error_reply('ERR fenced command not allowed: ' .. c)
`;

/** Claims a shard's token for a member (refused if a higher epoch holds it). */
export const OWNER_CLAIM: LuaScript = {
  name: 'shard-owner-claim',
  lua: claimLua,
  sha1: '4fed50d356b74f548eadfaba13f64840049b8c98',
};
/** Deletes a shard's token if it is still the caller's. */
export const OWNER_RELEASE: LuaScript = {
  name: 'shard-owner-release',
  lua: releaseLua,
  sha1: '3b0474e73ebfd7ca683b959c6f765396bc70d60c',
};
/** Runs one stream command only while the caller holds the shard's token. */
export const FENCED_COMMAND: LuaScript = {
  name: 'shard-fenced-command',
  lua: fencedLua,
  sha1: '2ed11ea64b91b7d29c036e1ca432df5c966f7a13',
};

/** The token key of shard stream `streamKey` (same Cluster slot: its hash tag is the whole key). */
export function ownerKey(streamKey: string): string {
  return `{${streamKey}}:owner`;
}

/** Who holds a token, from its stored value (null when none). */
export function tokenHolder(stored: unknown): { epoch: number; memberId: string } | null {
  const v =
    typeof stored === 'string'
      ? stored
      : stored instanceof Uint8Array
        ? new TextDecoder().decode(stored)
        : null;
  if (v === null) return null;
  const m = /^(\d+):\d+:(.*)$/s.exec(v);
  return m ? { epoch: Number(m[1]), memberId: m[2]! } : null;
}
