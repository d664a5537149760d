/**
 * Idempotent publish: one script on the shard key, its incarnation key and its marker key (all
 * in the shard's Cluster slot: their hash tag is the whole shard key).
 *
 * Markers are namespaced by the shard's **incarnation**: an id taken from Redis' clock (`TIME`
 * in µs, hex; two incarnations of one shard key could only share it if the server's clock went
 * back to the very microsecond), kept at `{<shard>}:incarnation` and created by the first
 * idempotent publish to a shard key that exists. Deleting a stream or retiring a shard deletes
 * the incarnation key with the shard key (`delete-shard.ts`, `clear-shard-keys.ts`); the next
 * stream of that name (or the re-added shard) gets a new one. An old incarnation's markers then
 * have names nothing asks for any more, so a re-created stream is never answered "duplicate" for
 * a record only the old one held; they go when their TTL runs out.
 *
 * Why a namespace and not deleting the markers: they are one key per event id, and finding them
 * at delete time needs a SCAN of the keyspace (every node of a Cluster, many REST calls on
 * Upstash, more than a Worker's sweep may spend) or an index written on every publish. The
 * namespace costs one GET per script call (per shard of a batch, not per record).
 *
 * The producer names the marker key itself (every key a script touches is in KEYS), so it must
 * know the incarnation: it remembers it per shard key and sends it along. When it does not know
 * it yet, or knows a dead one, the script writes nothing and answers the current incarnation;
 * the producer sends the call again with it (one extra round trip per shard and producer, and
 * after a shard's re-creation).
 *
 * KEYS[1] = shard stream key                 `orders:3`
 * KEYS[2] = incarnation key                  `{orders:3}:incarnation`
 * KEYS[3] = marker key                       `{orders:3}:idem:<incarnation>:<eventId>`
 * ARGV[1] = the incarnation the marker key was named with ('' when not known yet)
 * ARGV[2] = marker TTL in seconds
 * ARGV[3] = MAXLEN threshold
 * ARGV[4] = `~` (approximate) or `=` (exact) trimming
 * ARGV[5..] = field, value, field, value, …
 * Returns {1, id} when the marker existed (a repeat: the first entry id), {2, id} when the entry
 * was added and the marker set, {0} when the stream key is missing (nothing written; a leftover
 * incarnation key is dropped), {4, incarnation} when ARGV[1] is not the shard's incarnation
 * (nothing written).
 */
import type { LuaScript } from './lua-script.js';

/**
 * The Lua that loads the shard's incarnation into `inc` (nil when the shard key is missing),
 * creating it for a shard key that exists. The batch script reads it the same way under `pcall`.
 */
const INCARNATION_LUA = `local inc = redis.call('GET', KEYS[2])
if not inc and redis.call('EXISTS', KEYS[1]) == 1 then
  local t = redis.call('TIME')
  inc = string.format('%x%05x', tonumber(t[1]), tonumber(t[2]))
  redis.call('SET', KEYS[2], inc)
end
`;

const lua = `${INCARNATION_LUA}if not inc then
  return {0}
end
if inc ~= ARGV[1] then
  return {4, inc}
end
local first = redis.call('GET', KEYS[3])
if first then
  return {1, first}
end
local id = redis.call('XADD', KEYS[1], 'NOMKSTREAM', 'MAXLEN', ARGV[4], ARGV[3], '*', unpack(ARGV, 5))
if not id then
  redis.call('DEL', KEYS[2])
  return {0}
end
redis.call('SET', KEYS[3], id, 'EX', ARGV[2])
return {2, id}
`;

/** The idempotent-publish script (incarnation → check marker → XADD NOMKSTREAM → set marker with TTL). */
export const IDEMPOTENT_PUBLISH: LuaScript = {
  name: 'idempotent-publish',
  lua,
  sha1: '2a018f02eceed2d6c7491d27b5f247ab907becb2',
};

/** What the script did. */
export type IdempotentReply =
  | { status: 'added'; entryId: string }
  | { status: 'duplicate'; entryId: string }
  | { status: 'missing' };

/** The script's answer when the caller named its marker with another incarnation than the shard's. */
export interface StaleIncarnation {
  status: 'stale';
  incarnation: string;
}

/** Incarnation key of shard stream `streamKey` (same Cluster slot: its hash tag is the whole key). */
export function incarnationKey(streamKey: string): string {
  return `{${streamKey}}:incarnation`;
}

/** Marker key of `eventId` on shard `streamKey` in its incarnation `incarnation` (same slot). */
export function idempotencyMarkerKey(streamKey: string, eventId: string, incarnation: string): string {
  return `{${streamKey}}:idem:${incarnation}:${eventId}`;
}

/** KEYS of the script for `eventId` on `streamKey`, named with `incarnation`. */
export function idempotentPublishKeys(streamKey: string, eventId: string, incarnation: string): string[] {
  return [streamKey, incarnationKey(streamKey), idempotencyMarkerKey(streamKey, eventId, incarnation)];
}

/** ARGV of the script. */
export function idempotentPublishArgs(
  incarnation: string,
  ttlSeconds: number,
  maxLen: number,
  approx: boolean,
  fields: Readonly<Record<string, string>>,
): string[] {
  const args = [incarnation, String(ttlSeconds), String(maxLen), approx ? '~' : '='];
  for (const [f, v] of Object.entries(fields)) args.push(f, v);
  return args;
}

/** A reply value as text (RESP2 or RESP3, ioredis or @upstash/redis), undefined when it is none. */
export function replyText(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (v instanceof Uint8Array) return new TextDecoder().decode(v);
  return undefined;
}

/** Decodes the script's reply (RESP2 or RESP3, ioredis or @upstash/redis). */
export function decodeIdempotentReply(raw: unknown): IdempotentReply | StaleIncarnation {
  if (Array.isArray(raw)) {
    const [code, value] = raw as [unknown, unknown];
    const n = Number(code);
    if (n === 0) return { status: 'missing' };
    const v = replyText(value);
    if (v !== undefined && (n === 1 || n === 2)) {
      return { status: n === 1 ? 'duplicate' : 'added', entryId: v };
    }
    if (v !== undefined && n === 4) return { status: 'stale', incarnation: v };
  }
  throw new TypeError(`unexpected reply from the idempotent-publish script: ${JSON.stringify(raw)}`);
}
