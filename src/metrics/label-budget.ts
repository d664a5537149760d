/**
 * Bounded cardinality for stream/group labels: up to `max` stream/group pairs keep their own label
 * values; every other pair is reported as `OTHER_LABEL` (its series summed with the other
 * overflow). Slots are given only from a snapshot of the groups that exist (`sync`, at scrape
 * time); requests and events only look their pair up, so a request naming a made-up stream or
 * group never costs a slot (docs/metrics.md#reference-compatible-metrics-actuatorprometheus).
 */
import type { GroupSnapshot } from '../coordinator-api.js';

/** Label value of series aggregated past the cap. */
export const OTHER_LABEL = '_other';
/** Label value of requests that address no stream or group (as the reference labels them). */
export const NONE_LABEL = 'none';

/** The `stream` and `group` label values of one series. */
export interface GroupLabels {
  stream: string;
  group: string;
}

const keyOf = (stream: string, group: string) => `${stream}\u0000${group}`;
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The stream/group pairs of `snaps` in the order slots are given (stream, then group). */
export function snapshotPairs(snaps: readonly GroupSnapshot[]): GroupLabels[] {
  return snaps
    .map((s) => ({ stream: s.stream.streamPrefix, group: s.group.consumerGroup }))
    .sort((a, b) => compare(a.stream, b.stream) || compare(a.group, b.group));
}

/** Up to `max` stream/group pairs with their own labels. */
export class LabelBudget {
  private readonly admitted = new Map<string, GroupLabels>();
  /** Slots held per stream (a stream-wide request keeps its stream label while one is held). */
  private readonly streams = new Map<string, number>();
  private overflowed = 0;

  constructor(readonly max: number) {}

  /**
   * Takes the pairs that exist now (a snapshot of the stored groups, in the order slots should be
   * given): a pair that holds a slot and still exists keeps it, a pair that no longer exists
   * gives its slot back, and pairs without one take the free slots in `pairs` order. Returns
   * the released pairs (their series should go).
   */
  sync(pairs: readonly GroupLabels[]): GroupLabels[] {
    const present = new Set(pairs.map((p) => keyOf(p.stream, p.group)));
    const released: GroupLabels[] = [];
    for (const [key, labels] of this.admitted) {
      if (present.has(key)) continue;
      this.admitted.delete(key);
      const left = (this.streams.get(labels.stream) ?? 1) - 1;
      if (left > 0) this.streams.set(labels.stream, left);
      else this.streams.delete(labels.stream);
      released.push(labels);
    }
    this.overflowed = 0;
    for (const { stream, group } of pairs) {
      const key = keyOf(stream, group);
      if (this.admitted.has(key)) continue;
      if (this.admitted.size >= this.max) {
        this.overflowed++;
        continue;
      }
      this.admitted.set(key, { stream, group });
      this.streams.set(stream, (this.streams.get(stream) ?? 0) + 1);
    }
    return released;
  }

  /** Labels of a pair: its own when it holds a slot, else `_other`. Never takes a slot. */
  lookup(stream: string, group: string): GroupLabels {
    return this.admitted.has(keyOf(stream, group))
      ? { stream, group }
      : { stream: OTHER_LABEL, group: OTHER_LABEL };
  }

  /**
   * Labels of a request about a whole stream (no group): `stream` when one of its groups holds a
   * slot, else `_other`; the group label is `none`. Stream-level requests never take a slot.
   */
  streamOnly(stream: string): GroupLabels {
    return { stream: this.streams.has(stream) ? stream : OTHER_LABEL, group: NONE_LABEL };
  }

  /** True while one of the stream's groups holds a slot. */
  hasStream(stream: string): boolean {
    return this.streams.has(stream);
  }

  /** Pairs holding a slot. */
  get size(): number {
    return this.admitted.size;
  }

  /** Pairs of the last snapshot left without a slot (summed under `_other`). */
  get overflowCount(): number {
    return this.overflowed;
  }
}
