/**
 * The StreamInspector port: the read-only Redis commands the monitoring endpoints need
 * (docs/protocol.md#monitoring-views–2.10) and nothing more. Every method is a pure read: nothing here creates a
 * key, moves a consumer group or acknowledges a record.
 *
 * Failures never surface as errors: a missing key or a Redis error degrades to nulls, zeros or
 * empty lists, so a dashboard keeps rendering what it can (docs/protocol.md#monitoring-views "Redis errors degrade
 * to zeros/nulls").
 */

/** Direction of a range read: FORWARD = `XRANGE` (oldest first), BACKWARD = `XREVRANGE`. */
export type RangeDirection = 'FORWARD' | 'BACKWARD';

/** What `XINFO STREAM` says about one stream key. */
export interface StreamInfo {
  /** `XLEN`. */
  length: number;
  /** Id of the oldest entry, null when the stream is empty. */
  firstRecordId: string | null;
  /** Id of the newest entry, null when the stream is empty. */
  lastRecordId: string | null;
  /** The stream's last generated id (survives deletion of the entry). */
  lastGeneratedId: string | null;
  /** Entries ever added (Redis ≥ 7.0), null when the server does not report it. */
  entriesAdded: number | null;
}

/** One entry of `XINFO GROUPS`. */
export interface ConsumerGroupInfo {
  name: string;
  consumers: number | null;
  /** Size of the group's pending entries list. */
  pending: number | null;
  lastDeliveredId: string | null;
  entriesRead: number | null;
  /** Entries not yet delivered to the group; null when Redis cannot tell (e.g. after an XDEL). */
  lag: number | null;
}

/** Everything monitoring reads about one shard stream, in one round trip. */
export interface ShardReading {
  streamKey: string;
  /** Null when the key is missing or the read failed. */
  stream: StreamInfo | null;
  /** Every consumer group of the stream; null when the key is missing or the read failed. */
  groups: ConsumerGroupInfo[] | null;
  /** `MEMORY USAGE` in bytes; null when the key is missing or the read failed. */
  memoryUsageBytes: number | null;
}

/** One stream entry. */
export interface StreamRecord {
  id: string;
  /** Field → value, in a null-prototype object (any field name is safe). */
  fields: Record<string, string>;
}

/** A bounded range read. Bounds are inclusive; null means the open end (`-` / `+`). */
export interface RangeQuery {
  direction: RangeDirection;
  /** Where reading starts: the low bound for FORWARD, the high bound for BACKWARD. */
  from: string | null;
  /** Where reading stops (inclusive). @default null (open end) */
  to?: string | null;
  /** `COUNT`, at least 1. */
  count: number;
}

/** The Cluster master serving a hash slot, and the slot range it was found in. */
export interface SlotOwner {
  /** `host:port` of the master. */
  endpoint: string;
  nodeId: string | null;
  slotRangeStart: number;
  slotRangeEnd: number;
}

/** What `XPENDING key group` (the summary form) says. */
export interface PendingSummary {
  /** Entries delivered and not acknowledged. */
  count: number;
  /** Smallest pending id (the oldest pending entry), null when nothing is pending. */
  oldestId: string | null;
}

/** One entry of the detailed `XPENDING`: delivered to `consumer` and not acknowledged. */
export interface PendingEntry {
  id: string;
  /** The consumer (member id) holding it. */
  consumer: string;
  /** Milliseconds since it was last delivered (or claimed). */
  idleMs: number;
  /** Times it was delivered. */
  deliveryCount: number;
}

/** A bounded detailed `XPENDING` read. Bounds are stream ids, `(id` for an exclusive one. */
export interface PendingEntriesQuery {
  start: string;
  end: string;
  /** `COUNT`, at least 1. */
  count: number;
  /** `IDLE min`: only entries idle at least this long; null for all. */
  minIdleMs: number | null;
  /** Only the entries of this consumer; null for every consumer. */
  consumer: string | null;
}

/**
 * What a detailed `XPENDING` read found: the entries, or why there are none to read (the key or
 * the group is missing, which XPENDING itself does not tell apart; or the read failed).
 */
export type PendingEntriesRead =
  | { status: 'ok'; entries: PendingEntry[] }
  | { status: 'no-stream' | 'no-group' | 'failed' };

/** A shard stream and one of its consumer groups. */
export interface KeyGroup {
  key: string;
  group: string;
}

/** Read-only Redis access for monitoring. */
export interface StreamInspector {
  /** True on Redis Cluster (slot owners are known), false on a standalone server. */
  readonly clustered: boolean;
  /** `XINFO STREAM`, `XINFO GROUPS` and `MEMORY USAGE` of each key, in the order given. */
  readShards(keys: readonly string[]): Promise<ShardReading[]>;
  /** `XINFO STREAM` of each key, in the order given (null: missing key or failed read). */
  streams(keys: readonly string[]): Promise<Array<StreamInfo | null>>;
  /** `XRANGE`/`XREVRANGE … COUNT n`; an empty list when the key is missing or the read failed. */
  range(key: string, query: RangeQuery): Promise<StreamRecord[]>;
  /** Master of each slot (Cluster only; empty on standalone or when the slot table is unavailable). */
  slotOwners(slots: readonly number[]): Promise<Map<number, SlotOwner>>;
  /** `XPENDING key group` of each pair, in the order given (null: missing key/group or failed read). */
  pendingSummaries(pairs: readonly KeyGroup[]): Promise<Array<PendingSummary | null>>;
  /**
   * The detailed `XPENDING key group [IDLE min] start end count [consumer]` of one key. Unlike
   * the other reads it says why nothing was read (missing key, missing group, failed read), so a
   * route asked about one shard can answer 404 or 503 rather than an empty page. Optional: an
   * inspector without it (a test double) makes the route answer 503 REDIS_NOT_CONFIGURED.
   */
  pendingEntries?(key: string, group: string, query: PendingEntriesQuery): Promise<PendingEntriesRead>;
}

/** One `[id, consumer, idle, deliveries]` row of a detailed `XPENDING` reply, or null when malformed. */
export function parsePendingEntry(row: unknown): PendingEntry | null {
  if (!Array.isArray(row) || row.length < 4) return null;
  const [id, consumer] = [textOf(row[0]), textOf(row[1])];
  const idleMs = Number(row[2]);
  const deliveryCount = Number(row[3]);
  if (id === null || consumer === null) return null;
  if (!Number.isSafeInteger(idleMs) || !Number.isSafeInteger(deliveryCount)) return null;
  return { id, consumer, idleMs: Math.max(0, idleMs), deliveryCount: Math.max(0, deliveryCount) };
}

function textOf(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (v instanceof Uint8Array) return new TextDecoder().decode(v);
  return null;
}

/** The `XPENDING` summary reply (`[count, smallest, greatest, consumers]`), or null when malformed. */
export function parsePendingSummary(reply: unknown): PendingSummary | null {
  if (!Array.isArray(reply)) return null;
  const raw = reply[0];
  const count = typeof raw === 'number' ? raw : Number(raw);
  if (!Number.isFinite(count) || count < 0) return null;
  const smallest = reply[1];
  const oldestId =
    typeof smallest === 'string'
      ? smallest
      : smallest instanceof Uint8Array
        ? new TextDecoder().decode(smallest)
        : null;
  return { count, oldestId: count > 0 ? oldestId : null };
}

/** The `XINFO GROUPS` entry of `group` in a reading, or null when the group is not on the stream. */
export function groupOf(reading: ShardReading, group: string): ConsumerGroupInfo | null {
  return reading.groups?.find((g) => g.name === group) ?? null;
}
