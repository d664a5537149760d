/**
 * StreamInspector over @upstash/redis, for the Worker's monitoring routes (offsets, messages,
 * Grafana). Every round trip is an HTTPS request and a Workers subrequest, so shard reads are
 * batched: one script call reads up to `keysPerCall` shard streams. Like every inspector it
 * never throws: failures degrade to nulls and empty lists.
 */
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
import { runScript, type ScriptRunner } from './run-script.js';
import type { LuaScript } from './scripts/lua-script.js';
import { PENDING_SUMMARIES } from './scripts/pending-summaries.js';
import { READ_SHARDS } from './scripts/read-shards.js';
import type { UpstashCommands } from './upstash-client.js';
import { keyLockingPicker, upstashScriptRunner } from './upstash-script.js';
import { integerOrNull, parseGroups, parseRecord, parseStreamInfo } from './xinfo-reply.js';

/** Options of UpstashInspector. */
export interface UpstashInspectorOptions {
  /** Shard streams read per script call. @default 256 */
  keysPerCall?: number;
  /** Called once per REST request. @default no-op */
  onRequest?: () => void;
  /** Run the scripts with Upstash's `allow-key-locking` flag (see UpstashStoreOptions). @default false */
  keyLocking?: boolean;
}

/** Both scripts touch only the shard keys they are passed: they may run under per-key locks. */
const DECLARING: ReadonlySet<LuaScript> = new Set([READ_SHARDS, PENDING_SUMMARIES]);

/** Read-only monitoring access over one @upstash/redis client (the store's client is fine). */
export class UpstashInspector implements StreamInspector {
  /** Upstash databases are not slot-partitioned towards the client: no Cluster slot owners. */
  readonly clustered = false;
  private readonly client: UpstashCommands;
  private readonly keysPerCall: number;
  private readonly onRequest: () => void;
  private readonly scripts: ScriptRunner;
  private readonly variant: (script: LuaScript) => LuaScript;

  constructor(client: UpstashCommands, options: UpstashInspectorOptions = {}) {
    this.client = client;
    this.keysPerCall = Math.max(1, options.keysPerCall ?? 256);
    this.onRequest = options.onRequest ?? (() => undefined);
    this.scripts = upstashScriptRunner(client, this.onRequest);
    this.variant = keyLockingPicker(options.keyLocking ?? false, DECLARING);
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
      this.onRequest();
      const reply: unknown = forward
        ? await this.client.xrange(key, from, to, count)
        : await this.client.xrevrange(key, from, to, count);
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

  async slotOwners(_slots: readonly number[]): Promise<Map<number, SlotOwner>> {
    return new Map();
  }

  async pendingSummaries(pairs: readonly KeyGroup[]): Promise<Array<PendingSummary | null>> {
    const out: Array<PendingSummary | null> = [];
    for (let i = 0; i < pairs.length; i += this.keysPerCall) {
      const chunk = pairs.slice(i, i + this.keysPerCall);
      let reply: unknown;
      try {
        reply = await runScript(
          this.scripts,
          this.variant(PENDING_SUMMARIES),
          chunk.map((p) => p.key),
          chunk.map((p) => p.group),
        );
      } catch {
        reply = null;
      }
      const rows = Array.isArray(reply) ? reply : [];
      for (let j = 0; j < chunk.length; j++) out.push(parsePendingSummary(rows[j]));
    }
    return out;
  }

  /** Raw per-key replies (`[stream, groups?, memory?]`, null elements for failures), in key order. */
  private async read(keys: readonly string[], full: boolean): Promise<Array<unknown[] | null>> {
    const out: Array<unknown[] | null> = [];
    for (let i = 0; i < keys.length; i += this.keysPerCall) {
      const chunk = keys.slice(i, i + this.keysPerCall);
      let reply: unknown;
      try {
        reply = await runScript(this.scripts, this.variant(READ_SHARDS), chunk, [full ? '1' : '0']);
      } catch {
        reply = null;
      }
      const rows = Array.isArray(reply) ? reply : [];
      for (let j = 0; j < chunk.length; j++) {
        const row = rows[j];
        out.push(Array.isArray(row) ? row : null);
      }
    }
    return out;
  }
}
