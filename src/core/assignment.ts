/**
 * The target assignor (docs/protocol.md#sticky-assignment with docs/protocol.md#full-balance): sticky, fully balanced, deterministic.
 *
 * Unlike the reference's one-shard-at-a-time balancing loop (which can stop at spread 2,
 * docs/protocol.md#deviation-full-balance), loads are fixed up front: with S shards and n members every member gets
 * ⌊S/n⌋ shards and S mod n of them one more. The extra slots go to the members that already
 * keep the most shards, which maximises how many shards stay where they were; overloaded members
 * give up their highest shard indexes. Among members that keep as many shards, a move is given to
 * the one due soonest when the caller knows who that is (`dueRank`): a shard must first be
 * given up, at its holder's next heartbeat, so the holder that comes back first gives it up, and
 * the member that comes back first receives one. Without it (or on a tie) the smallest id.
 */

import { dict, own } from './dict.js';
import { compareIds, sortedShards } from './shard-set.js';

/** Sticky, fully balanced target assignment (docs/protocol.md#full-balance): live member ids (any order; sort inside), assignable shards, previous targets. */
export function computeTargetAssignment(
  liveMemberIds: string[],
  shards: number[],
  previous: Record<string, number[]>,
): Record<string, number[]> {
  return dict(targetAssignment(liveMemberIds, shards, (id) => own(previous, id)));
}

/**
 * `computeTargetAssignment` over a lookup of previous targets, as a map in member id order —
 * what large groups use: records of thousands of keys are slow to build and walk.
 */
export function targetAssignment(
  liveMemberIds: readonly string[],
  shards: readonly number[],
  previousOf: (memberId: string) => readonly number[] | undefined,
  dueRank?: (memberId: string) => number,
): Map<string, number[]> {
  const members = [...new Set(liveMemberIds)].sort(compareIds);
  const result = new Map<string, number[]>();
  if (members.length === 0) return result;
  const all = sortedShards(shards);
  const assignable = new Set(all);

  // Keep every shard with its previous live owner (first owner in id order if the previous
  // map was inconsistent).
  const kept = new Map<string, number[]>(members.map((m) => [m, []]));
  const owner = new Map<number, string>();
  for (const m of members) {
    for (const s of sortedShards(previousOf(m) ?? [])) {
      if (assignable.has(s) && !owner.has(s)) {
        owner.set(s, m);
        kept.get(m)!.push(s);
      }
    }
  }

  const quota = quotas(members, all.length, kept, dueRank);
  for (const m of members) {
    const mine = kept.get(m)!;
    const q = quota.get(m)!;
    // Sorted ascending, so dropping from the end gives up the highest indexes.
    result.set(m, mine.slice(0, q));
    for (const s of mine.slice(q)) owner.delete(s);
  }

  // Free shards go, ascending, to the member below its quota with the fewest shards (ties →
  // smallest id): a heap keyed that way keeps this O((S + n) log n) for large groups.
  const receivers = new MinHeap<{ id: string; load: number }>(
    (a, b) => a.load - b.load || compareIds(a.id, b.id),
  );
  for (const m of members) {
    const load = result.get(m)!.length;
    if (load < quota.get(m)!) receivers.push({ id: m, load });
  }
  const received = new Set<string>();
  for (const s of all) {
    if (owner.has(s)) continue;
    // Quotas add up to the shard count, so a free slot always exists.
    const r = receivers.pop()!;
    result.get(r.id)!.push(s);
    owner.set(s, r.id);
    received.add(r.id);
    if (r.load + 1 < quota.get(r.id)!) receivers.push({ id: r.id, load: r.load + 1 });
  }
  // Kept shards were ascending; a member that received free shards may now be out of order.
  for (const m of received) result.set(m, sortedShards(result.get(m)!));
  return result;
}

/**
 * Per-member target sizes: ⌊S/n⌋, plus one for the S mod n members keeping the most shards. On a
 * tie, members keeping more than ⌊S/n⌋ (who keep the extra shard or give it up) hand it over
 * due soonest first, so the latest keep it; members keeping fewer (who receive it) take it due
 * soonest first.
 */
function quotas(
  members: string[],
  shardCount: number,
  kept: Map<string, number[]>,
  dueRank: ((memberId: string) => number) | undefined,
): Map<string, number> {
  const base = Math.floor(shardCount / members.length);
  const extra = shardCount % members.length;
  const byKept = [...members].sort((a, b) => {
    const ka = kept.get(a)!.length;
    const by = kept.get(b)!.length - ka;
    if (by !== 0 || !dueRank) return by || compareIds(a, b);
    const due = dueRank(a) - dueRank(b);
    return (ka > base ? -due : due) || compareIds(a, b);
  });
  const out = new Map<string, number>();
  byKept.forEach((m, i) => {
    out.set(m, base + (i < extra ? 1 : 0));
  });
  return out;
}

/** A binary min-heap. */
class MinHeap<T> {
  private readonly items: T[] = [];

  constructor(private readonly less: (a: T, b: T) => number) {}

  push(item: T): void {
    const a = this.items;
    a.push(item);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.less(a[i]!, a[parent]!) >= 0) break;
      [a[i], a[parent]] = [a[parent]!, a[i]!];
      i = parent;
    }
  }

  pop(): T | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length === 0 || last === undefined) return top;
    a[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < a.length && this.less(a[l]!, a[m]!) < 0) m = l;
      if (r < a.length && this.less(a[r]!, a[m]!) < 0) m = r;
      if (m === i) return top;
      [a[i], a[m]] = [a[m]!, a[i]!];
      i = m;
    }
  }
}
