/**
 * Shard lists as ranges (`0-3,7,9-12`): how targets, holdings and ownership are stored, so a
 * member holding every shard costs a few bytes instead of thousands. The Lua scripts parse the
 * same text (see `member-read.ts`).
 */

/** The largest shard index a stored list may name (the configuration's ceiling). */
const MAX_SHARD_INDEX = 16383;

/** Encodes sorted, duplicate-free shard indexes. */
export function encodeShards(shards: readonly number[]): string {
  const out: string[] = [];
  let i = 0;
  while (i < shards.length) {
    const start = shards[i]!;
    let end = start;
    while (i + 1 < shards.length && shards[i + 1] === end + 1) {
      i++;
      end = shards[i]!;
    }
    out.push(start === end ? String(start) : `${start}-${end}`);
    i++;
  }
  return out.join(',');
}

/** Decodes a stored list; null when it is not one (out of range, descending, malformed). */
export function decodeShards(text: string): number[] | null {
  if (text === '') return [];
  const out: number[] = [];
  for (const part of text.split(',')) {
    const m = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(part);
    if (!m) return null;
    const a = Number(m[1]);
    const b = m[2] === undefined ? a : Number(m[2]);
    if (b < a || b > MAX_SHARD_INDEX || (out.length > 0 && a <= out[out.length - 1]!)) return null;
    for (let s = a; s <= b; s++) out.push(s);
  }
  return out;
}
