/**
 * The coordinator's metrics, declared once: HTTP requests, heartbeat outcomes, CAS conflicts,
 * lock waits, sweeps, and scrape-time gauges (groups, members, migrations by state) read from
 * the stored metadata. Recorded from the coordinator's events (`observeEvent`, its `onEvent`
 * hook) and the request middleware; rendered at `GET /metrics`.
 */

import type { CoordinatorEvent, HeartbeatPath, SweepCounts } from '../coordinator/context.js';
import type { GroupSnapshot } from '../coordinator-api.js';
import type { HttpMetrics } from './http-metrics.js';
import { LabelBudget, snapshotPairs } from './label-budget.js';
import type { LagCache } from './lag-cache.js';
import { ReferenceMetrics, type ReferenceMetricsOptions, type RequestInfo } from './reference-metrics.js';
import { fillReferenceState } from './reference-state.js';
import { MetricsRegistry } from './registry.js';
import { declareStateSeries, fillStateSeries } from './state-series.js';

/** Latency buckets (seconds) for HTTP requests: sub-millisecond fast path to multi-second lock waits. */
const REQUEST_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
] as const;
/** Buckets (seconds) for lock waits and sweeps. */
const WAIT_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

/** Options of `CoordinatorMetrics`. */
export interface CoordinatorMetricsOptions {
  /** Monotonic clock in ms for HTTP request durations. @default performance.now */
  clock?: () => number;
  /** Reported as `rsc_build_info{version}`. @default 'unknown' */
  version?: string;
  /** Also record the reference's `redis_stream_coord_*` metrics (`GET /actuator/prometheus`). @default none */
  reference?: Omit<ReferenceMetricsOptions, 'clock'>;
  /**
   * Serve the per-shard series labelled by stream and group (`rsc_shard_lag`, `rsc_shard_pending`)
   * on `/metrics`; off where `/metrics` is public, since those labels name streams. @default true
   */
  streamLabels?: boolean;
  /** Stream/group pairs labelled without `reference` (with it, its `maxGroups` and slots). @default 100 */
  maxGroups?: number;
}

/** Every metric the coordinator exports, and the few ways to record them. */
export class CoordinatorMetrics implements HttpMetrics {
  readonly registry = new MetricsRegistry();
  private readonly clock: () => number;

