/**
 * Redis Stream ids (`<ms>-<seq>`, both unsigned 64-bit) as the monitoring endpoints accept and
 * order them. Cursors and record ids from a request are checked here before they reach Redis.
 */

const UINT64_MAX = (1n << 64n) - 1n;
const ID_PATTERN = /^(\d{1,20})(?:-(\d{1,20}))?$/;

/** A parsed stream id. */
export interface StreamId {
  ms: bigint;
  seq: bigint;
}

/** Parses `ms-seq` or bare `ms` (sequence 0); null when it is not a valid stream id. */
export function parseStreamId(text: string): StreamId | null {
  const m = ID_PATTERN.exec(text);
  if (!m) return null;
  const ms = BigInt(m[1]!);
  const seq = BigInt(m[2] ?? '0');
  if (ms > UINT64_MAX || seq > UINT64_MAX) return null;
  return { ms, seq };
}

/** What a parameter that is not a stream id is told (`<field>: …`). */
export const NOT_A_STREAM_ID = 'must be a Redis stream id (<ms>-<seq>)';

/**
 * The canonical `ms-seq` text of a valid id (`5` → `5-0`, `007-1` → `7-1`), so it compares
 * equal to the ids Redis returns; null when invalid.
 */
export function normalizeStreamId(text: string): string | null {
  const id = parseStreamId(text);
  return id === null ? null : `${id.ms}-${id.seq}`;
}

/** Numeric order of two ids as Redis orders them; unparsable ids sort first. */
export function compareStreamIds(a: string, b: string): number {
  const x = parseStreamId(a) ?? { ms: -1n, seq: -1n };
  const y = parseStreamId(b) ?? { ms: -1n, seq: -1n };
  if (x.ms !== y.ms) return x.ms < y.ms ? -1 : 1;
  if (x.seq !== y.seq) return x.seq < y.seq ? -1 : 1;
  return 0;
}

/** The epoch-ms part of an id when it is a representable instant, else null. */
export function streamIdTimestampMs(id: string): number | null {
  const parsed = parseStreamId(id);
  if (parsed === null) return null;
  const ms = Number(parsed.ms);
  // Date covers ±8.64e15 ms; ids beyond that (or past 2^53) have no meaningful instant.
  return Number.isSafeInteger(ms) && ms <= 8.64e15 ? ms : null;
}
