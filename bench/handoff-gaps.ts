/**
 * The hand-off bench's arithmetic (bench/handoff.ts), pure: from the records the consumer
 * processes handled (member, shard, handled-at), per event window, the hand-off gap of each shard
 * the event moved and the longest processing gap of the shards it did not move.
 */

/** One record as a consumer process reported it. */
export interface Handled {
  member: string;
  shard: number;
  /** When the handler started on it, epoch ms. */
  at: number;
}

/** What one event (a leave or a kill of `member`) did to the shards. */
export interface EventFigures {
  /** Per shard `member` held when the event began: last record it handled → first by another member. */
  moved: Array<{ shard: number; gapMs: number | null }>;
  /** Longest gap between consecutive records over the window, of the shards the event did not move. */
  unmovedLongestMs: number;
  /** Shards owned by someone else than `member` that changed hands in the window anyway. */
  unexpectedlyMoved: number[];
}

/** Records grouped per shard, each list in handling order. */
export function byShard(records: readonly Handled[]): Map<number, Handled[]> {
  const map = new Map<number, Handled[]>();
  for (const r of records) {
    const list = map.get(r.shard);
    if (list) list.push(r);
    else map.set(r.shard, [r]);
  }
  for (const list of map.values()) list.sort((a, b) => a.at - b.at);
  return map;
}

/** Who handled the shard's last record at or before `t`. */
export function ownerAt(list: readonly Handled[], t: number): string | undefined {
  let owner: string | undefined;
  for (const r of list) {
    if (r.at > t) break;
    owner = r.member;
  }
  return owner;
}

/**
 * Longest gap between consecutive records of one shard that overlaps [from, to]; a shard silent
 * until `to` counts up to `to` (a lower bound of its gap).
 */
function longestGap(list: readonly Handled[], from: number, to: number): number {
  let longest = 0;
  for (let i = 0; i < list.length; i++) {
    const a = list[i]!.at;
    if (a >= to) break;
    const b = i + 1 < list.length ? list[i + 1]!.at : to;
    if (b > from) longest = Math.max(longest, Math.min(b, to) - a);
  }
  return longest;
}

/** The hand-off gap of a shard `oldOwner` held at `from`, or null if nobody else took it. */
function handoffGap(list: readonly Handled[], oldOwner: string, from: number): number | null {
  let lastOld: number | null = null;
  for (const r of list) {
    if (r.member === oldOwner) lastOld = r.at;
    else if (r.at > from && lastOld !== null) return r.at - lastOld;
  }
  return null;
}

/** The figures of one event: `member` left or was killed at `from`; the window ends at `to`. */
export function eventFigures(
  records: readonly Handled[],
  member: string,
  from: number,
  to: number,
): EventFigures {
  const moved: EventFigures['moved'] = [];
  const unexpectedlyMoved: number[] = [];
  let unmovedLongestMs = 0;
  for (const [shard, all] of [...byShard(records)].sort((a, b) => a[0] - b[0])) {
    const list = all.filter((r) => r.at <= to);
    const owner = ownerAt(list, from);
    if (owner === member) {
      moved.push({ shard, gapMs: handoffGap(list, member, from) });
    } else if (list.some((r) => r.at > from && r.member !== owner)) {
      unexpectedlyMoved.push(shard);
    } else {
      unmovedLongestMs = Math.max(unmovedLongestMs, longestGap(list, from, to));
    }
  }
  return { moved, unmovedLongestMs, unexpectedlyMoved };
}

/** Longest gap of any shard over [from, to] (the steady state, before any event). */
export function longestGapOfAll(records: readonly Handled[], from: number, to: number): number {
  let longest = 0;
  for (const list of byShard(records).values()) longest = Math.max(longest, longestGap(list, from, to));
  return longest;
}