  readonly httpRequests = this.registry.counter({
    name: 'rsc_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status'],
  });
  readonly httpDuration = this.registry.histogram({
    name: 'rsc_http_request_duration_seconds',
    // Not by status: every status of every route would be 16 more series (the scrape grew by
    // ~2 KB per new pair); rsc_http_requests_total keeps the status, this keeps the latency.
    help: 'Time from arrival to response, by method and route pattern (statuses: rsc_http_requests_total).',
    labelNames: ['method', 'route'],
    buckets: REQUEST_BUCKETS,
  });
  readonly heartbeats = this.registry.counter({
    name: 'rsc_heartbeats_total',
    help: 'Heartbeats answered, by status (or error code when refused) and path (fast: one Redis round trip; full: read and checked commit).',
    labelNames: ['status', 'path'],
  });
  readonly fastPath = this.registry.counter({
    name: 'rsc_heartbeat_fast_path_total',
    help: 'Fast-path attempts: hit answered from the stored fingerprint, miss fell back to the full path.',
    labelNames: ['result'],
  });
  readonly commits = this.registry.counter({
    name: 'rsc_store_commits_total',
    help: 'Checked commits of coordination state, by result (ok, conflict).',
    labelNames: ['result'],
  });
  readonly casConflicts = this.registry.counter({
    name: 'rsc_cas_conflicts_total',
    help: 'Commits refused because the state changed since it was loaded (retried by the caller).',
    labelNames: ['reason'],
  });
  readonly lockAcquisitions = this.registry.counter({
    name: 'rsc_lock_acquisitions_total',
    help: 'Per-stream mutex acquisitions, by whether the caller had to wait.',
    labelNames: ['waited'],
  });
  readonly lockBusy = this.registry.counter({
    name: 'rsc_lock_busy_total',
    help: 'Mutex attempts that found the stream locked by another request or instance.',
  });
  readonly lockWait = this.registry.histogram({
    name: 'rsc_lock_wait_seconds',
    help: 'Time from the first busy answer to acquiring the per-stream mutex (waits that succeeded).',
    buckets: WAIT_BUCKETS,
  });
  readonly sweeps = this.registry.counter({
    name: 'rsc_sweeps_total',
    help: 'Housekeeping sweeps run, by result (ok, error).',
    labelNames: ['result'],
  });
  readonly sweepDuration = this.registry.histogram({
    name: 'rsc_sweep_duration_seconds',
    help: 'Duration of one housekeeping sweep.',
    buckets: WAIT_BUCKETS,
  });
  readonly sweepStreams = this.registry.counter({
    name: 'rsc_sweep_streams_total',
    help: 'Streams visited by sweeps.',
  });
  readonly sweepGroupsChanged = this.registry.counter({
    name: 'rsc_sweep_groups_changed_total',
    help: 'Groups whose state a sweep changed (expiry, fencing, pruning, migration advance).',
  });
  readonly sweepBacklog = this.registry.gauge({
    name: 'rsc_sweep_backlog',
    help: 'Streams still due when the last sweep of this instance ended (work left for the next call).',
  });
  readonly sweepSkippedBusy = this.registry.counter({
    name: 'rsc_sweep_streams_skipped_busy_total',
    help: 'Streams a sweep skipped because a request held their mutex.',
  });
  readonly groupDamage = this.registry.counter({
    name: 'rsc_group_damage_total',
    help: 'Groups found to have lost part of their Redis state, by outcome: rebuilt from the member records, or refused until repaired.',
    labelNames: ['outcome'],
  });
  /** Scrape-time gauges: state counts and per-shard lag (`watchGroups`). */
  readonly state = declareStateSeries(this.registry);
  readonly buildInfo = this.registry.gauge({
    name: 'rsc_build_info',
    help: 'Always 1; the version label says what runs.',
    labelNames: ['version'],
  });

  /** The reference-named metrics, when asked for. */
  readonly reference: ReferenceMetrics | null;
  /** Label slots of the per-shard series: the reference's own when it is recorded, so both agree. */
  private readonly budget: LabelBudget;
  private readonly streamLabels: boolean;

  constructor(opts: CoordinatorMetricsOptions = {}) {
    this.clock = opts.clock ?? (() => performance.now());
    this.buildInfo.set({ version: opts.version ?? 'unknown' }, 1);
    this.reference = opts.reference ? new ReferenceMetrics({ ...opts.reference, clock: this.clock }) : null;
    this.budget = this.reference?.budget ?? new LabelBudget(opts.maxGroups ?? 100);
    this.streamLabels = opts.streamLabels ?? true;
    if (this.reference) this.renderReference = () => this.reference!.render();
  }

  /** `GET /actuator/prometheus`: present only with the reference metrics. */
  renderReference?: () => Promise<string>;

  /** Monotonic milliseconds, for measuring durations. */
  now(): number {
    return this.clock();
  }

  /** Records one answered HTTP request. */
  observeRequest(method: string, route: string, status: number, seconds: number, info?: RequestInfo): void {
    this.httpRequests.inc({ method, route, status: String(status) });
    this.httpDuration.observe({ method, route }, seconds);
    this.reference?.observeRequest(method, status, seconds, info ?? { declaredPath: null });
  }

  /** Records one heartbeat outcome (`status` is the heartbeat status or the refusal's error code). */
  observeHeartbeat(status: string, path: HeartbeatPath): void {
    this.heartbeats.inc({ status, path });
  }

  /** Records a fast-path attempt. */
  observeFastPath(hit: boolean): void {
    this.fastPath.inc({ result: hit ? 'hit' : 'miss' });
  }

  /** Records a commit's outcome; refused commits are CAS conflicts. */
  observeCommit(ok: boolean): void {
    if (ok) {
      this.commits.inc({ result: 'ok' });
      return;
    }
    this.commits.inc({ result: 'conflict' });
    this.casConflicts.inc({ reason: 'conflict' });
  }

  /** Records what the coordinator reports (its `onEvent` hook). */
  observeEvent(e: CoordinatorEvent): void {
    this.reference?.observeEvent(e);
    if (e.type === 'heartbeat') this.observeHeartbeat(e.status, e.path);
    else if (e.type === 'fast-path') this.observeFastPath(e.hit);
    else if (e.type === 'commit') this.observeCommit(e.ok);
    else if (e.type === 'lock') {
      if (e.result === 'busy') this.observeLockBusy();
      else this.observeLockAcquired(e.result === 'waited' ? e.waitedMs : null);
    } else if (e.type === 'sweep') this.observeSweep(e.report, e.ms / 1000);
    else if (e.type === 'integrity') this.groupDamage.inc({ outcome: e.rebuilt ? 'rebuilt' : 'refused' });
  }

  /** Records a mutex acquisition; `waitedMs` is null when the first attempt succeeded. */
  observeLockAcquired(waitedMs: number | null): void {
    this.lockAcquisitions.inc({ waited: waitedMs === null ? 'false' : 'true' });
    if (waitedMs !== null) this.lockWait.observe(undefined, waitedMs / 1000);
  }

  /** Records one attempt that found the mutex taken. */
  observeLockBusy(): void {
    this.lockBusy.inc();
  }

  /** Records one sweep (`report` null when it failed). */
  observeSweep(report: SweepCounts | null, seconds: number): void {
    this.sweeps.inc({ result: report === null ? 'error' : 'ok' });
    this.sweepDuration.observe(undefined, seconds);
    if (report === null) return;
    this.sweepStreams.inc(undefined, report.streams);
    this.sweepGroupsChanged.inc(undefined, report.groupsChanged);
    this.sweepSkippedBusy.inc(undefined, report.skippedBusy);
    this.sweepBacklog.set(undefined, report.backlog);
  }

  /**
   * Fills the reference state and lag gauges at every `/actuator/prometheus` scrape: the
   * metadata from `listGroups()`, the lag from `lag` (cached, bounded in Redis cost).
   */
  watchReference(listGroups: () => Promise<GroupSnapshot[]>, lag: LagCache | null, now = Date.now): void {
    const ref = this.reference;
    if (!ref) return;
    const coordinator = ref.coordinatorId;
    ref.registry.onCollect(async () => {
      let snaps: GroupSnapshot[];
      try {
        snaps = await listGroups();
      } catch {
        ref.up.set({ coordinator }, 0);
        fillReferenceState(ref, [], [], now());
        return;
      }
      ref.up.set({ coordinator }, 1);
      // Only a snapshot that was read moves the slots: a failed read keeps them as they were.
      ref.syncLabels(snaps);
      const lags = lag ? await lag.lags(snaps) : [];
      fillReferenceState(ref, snaps, lags, now());
      ref.lagReadAge.set({ coordinator }, lag?.readAt == null ? 0 : Math.max(0, (now() - lag.readAt) / 1000));
    });
  }

  /**
   * Fills the state gauges from `listGroups()` at every `/metrics` scrape, and the per-shard lag
   * from `lag` — the cache `/actuator/prometheus` reads too, so scraping both endpoints costs one
   * lag read per refresh.
   */
  watchGroups(listGroups: () => Promise<GroupSnapshot[]>, lag: LagCache | null = null, now = Date.now): void {
    this.registry.onCollect(async () => {
      let snaps: GroupSnapshot[];
      try {
        snaps = await listGroups();
      } catch {
        fillStateSeries(this.state, { snaps: null, lags: [], budget: null, lagAgeSeconds: 0 });
        return;
      }
      const labelled = this.streamLabels && lag !== null;
      if (labelled) this.syncLabels(snaps);
      const lags = labelled ? await lag.lags(snaps) : [];
      fillStateSeries(this.state, {
        snaps,
        lags,
        budget: labelled ? this.budget : null,
        lagAgeSeconds: lag?.readAt == null ? 0 : Math.max(0, (now() - lag.readAt) / 1000),
      });
    });
  }

  /** Gives the label slots from a snapshot of the groups that exist (the reference's, when recorded). */
  private syncLabels(snaps: readonly GroupSnapshot[]): void {
    if (this.reference) this.reference.syncLabels(snaps);
    else this.budget.sync(snapshotPairs(snaps));
  }

  /** The text exposition of every metric. */
  render(): Promise<string> {
    return this.registry.render();
  }
}
