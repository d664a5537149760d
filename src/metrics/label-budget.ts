/**
 * Bounded cardinality for stream/group labels: the first `max` distinct pairs admitted keep
 * their own label values for the life of the process; every later pair is reported as
 * `OTHER_LABEL` (its series summed with the other overflow). Only pairs that exist should be
 * admitted (a request for an unknown stream never costs a slot).
 */

/** Label value of series aggregated past the cap. */
export const OTHER_LABEL = '_other';
/** Label value of requests that address no stream or group (as the reference labels them). */
export const NONE_LABEL = 'none';

/** The `stream` and `group` label values of one series. */
export interface GroupLabels {
  stream: string;
  group: string;
}

/** Up to `max` stream/group pairs with their own labels. */
export class LabelBudget {
  private readonly admitted = new Set<string>();
  private readonly streams = new Set<string>();
  private overflowed = 0;

  constructor(readonly max: number) {}

  /** Labels of a pair known to exist: admitted while there is room, else `_other`. */
  admit(stream: string, group: string): GroupLabels {
    const key = `${stream}\u0000${group}`;
    if (this.admitted.has(key)) return { stream, group };
    if (this.admitted.size < this.max) {
      this.admitted.add(key);
      this.streams.add(stream);
      return { stream, group };
    }
    this.overflowed++;
    return { stream: OTHER_LABEL, group: OTHER_LABEL };
  }

  /** Labels of a pair that may not exist: its own when already admitted, else `_other`. */
  lookup(stream: string, group: string): GroupLabels {
    return this.admitted.has(`${stream}\u0000${group}`)
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

  /** Pairs admitted so far. */
  get size(): number {
    return this.admitted.size;
  }

  /** How many times a pair was refused a slot (for a gauge operators can alert on). */
  get overflowCount(): number {
    return this.overflowed;
  }
}
