/**
 * Small helpers over shard index lists. Every result is sorted ascending and duplicate-free,
 * so lists can be compared with `deepEqual`. Lists that already are (stored targets and
 * holdings always are) take a linear fast path: large groups call these a lot.
 */

/** True when `a` is strictly increasing (sorted, no repeats). */
function strictlySorted(a: readonly number[]): boolean {
  for (let i = 1; i < a.length; i++) if (a[i]! <= a[i - 1]!) return false;
  return true;
}

/** Sorted, duplicate-free copy. */
export function sortedShards(shards: Iterable<number>): number[] {
  if (Array.isArray(shards) && strictlySorted(shards)) return shards.slice();
  return [...new Set(shards)].sort((a, b) => a - b);
}

/** `a ∪ b`. */
export function union(...lists: Iterable<number>[]): number[] {
  const out = new Set<number>();
  for (const l of lists) for (const s of l) out.add(s);
  return sortedShards(out);
}

/** `a − b`. */
export function minus(a: Iterable<number>, b: Iterable<number>): number[] {
  const drop = b instanceof Set ? (b as Set<number>) : new Set(b);
  const out: number[] = [];
  for (const s of a) if (!drop.has(s)) out.push(s);
  return sortedShards(out);
}

/** `a ∩ b`. */
export function intersect(a: Iterable<number>, b: Iterable<number>): number[] {
  const keep = b instanceof Set ? (b as Set<number>) : new Set(b);
  const out: number[] = [];
  for (const s of a) if (keep.has(s)) out.push(s);
  return sortedShards(out);
}

/** True when both lists hold the same shards (order and duplicates ignored). */
export function sameShards(a: Iterable<number>, b: Iterable<number>): boolean {
  const x = sortedShards(a);
  const y = sortedShards(b);
  return x.length === y.length && x.every((s, i) => s === y[i]);
}

/** Member id order of the protocol: plain code-unit comparison (as the reference's String order). */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
