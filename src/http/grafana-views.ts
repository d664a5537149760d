/**
 * Flat rows for Grafana's JSON/Infinity data sources (docs/protocol.md#grafana). Pure functions over group
 * snapshots, offsets and observed rates; owner lists are comma-joined and sorted.
 */
import type { z } from 'zod';
import type { GroupSnapshot } from '../coordinator-api.js';
import type { GroupDoc, StreamDoc } from '../core/model.js';
import { consumableShards, isLive } from '../core/model.js';
import type { RangeDirection } from '../store/inspector.js';
import type { ShardRecord } from './message-pages.js';
import {
  byId,
  isLiveOwner,
  messageRecordView,
  ownersByShard,
  type StreamShardOffsetsJson,
  sortedMembers,
} from './monitoring-views.js';
import type * as M from './openapi-monitoring-responses.js';
import type { GroupRowJson } from './schemas.js';
import { type ShardRate, sumKnown } from './shard-rates.js';
import { isoInstant } from './views.js';

/** A Grafana variable option. */
export type GrafanaOptionJson = z.output<typeof M.grafanaOptionSchema>;

/** `/grafana/groups` row. */
export type GrafanaGroupRowJson = GroupRowJson;

/** `/grafana/members` row. */
export type GrafanaMemberRowJson = z.output<typeof M.grafanaMemberRowSchema>;

/** How a shard's live holders relate to its target owner. */
export type OwnerState = 'UNASSIGNED' | 'PENDING_ACK' | 'CURRENT' | 'TRANSITIONING';

/** `/grafana/shards` row (plus additive `removed`). */
export type GrafanaShardRowJson = z.output<typeof M.grafanaShardRowSchema>;

/** `/grafana/assignments` row. */
export type GrafanaAssignmentRowJson = z.output<typeof M.grafanaAssignmentRowSchema>;

/** `/grafana/messages` row. */
export type GrafanaMessageRowJson = z.output<typeof M.grafanaMessageRowSchema>;

/** `:i`, the label dashboards show for a shard. */
function shardLabel(shard: number): string {
  return `:${shard}`;
}

/** Distinct stream prefixes, sorted. */
export function streamOptions(snaps: readonly GroupSnapshot[]): GrafanaOptionJson[] {
  const prefixes = [...new Set(snaps.map((s) => s.group.streamPrefix))].sort(byId);
  return prefixes.map((p) => ({ __text: p, __value: p }));
}

/** `p / g` options sorted by prefix then group, optionally for one prefix. */
export function consumerGroupOptions(
  snaps: readonly GroupSnapshot[],
  prefix: string | null,
): GrafanaOptionJson[] {
  return snaps
    .map((s) => s.group)
    .filter((g) => prefix === null || g.streamPrefix === prefix)
    .sort((a, b) => byId(a.streamPrefix, b.streamPrefix) || byId(a.consumerGroup, b.consumerGroup))
    .map((g) => ({ __text: `${g.streamPrefix} / ${g.consumerGroup}`, __value: g.consumerGroup }));
}

/** One option per consumable shard. */
export function shardOptions(stream: StreamDoc): GrafanaOptionJson[] {
  return consumableShards(stream).map((i) => ({ __text: shardLabel(i), __value: String(i) }));
}

/** Shards held by live owners in `pick(member)`, summed over members. */
function liveOwnerCount(group: GroupDoc, pick: 'currentAssignment' | 'revoking'): number {
  return Object.values(group.members)
    .filter(isLiveOwner)
    .reduce((a, m) => a + m[pick].length, 0);
}

/** The group overview row. */
export function grafanaGroupRow(
  { stream, group }: GroupSnapshot,
  offsets: StreamShardOffsetsJson,
  rates: ReadonlyMap<number, ShardRate>,
): GrafanaGroupRowJson {
  const members = Object.values(group.members);
  const currentShards = liveOwnerCount(group, 'currentAssignment');
  const rateList = [...rates.values()];
  return {
    streamPrefix: group.streamPrefix,
    consumerGroup: group.consumerGroup,
    state: group.state,
    groupEpoch: group.groupEpoch,
    assignmentEpoch: group.assignmentEpoch,
    metadataVersion: group.metadataVersion,
    shardCount: stream.shardCount,
    activeMembers: members.filter((m) => isLive(m.state)).length,
    totalMembers: members.length,
    currentShards,
    targetShards: Object.values(group.targetAssignments).reduce((a, t) => a + t.length, 0),
    assignedShardRatio: `${currentShards} / ${stream.shardCount}`,
    revokingShards: liveOwnerCount(group, 'revoking'),
    totalStreamLength: offsets.totalStreamLength,
    totalPendingCount: offsets.shards.reduce((a, s) => a + Math.max(0, s.pendingCount), 0),
    totalLag: offsets.totalLag === null ? null : Math.max(0, offsets.totalLag),
    producedPerSecond: sumKnown(rateList.map((r) => r.producedPerSecond)),
    consumedPerSecond: sumKnown(rateList.map((r) => r.consumedPerSecond)),
    totalMemoryUsageBytes: offsets.totalMemoryUsageBytes,
    memoryUsageKnown: offsets.memoryUsageKnown,
  };
}

