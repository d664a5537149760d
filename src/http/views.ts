/**
 * Domain → wire: builds every response body from coordinator snapshots. Pure functions; times
 * (epoch ms in the model) become ISO-8601 UTC strings, shards become `{shardIndex}` objects.
 */
import type { CoordinatorConfig } from '../config.js';
import type {
  GroupSnapshot,
  MigrationsOverview,
  RedisHealth,
  StreamScaleResult,
} from '../coordinator-api.js';
import { evidenceRecord } from '../core/drain-evidence.js';
import { assignmentSummaries, invariantViolations } from '../core/group-view.js';
import type { HeartbeatOutput } from '../core/heartbeat-types.js';
import type {
  DrainEvidence,
  GroupDoc,
  MemberRecord,
  Migration,
  ShardProgress,
  StreamDoc,
} from '../core/model.js';
import {
  COORDINATOR_CAPABILITIES,
  type CoordinatorCapability,
  consumableShards,
  PROTOCOL_VERSION,
} from '../core/model.js';
import { migrationsByCreation } from '../core/stream-state.js';
import { redisSlot } from '../routing/slot.js';
import type {
  AssignmentsResponseJson,
  CompatibilityResponseJson,
  ConsumerShardProgressJson,
  DrainEvidenceJson,
  GroupResponseJson,
  HealthResponseJson,
  HeartbeatResponseJson,
  MemberJson,
  MigrationJson,
  MigrationsResponseJson,
  ProducerRoutingResponseJson,
  ShardIdJson,
  ShardProgressJson,
  StreamCreateResponseJson,
  StreamScaleResponseJson,
  VersionJson,
} from './schemas.js';
import { HEARTBEAT_BATCH_MAX_ITEMS } from './schemas.js';

/** The timings and switches every answer that states them reads. */
type AnswerConfig = Pick<
  CoordinatorConfig,
  'heartbeatIntervalMs' | 'rebalanceTimeoutMs' | 'memberLeaseTtlMs' | 'batchHeartbeats' | 'maxShardCount'
>;

/** The additive extensions this configuration serves (none when batching is switched off). */
function capabilitiesOf(config: Pick<CoordinatorConfig, 'batchHeartbeats'>): CoordinatorCapability[] {
  return COORDINATOR_CAPABILITIES.filter((c) => c !== 'BATCH_HEARTBEAT' || config.batchHeartbeats);
}

/** Epoch ms → ISO-8601 UTC (`2026-05-24T00:00:03.123Z`). */
export function isoInstant(ms: number): string {
  return new Date(ms).toISOString();
}

/** Epoch ms or null → ISO-8601 UTC or null. */
function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : isoInstant(ms);
}

/**
 * Milliseconds → ISO-8601 duration as `java.time.Duration#toString` prints it (Jackson's
 * rendering in the reference): `PT3S`, `PT1M`, `PT1M30S`, `PT0.5S`, `PT0S`.
 */
export function isoDuration(ms: number): string {
  // Configured timings are positive; clamp anything else rather than mimic Java's negative form.
  let rest = Math.max(0, Math.round(ms));
  if (rest === 0) return 'PT0S';
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  const millis = rest - seconds * 1000;
  let out = 'PT';
  if (hours > 0) out += `${hours}H`;
  if (minutes > 0) out += `${minutes}M`;
  if (seconds > 0 || millis > 0) {
    const frac = millis > 0 ? `.${String(millis).padStart(3, '0').replace(/0+$/, '')}` : '';
    out += `${seconds}${frac}S`;
  }
  return out;
}

/** Shard indexes → `[{shardIndex}]` in the given order. */
function shardIds(shards: readonly number[]): ShardIdJson[] {
  return shards.map((shardIndex) => ({ shardIndex }));
}

/** Shard indexes → `[{shardIndex}]` ascending (heartbeat and assignment views). */
function sortedShardIds(shards: readonly number[]): ShardIdJson[] {
  return shardIds([...shards].sort((a, b) => a - b));
}

/** An empty map safe for any key (a member may be called `__proto__`). */
function dict<V>(): Record<string, V> {
  return Object.create(null) as Record<string, V>;
}

