/**
 * Small helpers over shard index lists. Every result is sorted ascending and duplicate-free,
 * so lists can be compared with `deepEqual`.
 */

/** Sorted, duplicate-free copy. */
export function sortedShards(shards: Iterable<number>): number[] {
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
  const drop = new Set(b);
  return sortedShards([...a].filter((s) => !drop.has(s)));
}

/** `a ∩ b`. */
export function intersect(a: Iterable<number>, b: Iterable<number>): number[] {
  const keep = new Set(b);
  return sortedShards([...a].filter((s) => keep.has(s)));
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
