/**
 * Lag, pending and oldest-pending age of a consumer group per shard, read from Redis:
 * `XINFO STREAM`/`XINFO GROUPS`/`MEMORY USAGE` per shard (one pipeline or script call, the
 * offsets read) plus `XPENDING key group` (summary form) for each shard with entries pending.
 * Edge-safe: the Worker's lag route and the Node scrape cache share it.
 */
import type { GroupSnapshot } from '../coordinator-api.js';
import { consumableShards } from '../core/model.js';
import { groupOf, type ShardReading, type StreamInspector } from '../store/inspector.js';
import { shardKey } from '../store/keys.js';

/** One shard of a group's lag. */
export interface ShardLag {
  shardIndex: number;
  streamKey: string;
  /** `XLEN` (0 when the key is missing). */
  streamLength: number;
  /** `XINFO GROUPS` lag: entries not yet delivered to the group; null when Redis cannot tell. */
  lag: number | null;
  /** `XINFO GROUPS` pending: delivered, not acknowledged. */
  pending: number;
  /** Entries the group has read (Redis ≥ 7), null when unknown. */
  entriesRead: number | null;
  lastDeliveredId: string | null;
  /** Smallest pending id (`XPENDING` summary), null when nothing is pending. */
  oldestPendingId: string | null;
  /** Now minus the oldest pending id's millisecond part; null when nothing is pending. */
  oldestPendingAgeMs: number | null;
  memoryUsageBytes: number | null;
  lastRecordId: string | null;
  lastGeneratedId: string | null;
}

/** A group's lag over its consumable shards. */
export interface GroupLag {
  streamPrefix: string;
  consumerGroup: string;
  /** Sum of the shards' known lag (KEDA's `metrics-api` value). */
  totalLag: number;
  /** Sum of the shards' pending counts. */
  totalPending: number;
  /** Largest oldest-pending age over the shards, null when nothing is pending. */
  oldestPendingAgeMs: number | null;
  /** Shards whose lag Redis could not tell (excluded from `totalLag`). */
  lagUnknownShards: number;
  /** When it was read, epoch ms. */
  readAtMs: number;
  shards: ShardLag[];
}

/** The millisecond part of a stream id (`1700000000000-3` → 1700000000000), null when malformed. */
export function idMillis(id: string | null): number | null {
  if (id === null) return null;
  const ms = Number(id.split('-')[0]);
  return Number.isFinite(ms) ? ms : null;
}

/** One shard's lag from its reading and `XPENDING` summary. */
function shardLag(
  shard: number,
  reading: ShardReading | undefined,
  group: string,
  oldestPendingId: string | null,
  now: number,
): ShardLag {
  const g = reading ? groupOf(reading, group) : null;
  const oldest = idMillis(oldestPendingId);
  return {
    shardIndex: shard,
    streamKey: reading?.streamKey ?? '',
    streamLength: reading?.stream?.length ?? 0,
    lag: g?.lag ?? null,
    pending: g?.pending ?? 0,
    entriesRead: g?.entriesRead ?? null,
    lastDeliveredId: g?.lastDeliveredId ?? null,
    oldestPendingId,
    oldestPendingAgeMs: oldest === null ? null : Math.max(0, now - oldest),
    memoryUsageBytes: reading?.memoryUsageBytes ?? null,
    lastRecordId: reading?.stream?.lastRecordId ?? null,
    lastGeneratedId: reading?.stream?.lastGeneratedId ?? null,
  };
}

/** Totals over `shards`. */
export function groupLag(
  streamPrefix: string,
  consumerGroup: string,
  shards: ShardLag[],
  readAt: number,
): GroupLag {
  let totalLag = 0;
  let totalPending = 0;
  let unknown = 0;
  let oldest: number | null = null;
  for (const s of shards) {
    if (s.lag === null) unknown++;
    else totalLag += s.lag;
    totalPending += s.pending;
    if (s.oldestPendingAgeMs !== null) oldest = Math.max(oldest ?? 0, s.oldestPendingAgeMs);
  }
  return {
    streamPrefix,
    consumerGroup,
    totalLag,
    totalPending,
    oldestPendingAgeMs: oldest,
    lagUnknownShards: unknown,
    readAtMs: readAt,
    shards,
  };
}

/**
 * Reads `shards` (stream-wide readings) and each group's `XPENDING` where entries are pending.
 * Returns the lag of every group of `snaps` (which share one stream) over those shards.
 */
export async function readStreamLag(
  inspector: StreamInspector,
  snaps: readonly GroupSnapshot[],
  shards: readonly number[],
  now: number,
): Promise<GroupLag[]> {
  const prefix = snaps[0]?.stream.streamPrefix;
  if (prefix === undefined) return [];
  const keys = shards.map((i) => shardKey(prefix, i));
  const readings = await inspector.readShards(keys);
  const pairs: Array<{ key: string; group: string; at: [number, number] }> = [];
  snaps.forEach((snap, gi) => {
    readings.forEach((r, si) => {
      const g = groupOf(r, snap.group.consumerGroup);
      if ((g?.pending ?? 0) > 0)
        pairs.push({ key: keys[si]!, group: snap.group.consumerGroup, at: [gi, si] });
    });
  });
  const summaries = pairs.length > 0 ? await inspector.pendingSummaries(pairs) : [];
  const oldest = new Map<string, string | null>();
  pairs.forEach((p, i) => {
    oldest.set(`${p.at[0]}:${p.at[1]}`, summaries[i]?.oldestId ?? null);
  });
  return snaps.map((snap, gi) =>
    groupLag(
      prefix,
      snap.group.consumerGroup,
      shards.map((shard, si) =>
        shardLag(shard, readings[si], snap.group.consumerGroup, oldest.get(`${gi}:${si}`) ?? null, now),
      ),
      now,
    ),
  );
}

/** The lag of one group over every consumable shard of its stream. */
export async function readGroupLag(
  inspector: StreamInspector,
  snap: GroupSnapshot,
  now: number,
): Promise<GroupLag> {
  const [lag] = await readStreamLag(inspector, [snap], consumableShards(snap.stream), now);
  return lag!;
}
