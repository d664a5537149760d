/**
 * Idempotent batches: the records of one batch bound for one shard in ONE script
 * call, in order, instead of one idempotent-publish call per record. Records with an `eventId`
 * are checked against and then set their marker; plain records are appended as they are. Each
 * XADD and SET runs under `pcall`, so a refused record is reported on its own (nothing written
 * for it) and never leaves the ones before it in doubt — the same outcomes a pipeline of single
 * commands has. Markers live in the shard's incarnation, as for a single publish
 * (`idempotent-publish.ts`): a call named with another incarnation writes nothing and answers
 * the current one for every record.
 *
 * KEYS[1]    = shard stream key                      `orders:3`
 * KEYS[2]    = incarnation key                       `{orders:3}:incarnation`
 * KEYS[3..]  = marker keys of the records with an eventId, in order (same Cluster slot)
 * ARGV[1]    = the incarnation the marker keys were named with ('' when not known yet; '*' when
 *              no record has a marker, so there is nothing to name and nothing is checked)
 * ARGV[2]    = marker TTL in seconds
 * ARGV[3]    = MAXLEN threshold
 * ARGV[4]    = `~` (approximate) or `=` (exact) trimming
 * ARGV[5..]  = per record: marker position in KEYS (0 = none), field count × 2, field, value, …
 * Returns one reply per record: {1, id} repeat (the first entry id), {2, id} added, {0} stream
 * key missing, {3, error} refused, {4, incarnation} named with another incarnation.
 */

import {
  type IdempotentReply,
  INCARNATION_LUA,
  idempotencyMarkerKey,
  incarnationKey,
  replyText,
  type StaleIncarnation,
} from './idempotent-publish.js';
import type { LuaScript } from './lua-script.js';

const lua = `${INCARNATION_LUA}local out = {}
local a = 5
if ARGV[1] ~= '*' and inc ~= ARGV[1] then
  local reply = inc and {4, inc} or {0}
  while a <= #ARGV do
    out[#out + 1] = reply
    a = a + 2 + tonumber(ARGV[a + 1])
  end
  return out
end
while a <= #ARGV do
  local m = tonumber(ARGV[a])
  local n = tonumber(ARGV[a + 1])
  a = a + 2
  local reply
  local first = false
  if m > 0 then
    first = redis.pcall('GET', KEYS[m])
  end
  if type(first) == 'table' and first.err then
    reply = {3, first.err}
  elseif first then
    reply = {1, first}
  else
    local id = redis.pcall('XADD', KEYS[1], 'NOMKSTREAM', 'MAXLEN', ARGV[4], ARGV[3], '*', unpack(ARGV, a, a + n - 1))
    if type(id) == 'table' and id.err then
      reply = {3, id.err}
    elseif not id then
      redis.call('DEL', KEYS[2])
      reply = {0}
    else
      if m > 0 then
        redis.pcall('SET', KEYS[m], id, 'EX', ARGV[2])
      end
      reply = {2, id}
    end
  end
  out[#out + 1] = reply
  a = a + n
end
return out
`;

/** The idempotent-batch script. */
export const IDEMPOTENT_BATCH: LuaScript = {
  name: 'idempotent-publish-batch',
  lua,
  sha1: '1c9f87d8740134f03a12bc817bb5ee60b48cd5ea',
};

/** One record of a batch: its fields, and its `eventId` when it has one. */
export interface BatchRecord {
  eventId?: string | undefined;
  fields: Readonly<Record<string, string>>;
}

/**
 * KEYS and ARGV of one batch call on `key`, its markers named with `incarnation` (sent as '*'
 * when no record has an eventId: plain records need no incarnation).
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
  const args = [plain ? '*' : incarnation, String(ttlSeconds), String(maxLen), approx ? '~' : '='];
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
  return { keys, args };
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
