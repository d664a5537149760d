/**
 * A stream together with all of its groups: what stream-wide transitions (resharding) read and
 * write. Helpers here never mutate their inputs; changed groups are replaced, unchanged ones
 * keep their object identity (so callers can tell what to write).
 */

import { dict, own } from './dict.js';
import { blocksOthers, cloneGroup, holdings } from './group.js';
import { settleDraft } from './housekeeping.js';
import {
  type GroupDoc,
  isLive,
  type MemberRecord,
  type Migration,
  type ProtocolConfig,
  type RemovedShard,
  type StreamDoc,
} from './model.js';

/** The stream document and every group document of the stream, by name. */
export interface StreamState {
  stream: StreamDoc;
  groups: Record<string, GroupDoc>;
}

/** The migration `activeReshardingId` names, if any. */
export function activeMigrationOf(stream: StreamDoc): Migration | null {
  if (stream.activeReshardingId === null) return null;
  return stream.migrations.find((m) => m.reshardingId === stream.activeReshardingId) ?? null;
}

/** A member that takes part in the group right now: ACTIVE/STARTING with a lease that has not run out. */
export function isLiveAt(m: MemberRecord, now: number): boolean {
  return isLive(m.state) && now <= m.memberLeaseExpiresAt;
}

/** One member holding a shard (current, granted or revoking). */
export interface ShardHolder {
  consumerGroup: string;
  memberId: string;
  state: MemberRecord['state'];
}

/**
 * Members of any group whose holdings of a shard still count at `now`: live, LEAVING and
 * blocking-FENCED members (docs/protocol.md#blocking-fences) whose lease has not run out. An expired member never
 * counts, so when every member has expired, evidence alone decides (docs/protocol.md#resharding).
 */
export function holdersByShard(groups: Record<string, GroupDoc>, now: number): Map<number, ShardHolder[]> {
  const out = new Map<number, ShardHolder[]>();
  for (const name of Object.keys(groups).sort()) {
    const g = own(groups, name)!;
    for (const m of Object.values(g.members)) {
      if (!blocksOthers(m) || now > m.memberLeaseExpiresAt) continue;
      for (const s of holdings(m)) {
        const list = out.get(s) ?? [];
        list.push({ consumerGroup: name, memberId: m.memberId, state: m.state });
        out.set(s, list);
      }
    }
  }
  return out;
}

/** True when some group has an open metadata-correction round (scale and rollback wait for it). */
export function correctionOpen(groups: Record<string, GroupDoc>): boolean {
  return Object.values(groups).some((g) => g.metadataCorrection !== null);
}

/**
 * Stream-wide counter bump (G = groupEpoch, M = metadataVersion of every group, docs/protocol.md#resharding), then
 * reconcile every group against `stream` (targets over its assignable set, rebalance deadlines).
 */
export function bumpEveryGroup(
  stream: StreamDoc,
  groups: Record<string, GroupDoc>,
  bump: { group: boolean; metadata: boolean },
  config: ProtocolConfig,
  now: number,
): Record<string, GroupDoc> {
  const out = dict<GroupDoc>();
  for (const [name, g] of Object.entries(groups)) {
    const draft = cloneGroup(g);
    if (bump.group) draft.groupEpoch += 1;
    if (bump.metadata) draft.metadataVersion += 1;
    settleDraft(stream, draft, config, now);
    draft.updatedAt = now;
    out[name] = draft;
  }
  return out;
}

/** Replaces migration `id` in the stream's list (a copy). */
export function withMigration(stream: StreamDoc, id: string, patch: Partial<Migration>): StreamDoc {
  return {
    ...stream,
    migrations: stream.migrations.map((m) => (m.reshardingId === id ? { ...m, ...patch } : m)),
  };
}

/** Migrations sorted by creation time (ties by id), as the monitoring view lists them. */
export function migrationsByCreation(stream: StreamDoc): Migration[] {
  return [...stream.migrations].sort(
    (a, b) => a.createdAt - b.createdAt || (a.reshardingId < b.reshardingId ? -1 : 1),
  );
}

/** The removed-shard records a scale-in migration created (its range `[to, from)`). */
export function removedBy(stream: StreamDoc, m: Migration): RemovedShard[] {
  if (m.toShardCount >= m.fromShardCount) return [];
  return stream.removedShards.filter(
    (r) =>
      r.reshardingId === m.reshardingId ||
      ((r.reshardingId ?? null) === null && r.shard >= m.toShardCount && r.shard < m.fromShardCount),
  );
}

/** `[from, to)` as a list (empty when to <= from). */
export function range(from: number, to: number): number[] {
  const out: number[] = [];
  for (let i = from; i < to; i++) out.push(i);
  return out;
}
