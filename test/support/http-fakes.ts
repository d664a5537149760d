/**
 * Test support for the HTTP layer: an in-memory fake of our own `CoordinatorApi` (not of
 * Redis) that records every call, plus small domain fixtures. Used only by `*.test.ts`.
 */
import type { CoordinatorConfig } from '../../src/config.js';
import { parseConfig } from '../../src/config.js';
import type {
  CoordinatorApi,
  GroupSnapshot,
  MigrationsOverview,
  RedisHealth,
  RepairGroupInput,
  RollbackInput,
  ScaleInput,
  StreamScaleResult,
} from '../../src/coordinator-api.js';
import { CoordinatorError } from '../../src/core/errors.js';
import type { HeartbeatInput, HeartbeatOutput } from '../../src/core/heartbeat-types.js';
import type { GroupDoc, MemberRecord, StreamDoc } from '../../src/core/model.js';

/** 2026-05-24T00:00:00.000Z, the fixtures' base instant. */
export const T0 = Date.UTC(2026, 4, 24);

/** Default configuration, as parsed from an empty environment. */
export function testConfig(overrides: Partial<CoordinatorConfig> = {}): CoordinatorConfig {
  return { ...parseConfig({}), ...overrides };
}

/** A member record with sensible defaults. */
export function memberFixture(memberId: string, patch: Partial<MemberRecord> = {}): MemberRecord {
  return {
    memberId,
    memberName: memberId,
    state: 'ACTIVE',
    memberEpoch: 3,
    previousEpoch: null,
    metadataVersion: 3,
    runtimeMaxConcurrency: 1,
    activeConsumerWorkers: 0,
    currentAssignment: [],
    grantedAssignment: [],
    revoking: [],
    lastHeartbeatAt: T0 + 1000,
    memberLeaseExpiresAt: T0 + 16_000,
    rebalanceTimeoutMs: 60_000,
    rebalanceDeadlineAt: null,
    shardProgress: [],
    fence: null,
    ...patch,
  };
}

/**
 * `orders` scaled in from 6 to 4 shards (shard 4 retired, 5 still draining), one group
 * `orders` with members `b` and `a` (ACTIVE) and `c` (EXPIRED).
 */
export function snapshotFixture(prefix = 'orders', groupName = prefix): GroupSnapshot {
  const stream: StreamDoc = {
    streamPrefix: prefix,
    shardCount: 4,
    removedShards: [
      { shard: 4, state: 'RETIRED', reason: null, updatedAt: T0 + 500 },
      { shard: 5, state: 'DRAINING', reason: 'lag 3 on group orders', updatedAt: T0 + 600 },
    ],
    migrations: [
      {
        reshardingId: 'reshard-old',
        fromShardCount: 2,
        toShardCount: 6,
        state: 'DEPRECATED',
        createdAt: T0,
        updatedAt: T0 + 10,
      },
      {
        reshardingId: 'reshard-1',
        fromShardCount: 6,
        toShardCount: 4,
        state: 'DRAINING',
        createdAt: T0 + 100,
        updatedAt: T0 + 200,
      },
    ],
    activeReshardingId: 'reshard-1',
    groups: [groupName],
    createdAt: T0,
    updatedAt: T0 + 600,
  };
  const group: GroupDoc = {
    streamPrefix: prefix,
    consumerGroup: groupName,
    groupEpoch: 7,
    assignmentEpoch: 7,
    metadataVersion: 9,
    state: 'RECONCILING',
    targetAssignments: { b: [2, 3, 5], a: [0, 1] },
    members: {
      b: memberFixture('b', {
        currentAssignment: [3, 2],
        grantedAssignment: [2, 3],
        revoking: [5],
        shardProgress: [
          {
            shard: 3,
            streamKey: `${prefix}:3`,
            lastDeliveredId: '1-0',
            lastAckedId: '1-0',
            pendingCount: 0,
            updatedAt: '2026-05-24T00:00:01Z',
          },
          {
            shard: 2,
            streamKey: `${prefix}:2`,
            lastDeliveredId: '2-0',
            lastAckedId: null,
            pendingCount: 1,
            updatedAt: null,
          },
        ],
      }),
      a: memberFixture('a', {
        currentAssignment: [1, 0],
        grantedAssignment: [0, 1],
        rebalanceDeadlineAt: T0 + 61_000,
      }),
      c: memberFixture('c', { state: 'EXPIRED', memberEpoch: 4, currentAssignment: [4] }),
    },
    metadataCorrection: null,
    createdAt: T0,
    updatedAt: T0 + 600,
  };
  return { stream, group };
}

/** One recorded call of the fake. */
export interface RecordedCall {
  method: keyof CoordinatorApi;
  args: unknown[];
}

/** Knobs of the fake coordinator. */
export interface FakeOptions {
  snapshot?: GroupSnapshot;
  /** Every method throws this error when set. */
  error?: CoordinatorError | Error;
  heartbeat?: (input: HeartbeatInput) => HeartbeatOutput;
  redis?: RedisHealth | Error;
}