/** Code-unit order of ids, as the reference's `String.compareTo` sorts them. */
function byId(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `Migration` on the wire. */
export function migrationView(m: Migration): MigrationJson {
  return {
    reshardingId: m.reshardingId,
    fromShardCount: m.fromShardCount,
    toShardCount: m.toShardCount,
    state: m.state,
    createdAt: isoInstant(m.createdAt),
    updatedAt: isoInstant(m.updatedAt),
  };
}

/** The stream's active migration (the one `activeReshardingId` names), if any. */
function activeMigration(stream: StreamDoc): Migration | null {
  if (stream.activeReshardingId === null) return null;
  return stream.migrations.find((m) => m.reshardingId === stream.activeReshardingId) ?? null;
}

/** `GroupResponse` (docs/protocol.md#streams-and-groups) with the additive consumable/removed shard lists. */
export function groupView({ stream, group }: GroupSnapshot): GroupResponseJson {
  const summaries = assignmentSummaries(group);
  const migration = activeMigration(stream);
  return {
    streamPrefix: group.streamPrefix,
    consumerGroup: group.consumerGroup,
    state: group.state,
    groupEpoch: group.groupEpoch,
    assignmentEpoch: group.assignmentEpoch,
    metadataVersion: group.metadataVersion,
    shardCount: stream.shardCount,
    activeMigration: migration === null ? null : migrationView(migration),
    targetAssignmentSummary: summaries.target,
    currentAssignmentSummary: summaries.current,
    consumableShards: shardIds(consumableShards(stream)),
    removedShards: stream.removedShards
      .filter((r) => r.state !== 'RETIRED')
      .map((r) => ({
        shardIndex: r.shard,
        state: r.state,
        reason: r.reason,
        updatedAt: isoInstant(r.updatedAt),
      })),
  };
}

/** `StreamScaleResponse`: the one stream migration listed for every affected group. */
export function streamScaleView(r: StreamScaleResult, targetShardCount: number): StreamScaleResponseJson {
  return {
    streamPrefix: r.stream.streamPrefix,
    targetShardCount,
    affectedConsumerGroups: [...r.groups],
    migrations: r.groups.map(() => migrationView(r.migration)),
  };
}

function evidenceView(e: DrainEvidence, reason: string | null): DrainEvidenceJson {
  return {
    checkedAt: isoInstant(e.checkedAt),
    drained: e.drained,
    keyExists: e.keyExists,
    streamLength: e.length,
    consumerGroups:
      e.consumerGroups?.map((g) => ({ consumerGroup: g.name, pendingCount: g.pending, lag: g.lag })) ?? null,
    error: e.error,
    reason,
  };
}

/** `{migrations, activeReshardingId}` plus the removed shards' drain state and rollback eligibility. */
export function migrationsView(o: MigrationsOverview): MigrationsResponseJson {
  const { stream } = o;
  return {
    migrations: migrationsByCreation(stream).map(migrationView),
    activeReshardingId: stream.activeReshardingId,
    shardCount: stream.shardCount,
    removedShards: o.removedShards.map(({ record, holders, live }) => ({
      shardIndex: record.shard,
      streamKey: `${stream.streamPrefix}:${record.shard}`,
      reshardingId: record.reshardingId ?? null,
      state: record.state,
      reason: record.reason,
      updatedAt: isoInstant(record.updatedAt),
      holders: holders.map((h) => ({
        consumerGroup: h.consumerGroup,
        memberId: h.memberId,
        memberState: h.state,
      })),
      lastEvidence: record.evidence ? evidenceView(record.evidence, null) : null,
      liveEvidence: live
        ? evidenceView(evidenceRecord(live.reading, live.verdict, o.readAt), live.verdict.reason)
        : null,
    })),
    rollback: { ...o.rollback },
  };
}

/** `StreamCreateResponse` plus the stream's first consumer group. */
export function streamCreateView({ stream, group }: GroupSnapshot): StreamCreateResponseJson {
  return {
    streamPrefix: stream.streamPrefix,
    consumerGroup: group.consumerGroup,
    shardCount: stream.shardCount,
    metadataVersion: group.metadataVersion,
  };
}

/** `ProducerRoutingResponse`: routing covers `[0, shardCount)` only (docs/protocol.md#resharding). */
export function routingView({ stream, group }: GroupSnapshot): ProducerRoutingResponseJson {
  const shards = [];
  for (let i = 0; i < stream.shardCount; i++) {
    const streamKey = `${stream.streamPrefix}:${i}`;
    shards.push({ shardIndex: i, streamKey, redisSlot: redisSlot(streamKey) });
  }
  return {
    streamPrefix: stream.streamPrefix,
    consumerGroup: group.consumerGroup,
    metadataVersion: group.metadataVersion,
    shardCount: stream.shardCount,
    streamKeyPattern: `${stream.streamPrefix}:{shardIndex}`,
    shards,
  };
}

/** `HeartbeatResponse`: the core's answer plus correlation and configured timings (a paced interval when the core asks for one). */
export function heartbeatView(
  out: HeartbeatOutput,
  requestId: string,
  config: AnswerConfig,
): HeartbeatResponseJson {
  return {
    responseTo: requestId,
    status: out.status,
    memberId: out.memberId,
    memberEpoch: out.memberEpoch,
    heartbeatIntervalMs: out.heartbeatIntervalMs ?? config.heartbeatIntervalMs,
    rebalanceTimeoutMs: config.rebalanceTimeoutMs,
    memberLeaseTtlMs: config.memberLeaseTtlMs,
    groupEpoch: out.groupEpoch,
    assignmentEpoch: out.assignmentEpoch,
    metadataVersion: out.metadataVersion,
    assignment: {
      assignedShards: sortedShardIds(out.assignedShards),
      pendingShards: sortedShardIds(out.pendingShards),
      metadataVersion: out.assignmentMetadataVersion,
    },
    capabilities: capabilitiesOf(config),
  };
}

function progressView(p: ShardProgress): ShardProgressJson {
  return {
    shard: { shardIndex: p.shard },
    streamKey: p.streamKey,
    lastDeliveredId: p.lastDeliveredId,
    lastAckedId: p.lastAckedId,
    pendingCount: p.pendingCount,
    updatedAt: p.updatedAt,
  };
}

/** `MemberMetadata` of the members view. */
function memberView(m: MemberRecord): MemberJson {
  return {
    memberId: m.memberId,
    memberName: m.memberName,
    state: m.state,
    memberEpoch: m.memberEpoch,
    metadataVersion: m.metadataVersion,
    runtimeMaxConcurrency: m.runtimeMaxConcurrency,
    activeConsumerWorkers: m.activeConsumerWorkers,
    // Member records echo the order in which shards were reported (docs/protocol.md#conventions).
    currentAssignment: shardIds(m.currentAssignment),
    grantedAssignment: shardIds(m.grantedAssignment),
    revoking: shardIds(m.revoking),
    lastHeartbeatAt: isoInstant(m.lastHeartbeatAt),
    memberLeaseExpiresAt: isoInstant(m.memberLeaseExpiresAt),
    rebalanceTimeoutMs: m.rebalanceTimeoutMs,
    rebalanceDeadlineAt: isoOrNull(m.rebalanceDeadlineAt),
    shardProgress: m.shardProgress.map(progressView),
  };
}

/** Members of a group sorted by id. */
function sortedMembers(group: GroupDoc): MemberRecord[] {
  return Object.values(group.members).sort((a, b) => byId(a.memberId, b.memberId));
}

/** `{members: [...]}` sorted by memberId, every state. */
export function membersView(group: GroupDoc): { members: MemberJson[] } {
  return { members: sortedMembers(group).map(memberView) };
}

/** `AssignmentsResponse`: targets, every member's current set, revoke progress, violations. */
export function assignmentsView({ stream, group }: GroupSnapshot): AssignmentsResponseJson {
  const targetAssignment = dict<ShardIdJson[]>();
  for (const id of Object.keys(group.targetAssignments).sort(byId)) {
    targetAssignment[id] = sortedShardIds(group.targetAssignments[id] ?? []);
  }
  const currentAssignments = dict<ShardIdJson[]>();
  const revokeProgress = dict<ShardIdJson[]>();
  for (const m of sortedMembers(group)) {
    currentAssignments[m.memberId] = sortedShardIds(m.currentAssignment);
    if (m.revoking.length > 0) revokeProgress[m.memberId] = sortedShardIds(m.revoking);
  }
  return {
    targetAssignment,
    currentAssignments,
    revokeProgress,
    invariantViolations: invariantViolations(stream, group),
  };
}

/** `{progress: [...]}` flattened from every member's last accepted report, by member then shard. */
export function consumptionView(group: GroupDoc): { progress: ConsumerShardProgressJson[] } {
  const progress: ConsumerShardProgressJson[] = [];
  for (const m of sortedMembers(group)) {
    for (const p of [...m.shardProgress].sort((a, b) => a.shard - b.shard)) {
      progress.push({
        streamPrefix: group.streamPrefix,
        consumerGroup: group.consumerGroup,
        memberId: m.memberId,
        memberName: m.memberName,
        memberState: m.state,
        ...progressView(p),
      });
    }
  }
  return { progress };
}

/** `/monitoring/health`: DEGRADED iff Redis is DOWN; the sweep loop is reported UP. */
export function healthView(coordinatorId: string, redis: RedisHealth): HealthResponseJson {
  return { status: redis === 'DOWN' ? 'DEGRADED' : 'UP', coordinatorId, redis, loop: 'UP' };
}

function version(major: number, minor: number, patch: number): VersionJson {
  return { major, minor, patch, qualifier: null, version: `${major}.${minor}.${patch}` };
}

/** `/monitoring/compatibility`: the one coordination version we speak and our timing defaults. */
export function compatibilityView(config: AnswerConfig): CompatibilityResponseJson {
  return {
    currentCoordinationVersion: PROTOCOL_VERSION,
    supportedCoordinationVersions: { min: PROTOCOL_VERSION, max: PROTOCOL_VERSION },
    coordinationVersions: [
      {
        version: PROTOCOL_VERSION,
        status: 'ACTIVE',
        introducedIn: version(0, 1, 0),
        deprecatedIn: null,
        minimumSupportedUntil: version(1, 0, 0),
        removedIn: null,
        timingDefaults: {
          heartbeatInterval: isoDuration(config.heartbeatIntervalMs),
          memberLeaseTtl: isoDuration(config.memberLeaseTtlMs),
          rebalanceTimeout: isoDuration(config.rebalanceTimeoutMs),
        },
      },
    ],
    capabilities: capabilitiesOf(config),
    heartbeatBatchMaxItems: config.batchHeartbeats ? HEARTBEAT_BATCH_MAX_ITEMS : 0,
    maxShardCount: config.maxShardCount,
  };
}
