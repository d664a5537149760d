/**
 * The reference coordinator's metric names, types and labels (`redis_stream_coord_*`, labelled
 * by coordinator, stream, group, shard, member, route), served at `GET /actuator/prometheus` so
 * its Grafana dashboards and console card read our coordinator unchanged. Recorded from the
 * same events and requests as our own `rsc_*` metrics; the state and lag gauges are filled at
 * scrape time (see `reference-state.ts`). Stream/group labels go through a `LabelBudget` whose
 * slots come from the scrape-time snapshot of the groups that exist (`syncLabels`): a namespace
 * with many groups cannot multiply series past the configured cap, requests naming made-up
 * groups cannot take a slot, and a deleted group's slot and series go.
 */
import type { CoordinatorEvent } from '../coordinator/context.js';
import type { GroupSnapshot } from '../coordinator-api.js';
import { type GroupLabels, LabelBudget, NONE_LABEL, snapshotPairs } from './label-budget.js';
import { MetricsRegistry } from './registry.js';
import { Summary } from './summary.js';

/** Path of the reference-compatible scrape endpoint. */
export const REFERENCE_METRICS_PATH = '/actuator/prometheus';

/** What the HTTP layer knows about a request, beyond method, route and status. */
export interface RequestInfo {
  /** The declared path (`/coord/v1/streams/{streamPrefix}`), or null when no route matched. */
  declaredPath: string | null;
  streamPrefix?: string | undefined;
  consumerGroup?: string | undefined;
}

/** Options of `ReferenceMetrics`. */
export interface ReferenceMetricsOptions {
  /** The `coordinator` label (COORDINATOR_ID). */
  coordinatorId: string;
  /** Stream/group pairs labelled; the rest are `_other`. */
  maxGroups: number;
  /** Monotonic ms clock for the summaries' windows. @default performance.now */
  clock?: () => number;
}

const API_LABELS = ['coordinator', 'method', 'route', 'status', 'outcome', 'stream', 'group'] as const;
const GROUP_LABELS = ['coordinator', 'stream', 'group'] as const;
const MEMBER_LABELS = ['coordinator', 'stream', 'group', 'member'] as const;
const SHARD_LABELS = ['coordinator', 'stream', 'group', 'shard', 'stream_key'] as const;

/** Every reference-named metric, and the ways to record the event-driven ones. */
export class ReferenceMetrics {
  readonly registry = new MetricsRegistry();
  readonly budget: LabelBudget;
  readonly coordinatorId: string;