/** A `CoordinatorApi` that answers from fixtures and records every call. */
export class FakeCoordinator implements CoordinatorApi {
  readonly calls: RecordedCall[] = [];
  constructor(public options: FakeOptions = {}) {}

  private answer<T>(method: keyof CoordinatorApi, args: unknown[], value: () => T): Promise<T> {
    this.calls.push({ method, args });
    if (this.options.error) return Promise.reject(this.options.error);
    try {
      return Promise.resolve(value());
    } catch (err) {
      return Promise.reject(err);
    }
  }

  private snap(prefix: string, group: string): GroupSnapshot {
    return this.options.snapshot ?? snapshotFixture(prefix, group);
  }

  createStream(prefix: string, input: Parameters<CoordinatorApi['createStream']>[1]) {
    return this.answer('createStream', [prefix, input], () =>
      this.snap(prefix, input.consumerGroup ?? prefix),
    );
  }
  createGroup(prefix: string, group: string, input: Parameters<CoordinatorApi['createGroup']>[2]) {
    return this.answer('createGroup', [prefix, group, input], () => this.snap(prefix, group));
  }
  getGroup(prefix: string, group: string) {
    return this.answer('getGroup', [prefix, group], () => this.snap(prefix, group));
  }
  deleteGroup(prefix: string, group: string, input: Parameters<CoordinatorApi['deleteGroup']>[2]) {
    return this.answer('deleteGroup', [prefix, group, input], () => this.snap(prefix, group));
  }
  repairGroup(prefix: string, group: string, input: RepairGroupInput) {
    return this.answer('repairGroup', [prefix, group, input], () => this.snap(prefix, group));
  }
  deleteStream(prefix: string, input: Parameters<CoordinatorApi['deleteStream']>[1]) {
    return this.answer('deleteStream', [prefix, input], () => ({
      streamPrefix: prefix,
      deletedGroups: [prefix],
      deletedShardKeys: [`${prefix}:0`],
      keptShardKeys: [],
    }));
  }
  getRouting(prefix: string, group: string) {
    return this.answer('getRouting', [prefix, group], () => this.snap(prefix, group));
  }
  heartbeat(prefix: string, group: string, input: HeartbeatInput) {
    return this.answer('heartbeat', [prefix, group, input], () =>
      this.options.heartbeat
        ? this.options.heartbeat(input)
        : {
            status: 'OK' as const,
            memberId: input.memberId,
            memberEpoch: 7,
            groupEpoch: 7,
            assignmentEpoch: 7,
            metadataVersion: 9,
            assignedShards: [3, 1],
            pendingShards: [2],
            assignmentMetadataVersion: 9,
          },
    );
  }
  listGroups() {
    return this.answer('listGroups', [], () => [
      this.snap('orders', 'orders'),
      this.snap('payments', 'billing'),
    ]);
  }
  redisHealth() {
    return this.answer('redisHealth', [], () => {
      const r = this.options.redis ?? 'UP';
      if (r instanceof Error) throw r;
      return r;
    });
  }
  scaleStream(prefix: string, input: ScaleInput) {
    return this.answer('scaleStream', [prefix, input], () => this.scaled(prefix, prefix));
  }
  scaleGroup(prefix: string, group: string, input: ScaleInput) {
    return this.answer('scaleGroup', [prefix, group, input], () => this.scaled(prefix, group));
  }
  getMigration(prefix: string, group: string, reshardingId: string) {
    return this.answer('getMigration', [prefix, group, reshardingId], () =>
      this.migration(prefix, group, reshardingId),
    );
  }
  rollbackMigration(prefix: string, group: string, reshardingId: string, input: RollbackInput) {
    return this.answer('rollbackMigration', [prefix, group, reshardingId, input], () => ({
      ...this.migration(prefix, group, reshardingId),
      state: 'ROLLED_BACK' as const,
    }));
  }
  migrationsOverview(prefix: string, group: string) {
    return this.answer('migrationsOverview', [prefix, group], (): MigrationsOverview => {
      const { stream } = this.snap(prefix, group);
      return {
        stream,
        removedShards: stream.removedShards.map((record) => ({
          record,
          holders: [{ consumerGroup: group, memberId: 'b', state: 'ACTIVE' as const }],
          live: null,
        })),
        rollback: { allowed: false, reason: 'fixture' },
        readAt: T0 + 1000,
      };
    });
  }

  /** The fixture stream's active migration as the result of a scale. */
  private scaled(prefix: string, group: string): StreamScaleResult {
    const { stream } = this.snap(prefix, group);
    return {
      stream,
      groups: [...stream.groups],
      migration: stream.migrations[stream.migrations.length - 1]!,
    };
  }

  private migration(prefix: string, group: string, reshardingId: string) {
    const m = this.snap(prefix, group).stream.migrations.find((x) => x.reshardingId === reshardingId);
    if (!m) throw new CoordinatorError('MIGRATION_NOT_FOUND', `migration ${reshardingId} not found`);
    return m;
  }
}
