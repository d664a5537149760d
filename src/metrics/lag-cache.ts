/**
 * The lag readings behind the scrape-time lag gauges, bounded in Redis cost: they are re-read
 * at most once per `refreshMs` (scrapes in between, or at the same time, share one read), and
 * one refresh reads at most `maxShards` shard streams. A namespace with more shards is covered
 * round-robin over several refreshes; each shard keeps its last reading until its turn comes.
 */
import type { GroupSnapshot } from '../coordinator-api.js';
import { consumableShards } from '../core/model.js';
import type { StreamInspector } from '../store/inspector.js';
import { type GroupLag, groupLag, readStreamLag, type ShardLag } from './group-lag.js';

/** Options of `LagCache`. */
export interface LagCacheOptions {
  inspector: StreamInspector;
  /** Least time between two reads, ms. */
  refreshMs: number;
  /** Shard streams read per refresh (at least 1). */
  maxShards: number;
  /** Epoch-ms clock. @default Date.now */
  now?: () => number;
}

/** Cached lag of every group, refreshed on demand within its budget. */
export class LagCache {
  private readonly opts: LagCacheOptions;
  private readonly now: () => number;
  /** stream\0group → shard → last reading. */
  private readonly shards = new Map<string, Map<number, ShardLag>>();
  private lastRefresh = Number.NEGATIVE_INFINITY;
  private refreshing: Promise<void> | null = null;
  private cursor = 0;
  /** Shard streams read by the last refresh (for tests and the cost bound). */
  lastReadShards = 0;
  /** When the readings were last refreshed, epoch ms (null before the first read). */
  readAt: number | null = null;

  constructor(opts: LagCacheOptions) {
    this.opts = opts;
    this.now = opts.now ?? Date.now;
  }

  /** The lag of each group of `snaps` (refreshing first when due). */
  async lags(snaps: readonly GroupSnapshot[]): Promise<GroupLag[]> {
    if (this.refreshing === null && this.now() - this.lastRefresh >= this.opts.refreshMs) {
      this.lastRefresh = this.now();
      this.refreshing = this.refresh(snaps).finally(() => {
        this.refreshing = null;
      });
    }
    if (this.refreshing !== null) await this.refreshing;
    const at = this.readAt ?? this.now();
    return snaps.map((s) => {
      const key = groupKey(s);
      const byShard = this.shards.get(key);
      const list = consumableShards(s.stream)
        .map((i) => byShard?.get(i))
        .filter((x): x is ShardLag => x !== undefined);
      return groupLag(s.stream.streamPrefix, s.group.consumerGroup, list, at);
    });
  }

  private async refresh(snaps: readonly GroupSnapshot[]): Promise<void> {
    const byStream = new Map<string, GroupSnapshot[]>();
    for (const s of snaps) {
      const list = byStream.get(s.stream.streamPrefix) ?? [];
      list.push(s);
      byStream.set(s.stream.streamPrefix, list);
    }
    // Every (stream, shard) in a stable order; this refresh takes `maxShards` of them from the cursor on.
    const work: Array<{ prefix: string; shard: number }> = [];
    for (const prefix of [...byStream.keys()].sort()) {
      for (const shard of consumableShards(byStream.get(prefix)![0]!.stream)) work.push({ prefix, shard });
    }
    const take = Math.min(work.length, Math.max(1, this.opts.maxShards));
    if (this.cursor >= work.length) this.cursor = 0;
    const chosen = new Map<string, number[]>();
    for (let i = 0; i < take; i++) {
      const w = work[(this.cursor + i) % work.length]!;
      chosen.set(w.prefix, [...(chosen.get(w.prefix) ?? []), w.shard]);
    }
    this.cursor = work.length === 0 ? 0 : (this.cursor + take) % work.length;
    const now = this.now();
    const results = await Promise.all(
      [...chosen].map(([prefix, shards]) =>
        readStreamLag(this.opts.inspector, byStream.get(prefix)!, shards, now),
      ),
    );
    // Forget groups that no longer exist; keep the readings of shards not read this time.
    const present = new Set(snaps.map(groupKey));
    for (const key of [...this.shards.keys()]) if (!present.has(key)) this.shards.delete(key);
    for (const lag of results.flat()) {
      const key = `${lag.streamPrefix}\u0000${lag.consumerGroup}`;
      const map = this.shards.get(key) ?? new Map<number, ShardLag>();
      for (const s of lag.shards) map.set(s.shardIndex, s);
      this.shards.set(key, map);
    }
    this.lastReadShards = take;
    this.readAt = now;
  }
}

function groupKey(s: GroupSnapshot): string {
  return `${s.stream.streamPrefix}\u0000${s.group.consumerGroup}`;
}
