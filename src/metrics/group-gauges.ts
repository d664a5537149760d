/**
 * Scrape-time numbers computed from the stored metadata: streams, shards, groups, members and
 * migrations by state. Pure: a list of group snapshots in, counts out.
 */
import type { GroupSnapshot } from '../coordinator-api.js';
import {
  GROUP_STATES,
  type GroupState,
  MEMBER_STATES,
  type MemberState,
  MIGRATION_STATES,
  type MigrationState,
} from '../core/model.js';

// Every state of each enum (declared once in the core model), so each series exists (at 0) from the first scrape.
export { GROUP_STATES, MEMBER_STATES, MIGRATION_STATES };

/** What the metadata says right now. */
export interface GroupGauges {
  streams: number;
  /** Sum of the streams' shard counts. */
  shards: number;
  groupsByState: Record<GroupState, number>;
  membersByState: Record<MemberState, number>;
  /** Migrations kept in the streams' histories, by state. */
  migrationsByState: Record<MigrationState, number>;
  /** Streams with an active migration. */
  activeMigrations: number;
}

function zeros<K extends string>(keys: readonly K[]): Record<K, number> {
  return Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;
}

/** Counts over `snaps` (one per group; a stream shared by several groups is counted once). */
export function groupGauges(snaps: readonly GroupSnapshot[]): GroupGauges {
  const out: GroupGauges = {
    streams: 0,
    shards: 0,
    groupsByState: zeros(GROUP_STATES),
    membersByState: zeros(MEMBER_STATES),
    migrationsByState: zeros(MIGRATION_STATES),
    activeMigrations: 0,
  };
  const seen = new Set<string>();
  for (const { stream, group } of snaps) {
    out.groupsByState[group.state] = (out.groupsByState[group.state] ?? 0) + 1;
    for (const m of Object.values(group.members)) {
      out.membersByState[m.state] = (out.membersByState[m.state] ?? 0) + 1;
    }
    if (seen.has(stream.streamPrefix)) continue;
    seen.add(stream.streamPrefix);
    out.streams++;
    out.shards += stream.shardCount;
    if (stream.activeReshardingId !== null) out.activeMigrations++;
    for (const m of stream.migrations) {
      out.migrationsByState[m.state] = (out.migrationsByState[m.state] ?? 0) + 1;
    }
  }
  return out;
}