  readonly up = this.registry.gauge({
    name: 'redis_stream_coord_up',
    help: '1 while the coordinator reads its metadata from Redis, else 0.',
    labelNames: ['coordinator'],
  });
  readonly apiRequests = this.registry.counter({
    name: 'redis_stream_coord_api_request_total',
    help: 'HTTP API requests, by method, declared route, status, outcome, stream and group.',
    labelNames: API_LABELS,
  });
  readonly apiDuration: Summary<(typeof API_LABELS)[number]>;
  readonly heartbeats = this.registry.counter({
    name: 'redis_stream_coord_heartbeat_total',
    help: 'Heartbeats answered, by stream, group and status (or the refusal code).',
    labelNames: ['coordinator', 'stream', 'group', 'status'],
  });
  readonly ticks = this.registry.counter({
    name: 'redis_stream_coord_tick_total',
    help: 'Housekeeping sweeps, by whether they changed a group.',
    labelNames: ['coordinator', 'changed'],
  });
  readonly stateConflicts = this.registry.counter({
    name: 'redis_stream_coord_state_conflict_total',
    help: 'Commits refused because the state changed since it was read, by scope.',
    labelNames: ['coordinator', 'operation', 'attempt'],
  });
  readonly groupEpoch = this.gauge('group_epoch', 'Group epoch.', GROUP_LABELS);
  readonly assignmentEpoch = this.gauge('assignment_epoch', 'Assignment epoch.', GROUP_LABELS);
  readonly members = this.registry.gauge({
    name: 'redis_stream_coord_members',
    help: 'Members of a group: total, active (ACTIVE or STARTING) and expired.',
    labelNames: ['coordinator', 'stream', 'group', 'state'],
  });
  readonly migrationActive = this.gauge('migration_active', '1 while a migration is active.', GROUP_LABELS);
  readonly migrationAge = this.gauge(
    'migration_active_age_seconds',
    'Age of the active migration.',
    GROUP_LABELS,
  );
  readonly revokePending = this.gauge('revoke_pending', 'Shards members are still revoking.', GROUP_LABELS);
  readonly invariantViolations = this.gauge(
    'invariant_violations',
    'Assignment invariants the stored state breaks right now.',
    GROUP_LABELS,
  );
  readonly memberActive = this.gauge('member_active', '1 for an ACTIVE or STARTING member.', MEMBER_LABELS);
  readonly memberHeartbeatAge = this.gauge(
    'member_heartbeat_age_seconds',
    'Time since the member last heartbeated.',
    MEMBER_LABELS,
  );
  readonly memberLeaseRemaining = this.gauge(
    'member_lease_remaining_seconds',
    'Time left on the member lease.',
    MEMBER_LABELS,
  );
  readonly memberMaxConcurrency = this.gauge(
    'member_runtime_max_concurrency',
    'Concurrency the member reported.',
    MEMBER_LABELS,
  );
  readonly memberActiveWorkers = this.gauge(
    'member_active_workers',
    'Active consumer workers the member reported.',
    MEMBER_LABELS,
  );
  readonly memberCurrentShards = this.gauge(
    'member_current_shards',
    'Shards the member owns.',
    MEMBER_LABELS,
  );
  readonly memberRevokingShards = this.gauge(
    'member_revoking_shards',
    'Shards the member is revoking.',
    MEMBER_LABELS,
  );
  readonly shardLength = this.gauge('shard_stream_length', 'XLEN of the shard stream.', SHARD_LABELS);
  readonly shardPending = this.gauge(
    'shard_pending',
    'Entries delivered to the group and not acknowledged (XINFO GROUPS pending).',
    SHARD_LABELS,
  );
  readonly shardLag = this.gauge(
    'shard_lag',
    'Entries not yet delivered to the group (XINFO GROUPS lag); absent when Redis cannot tell.',
    SHARD_LABELS,
  );
  readonly shardOldestPendingAge = this.gauge(
    'shard_oldest_pending_age_seconds',
    'Age of the oldest pending entry (from its id, XPENDING); 0 when nothing is pending.',
    SHARD_LABELS,
  );
  readonly shardMemory = this.gauge(
    'shard_memory_usage_bytes',
    'MEMORY USAGE of the shard stream.',
    SHARD_LABELS,
  );
  readonly shardLastRecordMs = this.gauge('shard_last_record_ms', 'Newest entry id, ms part.', SHARD_LABELS);
  readonly shardLastRecordSeq = this.gauge(
    'shard_last_record_seq',
    'Newest entry id, sequence.',
    SHARD_LABELS,
  );
  readonly shardLastGeneratedMs = this.gauge(
    'shard_last_generated_ms',
    'Last generated id, ms part.',
    SHARD_LABELS,
  );
  readonly shardLastGeneratedSeq = this.gauge(
    'shard_last_generated_seq',
    'Last generated id, sequence.',
    SHARD_LABELS,
  );
  readonly shardDeliveredMs = this.gauge(
    'shard_group_last_delivered_ms',
    'Group last-delivered id, ms part.',
    SHARD_LABELS,
  );
  readonly shardDeliveredSeq = this.gauge(
    'shard_group_last_delivered_seq',
    'Group last-delivered id, sequence.',
    SHARD_LABELS,
  );
  readonly labelledGroups = this.registry.gauge({
    name: 'redis_stream_coord_metrics_labelled_groups',
    help: 'Stream/group pairs with their own labels (at most COORDINATOR_METRICS_MAX_GROUPS; the rest are _other).',
    labelNames: ['coordinator'],
  });
  readonly lagReadAge = this.registry.gauge({
    name: 'redis_stream_coord_lag_read_age_seconds',
    help: 'Age of the cached lag readings (they are refreshed at most once per COORDINATOR_METRICS_LAG_REFRESH_MS).',
    labelNames: ['coordinator'],
  });

