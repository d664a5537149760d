/**
 * Remembers the shard of an idempotent publish whose outcome is unknown (Redis error or timeout
 * after sending). Its retry — in the same call or a later one by the application — must go to
 * that shard: only there does the marker prove whether the first attempt landed. Bounded in
 * size and age (an entry older than the marker TTL proves nothing any more).
 */
import type { ShardTarget } from './routing.js';

/** Options of `InDoubtShards`. */
export interface InDoubtOptions {
  /** Most entries kept; the oldest go first. */
  maxEntries: number;
  /** How long an entry is kept, ms. */
  ttlMs: number;
  /** Clock in ms. */
  now: () => number;
}

/** eventId → the shard its unanswered publish went to. */
export class InDoubtShards {
  private readonly entries = new Map<string, { target: ShardTarget; at: number }>();

  constructor(private readonly opts: InDoubtOptions) {}

  /** The shard `eventId` must retry on, if its earlier publish is in doubt. */
  get(eventId: string): ShardTarget | undefined {
    const e = this.entries.get(eventId);
    if (!e) return undefined;
    if (this.opts.now() - e.at >= this.opts.ttlMs) {
      this.entries.delete(eventId);
      return undefined;
    }
    return e.target;
  }

  /** Records that `eventId` was sent to `target` without a known outcome. */
  remember(eventId: string, target: ShardTarget): void {
    // Keep the first shard: a later attempt went there only because it was remembered.
    if (this.get(eventId)) return;
    this.entries.set(eventId, { target, at: this.opts.now() });
    while (this.entries.size > this.opts.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }

  /** Forgets `eventId` (its outcome is known now, or its shard is gone). */
  forget(eventId: string): void {
    this.entries.delete(eventId);
  }

  /** Number of remembered events. */
  get size(): number {
    return this.entries.size;
  }
}
