/**
 * Idempotent publish: one script on the shard key and its marker key (same Cluster slot).
 *
 * KEYS[1] = shard stream key                 `orders:3`
 * KEYS[2] = marker key                       `{orders:3}:idem:<eventId>`
 * ARGV[1] = marker TTL in seconds
 * ARGV[2] = MAXLEN threshold
 * ARGV[3] = `~` (approximate) or `=` (exact) trimming
 * ARGV[4..] = field, value, field, value, …
 * Returns {1, id} when the marker existed (a repeat: the first entry id), {2, id} when the entry
 * was added and the marker set, {0} when the stream key is missing (nothing written).
 */
import type { LuaScript } from './lua-script.js';

const lua = `local first = redis.call('GET', KEYS[2])
if first then
  return {1, first}
end
local id = redis.call('XADD', KEYS[1], 'NOMKSTREAM', 'MAXLEN', ARGV[3], ARGV[2], '*', unpack(ARGV, 4))
if not id then
  return {0}
end
redis.call('SET', KEYS[2], id, 'EX', ARGV[1])
return {2, id}
`;

/** The idempotent-publish script (check marker → XADD NOMKSTREAM → set marker with TTL). */
export const IDEMPOTENT_PUBLISH: LuaScript = {
  name: 'idempotent-publish',
  lua,
  sha1: 'b0c9ac9bbced1fa467877a65bcfd7a5f16b89e6c',
};

/** What the script did. */
export type IdempotentReply =
  | { status: 'added'; entryId: string }
  | { status: 'duplicate'; entryId: string }
  | { status: 'missing' };

/** Marker key of `eventId` on shard `streamKey`: hash-tagged on the shard key, so in its slot. */
export function idempotencyMarkerKey(streamKey: string, eventId: string): string {
  return `{${streamKey}}:idem:${eventId}`;
}

/** ARGV of the script. */
export function idempotentPublishArgs(
  ttlSeconds: number,
  maxLen: number,
  approx: boolean,
  fields: Readonly<Record<string, string>>,
): string[] {
  const args = [String(ttlSeconds), String(maxLen), approx ? '~' : '='];
  for (const [f, v] of Object.entries(fields)) args.push(f, v);
  return args;
}

/** Decodes the script's reply (RESP2 or RESP3, ioredis or @upstash/redis). */
export function decodeIdempotentReply(raw: unknown): IdempotentReply {
  if (Array.isArray(raw)) {
    const [code, id] = raw as [unknown, unknown];
    const n = Number(code);
    if (n === 0) return { status: 'missing' };
    const entryId =
      typeof id === 'string' ? id : id instanceof Uint8Array ? new TextDecoder().decode(id) : undefined;
    if (entryId !== undefined && (n === 1 || n === 2)) {
      return { status: n === 1 ? 'duplicate' : 'added', entryId };
    }
  }
  throw new TypeError(`unexpected reply from the idempotent-publish script: ${JSON.stringify(raw)}`);
}
