/**
 * Parsing of raw `XINFO STREAM`, `XINFO GROUPS` and `XRANGE` replies. RESP2 gives flat
 * `[name, value, …]` arrays; a RESP3 client may give a Map or a plain object instead, so every
 * shape is accepted. Unknown or malformed values become null, never an exception.
 */
import type { ConsumerGroupInfo, StreamInfo, StreamRecord } from './inspector.js';

/** Name → value pairs of a RESP2 flat array, a Map or a plain object. */
export function entries(reply: unknown): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (Array.isArray(reply)) {
    for (let i = 0; i + 1 < reply.length; i += 2) {
      const name = stringOrNull(reply[i]);
      if (name !== null) out.set(name, reply[i + 1]);
    }
  } else if (reply instanceof Map) {
    for (const [k, v] of reply) {
      const name = stringOrNull(k);
      if (name !== null) out.set(name, v);
    }
  } else if (reply !== null && typeof reply === 'object') {
    for (const [k, v] of Object.entries(reply)) out.set(k, v);
  }
  return out;
}

/** A string (or Buffer) reply as text; null for anything else. */
export function stringOrNull(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (v instanceof Uint8Array) return new TextDecoder().decode(v);
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return null;
}

/** An integer reply (number or numeric text) as a number; null for nil or anything else. */
export function integerOrNull(v: unknown): number | null {
  if (typeof v === 'number') return Number.isInteger(v) ? v : null;
  const s = stringOrNull(v);
  if (s === null || !/^-?\d+$/.test(s)) return null;
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : null;
}

/** The id of an `[id, fields]` entry (XINFO STREAM first-entry / last-entry), or null. */
function entryId(v: unknown): string | null {
  return Array.isArray(v) ? stringOrNull(v[0]) : null;
}

/** `XINFO STREAM` reply → StreamInfo; null when it is not a stream description. */
export function parseStreamInfo(reply: unknown): StreamInfo | null {
  const e = entries(reply);
  const length = integerOrNull(e.get('length'));
  if (length === null) return null;
  return {
    length,
    firstRecordId: entryId(e.get('first-entry')),
    lastRecordId: entryId(e.get('last-entry')),
    lastGeneratedId: stringOrNull(e.get('last-generated-id')),
    entriesAdded: integerOrNull(e.get('entries-added')),
  };
}

/** `XINFO GROUPS` reply → one entry per group that has a name. */
export function parseGroups(reply: unknown): ConsumerGroupInfo[] {
  const out: ConsumerGroupInfo[] = [];
  for (const raw of Array.isArray(reply) ? reply : []) {
    const e = entries(raw);
    const name = stringOrNull(e.get('name'));
    if (name === null) continue;
    out.push({
      name,
      consumers: integerOrNull(e.get('consumers')),
      pending: integerOrNull(e.get('pending')),
      lastDeliveredId: stringOrNull(e.get('last-delivered-id')),
      entriesRead: integerOrNull(e.get('entries-read')),
      lag: integerOrNull(e.get('lag')),
    });
  }
  return out;
}

/** One `[id, [field, value, …]]` range entry; null when malformed. A repeated field keeps its last value. */
export function parseRecord(raw: unknown): StreamRecord | null {
  if (!Array.isArray(raw)) return null;
  const id = stringOrNull(raw[0]);
  if (id === null) return null;
  const fields = Object.create(null) as Record<string, string>;
  for (const [k, v] of entries(raw[1])) fields[k] = stringOrNull(v) ?? '';
  return { id, fields };
}