/** One row per member, sorted by id, every state. */
export function grafanaMemberRows(group: GroupDoc): GrafanaMemberRowJson[] {
  return sortedMembers(group).map((m) => ({
    streamPrefix: group.streamPrefix,
    consumerGroup: group.consumerGroup,
    memberId: m.memberId,
    memberName: m.memberName,
    state: m.state,
    memberEpoch: m.memberEpoch,
    metadataVersion: m.metadataVersion,
    currentShardCount: m.currentAssignment.length,
    revokingShardCount: m.revoking.length,
    runtimeMaxConcurrency: m.runtimeMaxConcurrency,
    activeConsumerWorkers: m.activeConsumerWorkers,
    lastHeartbeatAt: isoInstant(m.lastHeartbeatAt),
    memberLeaseExpiresAt: isoInstant(m.memberLeaseExpiresAt),
  }));
}

/** shard → sorted ids of members whose target holds it. */
function targetOwnersByShard(group: GroupDoc): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const id of Object.keys(group.targetAssignments).sort(byId)) {
    for (const s of group.targetAssignments[id] ?? []) out.set(s, [...(out.get(s) ?? []), id]);
  }
  return out;
}

/** UNASSIGNED (nobody), PENDING_ACK (target only), CURRENT (holders = targets), else TRANSITIONING. */
export function ownerState(current: readonly string[], target: readonly string[]): OwnerState {
  if (current.length === 0) return target.length === 0 ? 'UNASSIGNED' : 'PENDING_ACK';
  const t = new Set(target);
  const c = new Set(current);
  return c.size === t.size && [...c].every((id) => t.has(id)) ? 'CURRENT' : 'TRANSITIONING';
}

/** One row per consumable shard: its offsets, rates and owners. */
export function grafanaShardRows(
  { stream, group }: GroupSnapshot,
  offsets: StreamShardOffsetsJson,
  rates: ReadonlyMap<number, ShardRate>,
): GrafanaShardRowJson[] {
  const targets = targetOwnersByShard(group);
  return offsets.shards.map((o) => {
    const i = o.shard.shardIndex;
    const target = targets.get(i) ?? [];
    const rate = rates.get(i);
    return {
      streamPrefix: o.streamPrefix,
      consumerGroup: o.consumerGroup,
      shardCount: stream.shardCount,
      shardIndex: i,
      shardLabel: shardLabel(i),
      streamKey: o.streamKey,
      redisSlot: o.redisSlot,
      redisNodeEndpoint: o.redisNodeEndpoint,
      redisNodeId: o.redisNodeId,
      redisSlotRangeStart: o.redisSlotRangeStart,
      redisSlotRangeEnd: o.redisSlotRangeEnd,
      streamLength: o.streamLength,
      firstRecordId: o.firstRecordId,
      lastRecordId: o.lastRecordId,
      lastGeneratedId: o.lastGeneratedId,
      groupLastDeliveredId: o.groupLastDeliveredId,
      consumerLastDeliveredId: o.consumerLastDeliveredId,
      consumerLastAckedId: o.consumerLastAckedId,
      pendingCount: o.pendingCount,
      lag: o.lag === null ? null : Math.max(0, o.lag),
      lagKnown: o.lag !== null,
      producedPerSecond: rate?.producedPerSecond ?? null,
      consumedPerSecond: rate?.consumedPerSecond ?? null,
      memoryUsageBytes: o.memoryUsageBytes,
      memoryUsageKnown: o.memoryUsageBytes !== null,
      targetOwnerMemberIds: target.join(','),
      currentOwnerMemberIds: o.ownerMemberIds.join(','),
      ownerState: ownerState(o.ownerMemberIds, target),
      ownerMemberIds: o.ownerMemberIds.join(','),
      removed: o.removed,
    };
  });
}

/** One row per consumable shard with its target, current and revoking owners. */
export function grafanaAssignmentRows({ stream, group }: GroupSnapshot): GrafanaAssignmentRowJson[] {
  const targets = targetOwnersByShard(group);
  const current = ownersByShard(group, (m) => m.currentAssignment);
  const revoking = ownersByShard(group, (m) => m.revoking);
  return consumableShards(stream).map((i) => ({
    streamPrefix: group.streamPrefix,
    consumerGroup: group.consumerGroup,
    shardIndex: i,
    targetOwners: (targets.get(i) ?? []).join(','),
    currentOwners: (current.get(i) ?? []).join(','),
    revokingOwners: (revoking.get(i) ?? []).join(','),
  }));
}

/** Page-level facts repeated on every message row. */
export interface MessagePageFacts {
  shardSelector: string;
  direction: RangeDirection;
  limit: number;
  nextCursor: string | null;
  totalMessages: number;
}

/** One message row. */
export function grafanaMessageRow(
  group: GroupDoc,
  r: ShardRecord,
  page: MessagePageFacts,
): GrafanaMessageRowJson {
  const rec = messageRecordView(group, r.shard, r.record);
  return {
    streamPrefix: rec.streamPrefix,
    consumerGroup: rec.consumerGroup,
    shardIndex: r.shard,
    shardSelector: page.shardSelector,
    shardLabel: shardLabel(r.shard),
    streamKey: rec.streamKey,
    recordId: rec.recordId,
    payload: rec.payload,
    fieldsJson: JSON.stringify(rec.fields),
    pageDirection: page.direction,
    pageLimit: page.limit,
    pageNextCursor: page.nextCursor,
    pageTotalMessages: page.totalMessages,
    recordTimestampMs: rec.recordTimestampMs,
    recordTime: rec.recordTime,
  };
}