  constructor(opts: ReferenceMetricsOptions) {
    this.coordinatorId = opts.coordinatorId;
    this.budget = new LabelBudget(opts.maxGroups);
    const clock = opts.clock ?? (() => performance.now());
    this.apiDuration = this.registry.register(
      new Summary({
        name: 'redis_stream_coord_api_request_duration_seconds',
        help: 'HTTP API request latency (quantiles over the last two minutes).',
        labelNames: API_LABELS,
        quantiles: [0.5, 0.95, 0.99],
        clock,
      }),
    );
    this.registry.register(
      this.apiDuration.maxFamily('Largest HTTP API request latency in the last two minutes.'),
    );
    this.up.set({ coordinator: this.coordinatorId }, 1);
  }

  private gauge<L extends string>(suffix: string, help: string, labelNames: readonly L[]) {
    return this.registry.gauge({ name: `redis_stream_coord_${suffix}`, help, labelNames });
  }

  /** Records one answered request. */
  observeRequest(method: string, status: number, seconds: number, info: RequestInfo): void {
    // Looked up, never admitted: a request proves nothing about its group (a heartbeat to a
    // made-up group is answered 200), so only the scrape-time snapshot gives slots.
    const g =
      info.streamPrefix === undefined
        ? { stream: NONE_LABEL, group: NONE_LABEL }
        : info.consumerGroup === undefined
          ? this.budget.streamOnly(info.streamPrefix)
          : this.budget.lookup(info.streamPrefix, info.consumerGroup);
    const labels = {
      coordinator: this.coordinatorId,
      method: method.toUpperCase(),
      route: info.declaredPath ?? 'unmatched',
      status: String(status),
      outcome: status < 400 ? 'SUCCESS' : status < 500 ? 'CLIENT_ERROR' : 'SERVER_ERROR',
      ...g,
    };
    this.apiRequests.inc(labels);
    this.apiDuration.observe(labels, seconds);
  }

  /** Records what the coordinator reports (its `onEvent` hook). */
  observeEvent(e: CoordinatorEvent): void {
    const coordinator = this.coordinatorId;
    if (e.type === 'heartbeat' && e.streamPrefix !== undefined && e.consumerGroup !== undefined) {
      const g = this.budget.lookup(e.streamPrefix, e.consumerGroup);
      this.heartbeats.inc({ coordinator, ...g, status: e.status });
    } else if (e.type === 'sweep' && e.report !== null) {
      this.ticks.inc({ coordinator, changed: String(e.report.groupsChanged > 0) });
    } else if (e.type === 'commit' && !e.ok) {
      this.stateConflicts.inc({ coordinator, operation: e.scope, attempt: '1' });
    }
  }

  /**
   * Gives the label slots to the groups of `snaps` (the stored groups, read at scrape time):
   * groups that hold one keep it, groups that no longer exist release theirs and their request
   * and heartbeat series go with it, new groups take free slots in stream/group order.
   */
  syncLabels(snaps: readonly GroupSnapshot[]): void {
    const released = this.budget.sync(snapshotPairs(snaps));
    if (released.length === 0) return;
    const gone = new Set(released.map((r) => `${r.stream}\u0000${r.group}`));
    const goneStreams = new Set(released.map((r) => r.stream).filter((s) => !this.budget.hasStream(s)));
    const match = (l: GroupLabels) =>
      gone.has(`${l.stream}\u0000${l.group}`) || (l.group === NONE_LABEL && goneStreams.has(l.stream));
    this.apiRequests.drop(match);
    this.apiDuration.drop(match);
    this.heartbeats.drop(match);
  }

  /** The text exposition. */
  render(): Promise<string> {
    return this.registry.render();
  }
}
