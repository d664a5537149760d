/**
 * Redis-backed monitoring views (docs/protocol.md#monitoring-views): shard offsets over the consumable set and
 * message pages. Pure functions from a group snapshot plus what the inspector read.
 */
import type { z } from 'zod';
import type { GroupSnapshot } from '../coordinator-api.js';
import type { GroupDoc, MemberRecord, MemberState, ShardProgress } from '../core/model.js';
import { redisSlot } from '../routing/slot.js';
import { groupOf, type ShardReading, type SlotOwner, type StreamRecord } from '../store/inspector.js';
import type * as M from './openapi-monitoring-responses.js';
import { streamIdTimestampMs } from './stream-id.js';
import { isoInstant } from './views.js';

/** One shard of `StreamShardOffsetsResponse`, plus additive `removed`. */
export type StreamShardOffsetJson = z.output<typeof M.shardOffsetSchema>;
/** `StreamShardOffsetsResponse`. */
export type StreamShardOffsetsJson = z.output<typeof M.offsetsResponseSchema>;
/** One record of a message page. */
export type StreamMessageRecordJson = z.output<typeof M.messageRecordSchema>;
/** `StreamMessagesPageResponse`. */
export type StreamMessagesPageJson = z.output<typeof M.messagesPageSchema>;

/** Physical stream key of shard `i` (docs/protocol.md#endpoints-and-roles: `{p}:{i}`, no hash tag). */
export function shardKey(prefix: string, shard: number): string {
  return `${prefix}:${shard}`;
}

/** Members that count as owners in monitoring: ACTIVE, STARTING and LEAVING. */
const LIVE_OWNER: ReadonlySet<MemberState> = new Set<MemberState>(['ACTIVE', 'STARTING', 'LEAVING']);

/** True for members whose current/revoking shards monitoring shows as owned. */
export function isLiveOwner(m: MemberRecord): boolean {
  return LIVE_OWNER.has(m.state);
}

/** Code-unit order, as the reference's `String.compareTo` sorts ids. */
export function byId(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Members sorted by id. */
export function sortedMembers(group: GroupDoc): MemberRecord[] {
  return Object.values(group.members).sort((a, b) => byId(a.memberId, b.memberId));
}

/** shard → sorted ids of live owners holding it in `pick(member)`. */
export function ownersByShard(
  group: GroupDoc,
  pick: (m: MemberRecord) => readonly number[],
): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const m of sortedMembers(group)) {
    if (!isLiveOwner(m)) continue;
    for (const s of pick(m)) {
      const list = out.get(s) ?? [];
      if (!list.includes(m.memberId)) list.push(m.memberId);
      out.set(s, list);
    }
  }
  return out;
}

function progressTime(p: ShardProgress): number {
  const t = p.updatedAt === null ? Number.NaN : Date.parse(p.updatedAt);
  return Number.isNaN(t) ? 0 : t;
}

/** Newest member-reported progress per shard (by `updatedAt`; ties keep the lowest member id). */
function newestProgress(group: GroupDoc): Map<number, ShardProgress> {
  const out = new Map<number, ShardProgress>();
  for (const m of sortedMembers(group)) {
    for (const p of m.shardProgress) {
      const seen = out.get(p.shard);
      if (!seen || progressTime(p) > progressTime(seen)) out.set(p.shard, p);
    }
  }
  return out;
}

/**
 * Offsets of a group over `shards` (the consumable set) from per-shard readings (same order)
 * and Cluster slot owners (empty outside Cluster).
 */
export function offsetsView(
  { stream, group }: GroupSnapshot,
  shards: readonly number[],
  readings: readonly ShardReading[],
  owners: ReadonlyMap<number, SlotOwner>,
): StreamShardOffsetsJson {
  const progress = newestProgress(group);
  const current = ownersByShard(group, (m) => m.currentAssignment);
  const rows = shards.map((shard, i): StreamShardOffsetJson => {
    const streamKey = shardKey(group.streamPrefix, shard);
    const reading = readings[i] ?? { streamKey, stream: null, groups: null, memoryUsageBytes: null };
    const info = groupOf(reading, group.consumerGroup);
    const reported = progress.get(shard);
    const slot = redisSlot(streamKey);
    const owner = owners.get(slot);
    return {
      streamPrefix: group.streamPrefix,
      consumerGroup: group.consumerGroup,
      shard: { shardIndex: shard },
      streamKey,
      redisSlot: slot,
      redisNodeEndpoint: owner?.endpoint ?? null,
      redisNodeId: owner?.nodeId ?? null,
      redisSlotRangeStart: owner?.slotRangeStart ?? null,
      redisSlotRangeEnd: owner?.slotRangeEnd ?? null,
      streamLength: reading.stream?.length ?? 0,
      firstRecordId: reading.stream?.firstRecordId ?? null,
      lastRecordId: reading.stream?.lastRecordId ?? null,
      lastGeneratedId: reading.stream?.lastGeneratedId ?? null,
      groupLastDeliveredId: info?.lastDeliveredId ?? null,
      consumerLastDeliveredId: reported?.lastDeliveredId ?? null,
      consumerLastAckedId: reported?.lastAckedId ?? null,
      pendingCount: info?.pending ?? reported?.pendingCount ?? 0,
      lag: info?.lag ?? null,
      memoryUsageBytes: reading.memoryUsageBytes,
      ownerMemberIds: current.get(shard) ?? [],
      removed: shard >= stream.shardCount,
    };
  });
  let totalLag: number | null = 0;
  for (const r of rows) totalLag = totalLag === null || r.lag === null ? null : totalLag + r.lag;
  return {
    streamPrefix: group.streamPrefix,
    consumerGroup: group.consumerGroup,
    shards: rows,
    totalStreamLength: rows.reduce((a, r) => a + r.streamLength, 0),
    totalPendingCount: rows.reduce((a, r) => a + r.pendingCount, 0),
    totalLag,
    totalMemoryUsageBytes: rows.reduce((a, r) => a + (r.memoryUsageBytes ?? 0), 0),
    memoryUsageKnown: rows.every((r) => r.memoryUsageBytes !== null),
  };
}

/** One stream entry as a message record (`payload` = `fields.payload`, time from the id). */
export function messageRecordView(
  group: Pick<GroupDoc, 'streamPrefix' | 'consumerGroup'>,
  shard: number,
  record: StreamRecord,
): StreamMessageRecordJson {
  const ms = streamIdTimestampMs(record.id);
  return {
    streamPrefix: group.streamPrefix,
    consumerGroup: group.consumerGroup,
    shard: { shardIndex: shard },
    streamKey: shardKey(group.streamPrefix, shard),
    recordId: record.id,
    fields: record.fields,
    payload: Object.hasOwn(record.fields, 'payload') ? record.fields.payload! : null,
    recordTimestampMs: ms,
    recordTime: ms === null ? null : isoInstant(ms),
  };
}
