/**
 * Idempotent batches: the records of one batch bound for one shard in ONE script
 * call, in order, instead of one idempotent-publish call per record. Records with an `eventId`
 * are checked against and then set their marker; plain records are appended as they are. Each
 * XADD and SET runs under `pcall`, so a refused record is reported on its own (nothing written
 * for it) and never leaves the ones before it in doubt — the same outcomes a pipeline of single
 * commands has.
 *
 * KEYS[1]    = shard stream key                      `orders:3`
 * KEYS[2..]  = marker keys of the records with an eventId, in order (same Cluster slot)
 * ARGV[1]    = marker TTL in seconds
 * ARGV[2]    = MAXLEN threshold
 * ARGV[3]    = `~` (approximate) or `=` (exact) trimming
 * ARGV[4..]  = per record: marker position in KEYS (0 = none), field count × 2, field, value, …
 * Returns one reply per record: {1, id} repeat (the first entry id), {2, id} added, {0} stream
 * key missing, {3, error} refused.
 */

import type { IdempotentReply } from './idempotent-publish.js';
import type { LuaScript } from './lua-script.js';

const lua = `local out = {}
local a = 4
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
    local id = redis.pcall('XADD', KEYS[1], 'NOMKSTREAM', 'MAXLEN', ARGV[3], ARGV[2], '*', unpack(ARGV, a, a + n - 1))
    if type(id) == 'table' and id.err then
      reply = {3, id.err}
    elseif not id then
      reply = {0}
    else
      if m > 0 then
        redis.pcall('SET', KEYS[m], id, 'EX', ARGV[1])
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
  sha1: '6b9dc972a11894311e0cb95e528bf67b932f53a0',
};

/** One record of a batch: its fields, and its marker key when it has an `eventId`. */
export interface BatchRecord {
  markerKey?: string | undefined;
  fields: Readonly<Record<string, string>>;
}

/** KEYS and ARGV of one batch call on `key`. */
export function idempotentBatchCall(
  key: string,
  ttlSeconds: number,
  maxLen: number,
  approx: boolean,
  records: readonly BatchRecord[],
): { keys: string[]; args: string[] } {
  const keys = [key];
  const args = [String(ttlSeconds), String(maxLen), approx ? '~' : '='];
  for (const r of records) {
    let marker = 0;
    if (r.markerKey !== undefined) {
      keys.push(r.markerKey);
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
export type BatchReply = IdempotentReply | { status: 'refused'; text: string };

function text(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (v instanceof Uint8Array) return new TextDecoder().decode(v);
  return undefined;
}

/** Decodes the script's reply for `count` records (RESP2 or RESP3, ioredis or @upstash/redis). */
export function decodeBatchReply(raw: unknown, count: number): BatchReply[] {
  if (!Array.isArray(raw) || raw.length !== count) {
    throw new TypeError(`unexpected reply from the idempotent-batch script for ${count} records`);
  }
  return raw.map((item): BatchReply => {
    const [code, value] = Array.isArray(item) ? (item as [unknown, unknown]) : [undefined, undefined];
    const n = Number(code);
    const v = text(value);
    if (n === 0) return { status: 'missing' };
    if (v !== undefined && n === 1) return { status: 'duplicate', entryId: v };
    if (v !== undefined && n === 2) return { status: 'added', entryId: v };
    if (v !== undefined && n === 3) return { status: 'refused', text: v };
    throw new TypeError('unexpected record reply from the idempotent-batch script');
  });
}
