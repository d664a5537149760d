/**
 * StreamInspector over ioredis, standalone or Cluster. Shard keys carry no hash tag, so on a
 * Cluster they live in different slots: each key gets its own small pipeline (all commands on
 * one key share its slot), and the pipelines run concurrently. Every failure degrades to
 * nulls or empty lists; nothing here throws.
 */
import { Cluster, type Redis } from 'ioredis';
import {
  type KeyGroup,
  type PendingSummary,
  parsePendingSummary,
  type RangeQuery,
  type ShardReading,
  type SlotOwner,
  type StreamInfo,
  type StreamInspector,
  type StreamRecord,
} from './inspector.js';
import { integerOrNull, parseGroups, parseRecord, parseStreamInfo, stringOrNull } from './xinfo-reply.js';

/** Options of IoredisInspector. */
export interface IoredisInspectorOptions {
  /** Most per-key pipelines in flight at once. @default 64 */
  concurrency?: number;
}

/** Read-only monitoring access over one ioredis client (the store's client is fine). */
export class IoredisInspector implements StreamInspector {
  private readonly client: Redis | Cluster;
  private readonly concurrency: number;

  constructor(client: Redis | Cluster, options: IoredisInspectorOptions = {}) {
    this.client = client;
    this.concurrency = Math.max(1, options.concurrency ?? 64);
  }

  get clustered(): boolean {
    return this.client instanceof Cluster;
  }

  readShards(keys: readonly string[]): Promise<ShardReading[]> {
    return mapLimit(keys, this.concurrency, (key) => this.readShard(key));
  }

  streams(keys: readonly string[]): Promise<Array<StreamInfo | null>> {
    return mapLimit(keys, this.concurrency, async (key) => {
      try {
        return parseStreamInfo(await this.client.xinfo('STREAM', key));
      } catch {
        return null;
      }
    });
  }

  async range(key: string, q: RangeQuery): Promise<StreamRecord[]> {
    const count = Math.max(1, Math.floor(q.count));
    const forward = q.direction === 'FORWARD';
    const from = q.from ?? (forward ? '-' : '+');
    const to = q.to ?? (forward ? '+' : '-');
    try {
      const reply = forward
        ? await this.client.xrange(key, from, to, 'COUNT', count)
        : await this.client.xrevrange(key, from, to, 'COUNT', count);
      const out: StreamRecord[] = [];
      for (const entry of Array.isArray(reply) ? reply : []) {
        const record = parseRecord(entry);
        if (record) out.push(record);
      }
      return out;
    } catch {
      return [];
    }
  }

  async slotOwners(slots: readonly number[]): Promise<Map<number, SlotOwner>> {
    const out = new Map<number, SlotOwner>();
    const client = this.client;
    if (!(client instanceof Cluster) || slots.length === 0) return out;
    let ranges: SlotOwner[];
    try {
      ranges = parseClusterSlots(await client.cluster('SLOTS'));
    } catch {
      return out;
    }
    for (const slot of slots) {
      const owner = ranges.find((r) => slot >= r.slotRangeStart && slot <= r.slotRangeEnd);
      if (owner) out.set(slot, owner);
    }
    return out;
  }

  pendingSummaries(pairs: readonly KeyGroup[]): Promise<Array<PendingSummary | null>> {
    return mapLimit(pairs, this.concurrency, async ({ key, group }) => {
      try {
        return parsePendingSummary(await this.client.xpending(key, group));
      } catch {
        return null;
      }
    });
  }

  /** One pipeline per key: the three commands share the key's slot, so this is Cluster-safe. */
  private async readShard(streamKey: string): Promise<ShardReading> {
    const empty: ShardReading = { streamKey, stream: null, groups: null, memoryUsageBytes: null };
    let replies: Array<[Error | null, unknown]> | null;
    try {
      replies = await this.client
        .pipeline()
        .xinfo('STREAM', streamKey)
        .xinfo('GROUPS', streamKey)
        .memory('USAGE', streamKey)
        .exec();
    } catch {
      return empty;
    }
    if (!replies) return empty;
    const ok = (i: number): unknown => {
      const r = replies[i];
      return r && r[0] === null ? r[1] : undefined;
    };
    const streamReply = ok(0);
    const groupsReply = ok(1);
    return {
      streamKey,
      stream: streamReply === undefined ? null : parseStreamInfo(streamReply),
      groups: groupsReply === undefined ? null : parseGroups(groupsReply),
      memoryUsageBytes: integerOrNull(ok(2)),
    };
  }
}

/** `CLUSTER SLOTS` → one owner per range (the master, first node listed); malformed rows skipped. */
function parseClusterSlots(reply: unknown): SlotOwner[] {
  const out: SlotOwner[] = [];
  for (const row of Array.isArray(reply) ? reply : []) {
    if (!Array.isArray(row)) continue;
    const start = integerOrNull(row[0]);
    const end = integerOrNull(row[1]);
    const master = row[2];
    if (start === null || end === null || !Array.isArray(master)) continue;
    const host = stringOrNull(master[0]);
    const port = integerOrNull(master[1]);
    // A master whose endpoint is unknown ('' or '?') cannot be named; leave its slots unresolved.
    if (!host || host === '?' || port === null) continue;
    const nodeId = stringOrNull(master[2]);
    out.push({
      endpoint: `${host}:${port}`,
      nodeId: nodeId || null,
      slotRangeStart: start,
      slotRangeEnd: end,
    });
  }
  return out;
}

/** `Promise.all(items.map(fn))` with at most `limit` calls in flight; results keep input order. */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
