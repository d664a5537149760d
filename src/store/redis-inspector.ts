/**
 * The StreamInspector over the Redis port, whatever the client. Shard reads run the read-only
 * monitoring scripts over as many keys per call as the port takes (`keysPerScript`: many on
 * Upstash, where each call is a subrequest; a few on standalone Redis; one on a Cluster, where
 * shard keys carry no hash tag and sit in different slots), several calls in flight at once.
 * Every failure degrades to nulls or empty lists; nothing here throws.
 */
import type { RedisPort } from '../redis/port.js';
import {
  type KeyGroup,
  type PendingEntriesQuery,
  type PendingEntriesRead,
  type PendingEntry,
  type PendingSummary,
  parsePendingEntry,
  parsePendingSummary,
  type RangeQuery,
  type ShardReading,
  type SlotOwner,
  type StreamInfo,
  type StreamInspector,
  type StreamRecord,
} from './inspector.js';
import type { LuaScript } from './scripts/lua-script.js';
import { PENDING_ENTRIES } from './scripts/pending-entries.js';
import { PENDING_SUMMARIES } from './scripts/pending-summaries.js';
import { READ_SHARDS } from './scripts/read-shards.js';
import { integerOrNull, parseGroups, parseRecord, parseStreamInfo, stringOrNull } from './xinfo-reply.js';

/** Options of RedisInspector. */
export interface RedisInspectorOptions {
  /** Most script calls in flight at once. @default 64 */
  concurrency?: number;
  /** Shard streams read per script call (never more than one on a Cluster). @default the port's `keysPerScript` */
  keysPerCall?: number;
}

/** The scripts touch only the shard keys they are passed: they may run under per-key locks. */
const DECLARING: ReadonlySet<LuaScript> = new Set([READ_SHARDS, PENDING_SUMMARIES, PENDING_ENTRIES]);

/** Read-only monitoring access over one Redis port (the store's client is fine). */
export class RedisInspector implements StreamInspector {
  private readonly port: RedisPort;
  private readonly concurrency: number;
  private readonly keysPerCall: number;

  constructor(port: RedisPort, options: RedisInspectorOptions = {}) {
    this.port = port;
    this.concurrency = Math.max(1, options.concurrency ?? 64);
    this.keysPerCall = port.oneSlot ? Math.max(1, options.keysPerCall ?? port.keysPerScript) : 1;
  }

  /** True on Redis Cluster (slot owners are known). */
  get clustered(): boolean {
    return this.port.clusterSlots !== undefined;
  }

  async readShards(keys: readonly string[]): Promise<ShardReading[]> {
    const replies = await this.read(keys, true);
    return keys.map((streamKey, i) => {
      const r = replies[i];
      return {
        streamKey,
        stream: r?.[0] ? parseStreamInfo(r[0]) : null,
        groups: r?.[1] ? parseGroups(r[1]) : null,
        memoryUsageBytes: integerOrNull(r?.[2]),
      };
    });
  }

  async streams(keys: readonly string[]): Promise<Array<StreamInfo | null>> {
    const replies = await this.read(keys, false);
    return keys.map((_, i) => {
      const r = replies[i];
      return r?.[0] ? parseStreamInfo(r[0]) : null;
    });
  }

  async range(key: string, q: RangeQuery): Promise<StreamRecord[]> {
    const count = Math.max(1, Math.floor(q.count));
    const forward = q.direction === 'FORWARD';
    const from = q.from ?? (forward ? '-' : '+');
    const to = q.to ?? (forward ? '+' : '-');
    try {
      const reply = forward
        ? await this.port.xrange(key, from, to, count)
        : await this.port.xrevrange(key, from, to, count);
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
    if (!this.port.clusterSlots || slots.length === 0) return out;
    let ranges: SlotOwner[];
    try {
      ranges = parseClusterSlots(await this.port.clusterSlots());
    } catch {
      return out;
    }
    for (const slot of slots) {
      const owner = ranges.find((r) => slot >= r.slotRangeStart && slot <= r.slotRangeEnd);
      if (owner) out.set(slot, owner);
    }
    return out;
  }

  async pendingSummaries(pairs: readonly KeyGroup[]): Promise<Array<PendingSummary | null>> {
    const rows = await this.perChunk(pairs, (chunk) =>
      this.run(
        PENDING_SUMMARIES,
        chunk.map((p) => p.key),
        chunk.map((p) => p.group),
      ),
    );
    return rows.map(parsePendingSummary);
  }

  async pendingEntries(key: string, group: string, q: PendingEntriesQuery): Promise<PendingEntriesRead> {
    const args = [
      group,
      q.minIdleMs === null ? '' : String(Math.max(0, Math.floor(q.minIdleMs))),
      q.start,
      q.end,
      String(Math.max(1, Math.floor(q.count))),
      q.consumer ?? '',
    ];
    let reply: unknown;
    try {
      // One key per call: fine on a Cluster, where the call goes to the key's node.
      reply = await this.run(PENDING_ENTRIES, [key], args);
    } catch {
      return { status: 'failed' };
    }
    if (!Array.isArray(reply)) return { status: 'failed' };
    switch (Number(reply[0])) {
      case 0:
        return { status: 'no-stream' };
      case 1:
        return { status: 'no-group' };
      case 2: {
        const entries: PendingEntry[] = [];
        for (const row of Array.isArray(reply[1]) ? reply[1] : []) {
          const entry = parsePendingEntry(row);
          if (entry) entries.push(entry);
        }
        return { status: 'ok', entries };
      }
      default:
        return { status: 'failed' };
    }
  }

  /** Raw per-key replies (`[stream, groups?, memory?]`, null for failures), in key order. */
  private async read(keys: readonly string[], full: boolean): Promise<Array<unknown[] | null>> {
    const rows = await this.perChunk(keys, (chunk) => this.run(READ_SHARDS, [...chunk], [full ? '1' : '0']));
    return rows.map((row) => (Array.isArray(row) ? row : null));
  }

  private run(script: LuaScript, keys: string[], args: string[]): Promise<unknown> {
    return this.port.runScript(this.port.scriptAs(script, DECLARING.has(script)), keys, args);
  }

  /** One script call per `keysPerCall` items; one reply row per item (undefined where a call failed). */
  private async perChunk<T>(
    items: readonly T[],
    call: (chunk: readonly T[]) => Promise<unknown>,
  ): Promise<unknown[]> {
    const chunks: T[][] = [];
    for (let i = 0; i < items.length; i += this.keysPerCall)
      chunks.push(items.slice(i, i + this.keysPerCall));
    const replies = await mapLimit(chunks, this.concurrency, async (chunk) => {
      try {
        return await call(chunk);
      } catch {
        return null;
      }
    });
    return chunks.flatMap((chunk, i) => {
      const reply = replies[i];
      const rows = Array.isArray(reply) ? reply : [];
      return chunk.map((_, j) => rows[j]);
    });
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
