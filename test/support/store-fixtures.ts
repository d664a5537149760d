/**
 * Hand-built StreamDoc / GroupDoc fixtures for store tests (independent of the core).
 */
import type { GroupDoc, MemberRecord, StreamDoc } from '../../src/core/model.js';

/** Fixed base time of fixtures (ms). */
export const T0 = Date.parse('2026-05-24T00:00:00Z');

/** A stream document with `groups` (sorted). */
export function streamDoc(prefix: string, groups: string[] = [], over: Partial<StreamDoc> = {}): StreamDoc {
  return {
    streamPrefix: prefix,
    shardCount: 4,
    removedShards: [],
    migrations: [],
    activeReshardingId: null,
    groups: [...groups].sort(),
    createdAt: T0,
    updatedAt: T0,
    ...over,
  };
}

/** An ACTIVE member record. */
export function member(memberId: string, over: Partial<MemberRecord> = {}): MemberRecord {
  return {
    memberId,
    memberName: memberId,
    state: 'ACTIVE',
    memberEpoch: 1,
    previousEpoch: null,
    metadataVersion: 1,
    runtimeMaxConcurrency: 1,
    activeConsumerWorkers: 1,
    currentAssignment: [],
    grantedAssignment: [],
    revoking: [],
    lastHeartbeatAt: T0,
    memberLeaseExpiresAt: T0 + 15_000,
    rebalanceTimeoutMs: 60_000,
    rebalanceDeadlineAt: null,
    shardProgress: [],
    fence: null,
    ...over,
  };
}

/** A STABLE group document holding `members` (ids or records). */
export function groupDoc(
  prefix: string,
  group: string,
  members: Array<string | MemberRecord> = [],
  over: Partial<GroupDoc> = {},
): GroupDoc {
  const recs = members.map((m) => (typeof m === 'string' ? member(m) : m));
  return {
    streamPrefix: prefix,
    consumerGroup: group,
    groupEpoch: 1,
    assignmentEpoch: 1,
    metadataVersion: 1,
    state: recs.length > 0 ? 'STABLE' : 'EMPTY',
    targetAssignments: Object.fromEntries(recs.map((m) => [m.memberId, m.currentAssignment])),
    members: Object.fromEntries(recs.map((m) => [m.memberId, m])),
    metadataCorrection: null,
    createdAt: T0,
    updatedAt: T0,
    ...over,
  };
}
