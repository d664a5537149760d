/**
 * A counting semaphore whose waiters queue per lane (shard) and are served round-robin across
 * lanes, so a member with many shards bounds its in-flight records without letting a busy shard
 * starve the others.
 */

type Waiter = (granted: boolean) => void;

/** Round-robin fair semaphore. */
export class FairSemaphore {
  private available: number;
  private readonly lanes = new Map<number, Waiter[]>();
  /** Lane served last; the next grant goes to the first waiting lane after it. */
  private lastLane: number | null = null;

  constructor(readonly permits: number) {
    this.available = permits;
  }

  /** Permits held now. */
  get inUse(): number {
    return this.permits - this.available;
  }

  /** Waiters over all lanes. */
  get waiting(): number {
    let n = 0;
    for (const q of this.lanes.values()) n += q.length;
    return n;
  }

  /** Takes a permit if one is free and nobody waits (no promise: the hot path of dispatch). */
  tryAcquire(): boolean {
    if (this.available > 0 && this.lanes.size === 0) {
      this.available--;
      return true;
    }
    return false;
  }

  /** Resolves true with a permit, or false if the lane was cancelled while waiting. */
  acquire(lane: number): Promise<boolean> {
    if (this.available > 0 && this.lanes.size === 0) {
      this.available--;
      return Promise.resolve(true);
    }
    return new Promise<boolean>((resolve) => {
      let q = this.lanes.get(lane);
      if (!q) {
        q = [];
        this.lanes.set(lane, q);
      }
      q.push(resolve);
      this.dispatch();
    });
  }

  /** Returns one permit. */
  release(): void {
    this.available = Math.min(this.permits, this.available + 1);
    this.dispatch();
  }

  /** Wakes every waiter of `lane` with false (its reader stopped). */
  cancel(lane: number): void {
    const q = this.lanes.get(lane);
    if (!q) return;
    this.lanes.delete(lane);
    for (const w of q) w(false);
  }

  private dispatch(): void {
    while (this.available > 0 && this.lanes.size > 0) {
      const lane = this.nextLane();
      const q = this.lanes.get(lane)!;
      const w = q.shift()!;
      if (q.length === 0) this.lanes.delete(lane);
      this.lastLane = lane;
      this.available--;
      w(true);
    }
  }

  /** The first lane (in ascending order, wrapping) after the one served last. */
  private nextLane(): number {
    let first: number | null = null;
    let after: number | null = null;
    for (const lane of this.lanes.keys()) {
      if (first === null || lane < first) first = lane;
      if (this.lastLane !== null && lane > this.lastLane && (after === null || lane < after)) after = lane;
    }
    return after ?? first!;
  }
}
