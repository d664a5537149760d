/**
 * Replies of the consumer's stream commands, parsed whatever the connection's protocol (RESP2,
 * RESP3 legacy or RESP3 maps), and the order of stream ids.
 */

/** One stream entry; `fields` is null when the entry was deleted while pending. */
export interface StreamEntry {
  id: string;
  fields: Record<string, string> | null;
}

/** One row of `XPENDING … IDLE`. */
export interface PendingEntry {
  id: string;
  consumer: string;
  idleMs: number;
  deliveries: number;
}

/** True when an `INFO server` text reports Redis (or Valkey) ≥ 8.2. */
export function supportsAckDelete(info: string): boolean {
  const m = /^(?:redis_version|valkey_version):(\d+)\.(\d+)/m.exec(info);
  if (!m) return false;
  const major = Number(m[1]);
  const minor = Number(m[2]);
  // Valkey reports its own numbering; only Redis 8.2+ is known to have XACKDEL.
  if (info.includes('valkey_version:') && !info.includes('redis_version:')) return false;
  return major > 8 || (major === 8 && minor >= 2);
}

/** A reply value as text. */
export function text(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
  if (typeof v === 'number') return String(v);
  throw new TypeError('unexpected Redis reply');
}

/** Entries of an XREADGROUP reply for one key, in any reply shape. */
export function parseReadReply(reply: unknown): StreamEntry[] {
  if (reply === null || reply === undefined) return [];
  let perKey: unknown[];
  if (Array.isArray(reply)) {
    // RESP2: [[key, entries], …]; RESP3 legacy through `call`: [key, entries, …] (a flattened map).
    perKey =
      reply.length > 0 && !Array.isArray(reply[0])
        ? reply.filter((_, i) => i % 2 === 1)
        : reply.map((kv) => (kv as unknown[])[1]);
  } else if (reply instanceof Map) {
    perKey = [...reply.values()];
  } else if (typeof reply === 'object') {
    perKey = Object.values(reply as Record<string, unknown>);
  } else {
    throw new TypeError('unexpected XREADGROUP reply');
  }
  return perKey.flatMap(parseEntries);
}

/** `[[id, [f, v, …] | null], …]` → entries. */
export function parseEntries(reply: unknown): StreamEntry[] {
  if (!Array.isArray(reply)) return [];
  const out: StreamEntry[] = [];
  for (const item of reply) {
    if (!Array.isArray(item)) continue;
    const [id, flat] = item as [unknown, unknown];
    if (id === null || id === undefined) continue;
    out.push({ id: text(id), fields: parseFields(flat) });
  }
  return out;
}

function parseFields(flat: unknown): Record<string, string> | null {
  if (flat === null || flat === undefined) return null;
  const fields: Record<string, string> = {};
  if (Array.isArray(flat)) {
    for (let i = 0; i + 1 < flat.length; i += 2) fields[text(flat[i])] = text(flat[i + 1]);
  } else if (typeof flat === 'object') {
    for (const [k, v] of Object.entries(flat as Record<string, unknown>)) fields[k] = text(v);
  }
  return fields;
}

/** Rows of the extended XPENDING form. */
export function parsePending(reply: unknown): PendingEntry[] {
  if (!Array.isArray(reply)) return [];
  return reply.flatMap((row) => {
    if (!Array.isArray(row) || row.length < 4) return [];
    return [{ id: text(row[0]), consumer: text(row[1]), idleMs: Number(row[2]), deliveries: Number(row[3]) }];
  });
}

/** Orders stream ids (`ms-seq`, decimal parts without leading zeros) without allocating. */
export function compareIds(a: string, b: string): number {
  const ia = a.indexOf('-');
  const ib = b.indexOf('-');
  if (ia !== ib) return ia < ib ? -1 : 1;
  for (let i = 0; i < ia; i++) {
    const d = a.charCodeAt(i) - b.charCodeAt(i);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  const la = a.length - ia;
  const lb = b.length - ib;
  if (la !== lb) return la < lb ? -1 : 1;
  for (let i = 1; i < la; i++) {
    const d = a.charCodeAt(ia + i) - b.charCodeAt(ib + i);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return 0;
}
