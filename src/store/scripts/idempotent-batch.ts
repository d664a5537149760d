/**
 * Idempotent batches: the records of one batch in ONE script call, in order, instead of one
 * idempotent-publish call per record. A call holds one segment per shard; over one slot (one
 * Redis, Upstash) a whole batch is one call whatever the shards it touches, on a Cluster each
 * shard's segment is its own call. Records with an `eventId` are checked against and then set
 * their marker; plain records are appended as they are. Every command runs under `pcall`, so a
 * refused record (or a shard whose incarnation cannot be read) is reported on its own and never
 * leaves the records and shards before it in doubt — the same outcomes a pipeline of single
 * commands has. Markers live in the shard's incarnation, as for a single publish
 * (`idempotent-publish.ts`): a segment named with another incarnation writes nothing and answers
 * the current one for each of its records.
 *
 * KEYS, per segment:
 *   1        = shard stream key                      `orders:3`
 *   2        = incarnation key                       `{orders:3}:incarnation`
 *   3..      = marker keys of the records with an eventId, in order (the shard's Cluster slot)
 * ARGV, per segment:
 *   key count, then the count of the segment's arguments that follow:
 *   1        = the incarnation the marker keys were named with ('' when not known yet; '*' when
 *              no record has a marker, so there is nothing to name and nothing is checked)
 *   2        = marker TTL in seconds
 *   3        = MAXLEN threshold
 *   4        = `~` (approximate) or `=` (exact) trimming
 *   5..      = per record: marker position among the segment's KEYS (0 = none), field count × 2,
 *              field, value, …
 * Returns one reply per record, segments in order: {1, id} repeat (the first entry id), {2, id}
 * added, {0} stream key missing, {3, error} refused, {4, incarnation} named with another
 * incarnation.
 */

import {
  type IdempotentReply,
  idempotencyMarkerKey,
  incarnationKey,
  replyText,
  type StaleIncarnation,
} from './idempotent-publish.js';
import type { LuaScript } from './lua-script.js';

// The incarnation read of the single publish (idempotent-publish.ts), under pcall: a later segment's failure must not end
// the script after earlier segments wrote (Redis keeps what a failed script wrote).
const lua = `local out = {}
local k = 0
local a = 1
local function fails(r)
  if type(r) == 'table' and r.err then return r.err end
  return nil
end
while a <= #ARGV do
  local nk = tonumber(ARGV[a])
  local stop = a + 2 + tonumber(ARGV[a + 1])
  local key, inckey, named = KEYS[k + 1], KEYS[k + 2], ARGV[a + 2]
  local ttl, maxlen, trim = ARGV[a + 3], ARGV[a + 4], ARGV[a + 5]
  local r = a + 6
  local inc = redis.pcall('GET', inckey)
  local err = fails(inc)
  if not err and not inc then
    local e = redis.pcall('EXISTS', key)
    err = fails(e)
    if e == 1 then
      local t = redis.call('TIME')
      inc = string.format('%x%05x', tonumber(t[1]), tonumber(t[2]))
      err = fails(redis.pcall('SET', inckey, inc))
    end
  end
  local all = nil
  if err then
    all = {3, err}
  elseif named ~= '*' and inc ~= named then
    all = inc and {4, inc} or {0}
  end
  while r < stop do
    local m = tonumber(ARGV[r])
    local n = tonumber(ARGV[r + 1])
    r = r + 2
    local reply = all
    if not reply then
      local first = false
      if m > 0 then
        first = redis.pcall('GET', KEYS[k + m])
      end
      if fails(first) then
        reply = {3, first.err}
      elseif first then
        reply = {1, first}
      else
        local id = redis.pcall('XADD', key, 'NOMKSTREAM', 'MAXLEN', trim, maxlen, '*', unpack(ARGV, r, r + n - 1))
        if fails(id) then
          reply = {3, id.err}
        elseif not id then
          redis.pcall('DEL', inckey)
          reply = {0}
        else
          if m > 0 then
            redis.pcall('SET', KEYS[k + m], id, 'EX', ttl)
          end
          reply = {2, id}
        end
      end
    end
    out[#out + 1] = reply
    r = r + n
  end
  a = stop
  k = k + nk
end
return out
`;

/** The idempotent-batch script. */
export const IDEMPOTENT_BATCH: LuaScript = {
  name: 'idempotent-publish-batch',
  lua,
  sha1: 'ac5f2c423b5f743e24167502eff9613e63a51d31',
};

/** One record of a batch: its fields, and its `eventId` when it has one. */
export interface BatchRecord {
  eventId?: string | undefined;
  fields: Readonly<Record<string, string>>;
}

/**
 * KEYS and ARGV of the segment of `key` (one shard) in a batch call, its markers named with
 * `incarnation` (sent as '*' when no record has an eventId: plain records need no incarnation).
 * A call of one shard is its segment; `joinBatchCalls` puts several shards in one call.
 */
export function idempotentBatchCall(
  key: string,
  incarnation: string,
  ttlSeconds: number,
  maxLen: number,
  approx: boolean,
  records: readonly BatchRecord[],
): { keys: string[]; args: string[] } {
  const keys = [key, incarnationKey(key)];
  const plain = records.length > 0 && records.every((r) => r.eventId === undefined);
  const args = ['2', '0', plain ? '*' : incarnation, String(ttlSeconds), String(maxLen), approx ? '~' : '='];
  for (const r of records) {
    let marker = 0;
    if (r.eventId !== undefined) {
      keys.push(idempotencyMarkerKey(key, r.eventId, incarnation));
      marker = keys.length;
    }
    const at = args.length;
    args.push(String(marker), '0');
    for (const f in r.fields) if (Object.hasOwn(r.fields, f)) args.push(f, r.fields[f]!);
    args[at + 1] = String(args.length - at - 2);
  }
  args[0] = String(keys.length);
  args[1] = String(args.length - 2);
  return { keys, args };
}

/** One batch call of several shards' segments, in order (their replies follow the same order). */
export function joinBatchCalls(segments: readonly { keys: string[]; args: string[] }[]): {
  keys: string[];
  args: string[];
} {
  if (segments.length === 1) return segments[0]!;
  return { keys: segments.flatMap((s) => s.keys), args: segments.flatMap((s) => s.args) };
}

/** One record's reply: what the single-record script would say, or the error text of a refusal. */
export type BatchReply = IdempotentReply | StaleIncarnation | { status: 'refused'; text: string };

/** Decodes the script's reply for `count` records (RESP2 or RESP3, ioredis or @upstash/redis). */
export function decodeBatchReply(raw: unknown, count: number): BatchReply[] {
  if (!Array.isArray(raw) || raw.length !== count) {
    throw new TypeError(`unexpected reply from the idempotent-batch script for ${count} records`);
  }
  return raw.map((item): BatchReply => {
    const [code, value] = Array.isArray(item) ? (item as [unknown, unknown]) : [undefined, undefined];
    const n = Number(code);
    const v = replyText(value);
    if (n === 0) return { status: 'missing' };
    if (v !== undefined && n === 1) return { status: 'duplicate', entryId: v };
    if (v !== undefined && n === 2) return { status: 'added', entryId: v };
    if (v !== undefined && n === 3) return { status: 'refused', text: v };
    if (v !== undefined && n === 4) return { status: 'stale', incarnation: v };
    throw new TypeError('unexpected record reply from the idempotent-batch script');
  });
}
