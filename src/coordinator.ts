/**
 * Use-cases of the coordinator: lock → load → pure core → compare-and-set commit → respond.
 * The only layer that does I/O decisions; the protocol itself lives in `core/`.
 */

import type { CoordinatorConfig } from './config.js';
import type {
  AdminRequestMeta,
  CoordinatorApi,
  CreateGroupInput,
  CreateStreamInput,
  DeleteGroupInput,
  GroupSnapshot,
  MigrationsOverview,
  RedisHealth,
  RollbackInput,
  ScaleInput,
  StreamScaleResult,
} from './coordinator-api.js';
import type { RetireOutcome, ShardReading } from './core/drain-evidence.js';
import { drainVerdict } from './core/drain-evidence.js';
import { CoordinatorError } from './core/errors.js';
import { fastPathUntil, heartbeatKey, steadyFingerprint } from './core/fast-path.js';
import { newGroupDoc } from './core/group.js';
import type { HeartbeatInput, HeartbeatOutput } from './core/heartbeat-types.js';
import { durablyEqual, housekeepGroup, newlyExpired } from './core/housekeeping.js';
import {
  consumableShards,
  type GroupDoc,
  isLive,
  type Migration,
  PROTOCOL_VERSION,
  type ProtocolConfig,
  type StreamDoc,
} from './core/model.js';
import {
  activateMigration,
  activationShards,
  newGroupProvisioning,
  requestScale,
  rollbackBlocker,
  rollbackMigration,
  rollbackReadsNeeded,
} from './core/resharding.js';
import {
  ioNeeded,
  preparingMigration,
  type ReshardIo,
  reshardingInProgress,
  streamPass,
  streamWorkDue,
} from './core/resharding-advance.js';
import { processStreamHeartbeat } from './core/stream-heartbeat.js';
import { activeMigrationOf, holdersByShard, type StreamState } from './core/stream-state.js';
import { type Decision, LockBusyError, runCritical } from './store/critical-section.js';
import { shardKey } from './store/keys.js';
import type { CommitRequest, LeaseWrite, Store, StreamSnapshot } from './store/store.js';

/** One-line structured logger. */
export type Logger = (
  level: 'debug' | 'info' | 'warn' | 'error',
  msg: string,
  fields?: Record<string, unknown>,
) => void;

/** What the coordinator needs to run. */
export interface CoordinatorDeps {
  store: Store;
  config: CoordinatorConfig;
  /** Epoch-ms clock, read once per use-case. @default Date.now */
  now?: () => number;
  /** @default no-op */
  log?: Logger;
  /** Random source for jitter. @default Math.random */
  random?: () => number;
}

/** Outcome of one sweep call. */
export interface SweepReport {
  /** Streams visited (idle ones included). */
  streams: number;
  groupsChanged: number;
  skippedBusy: number;
  /** Where the next call starts (null: no streams). */
  nextCursor: string | null;
  /** Store calls this sweep made. */
  calls: number;
}

/** Bounds of one sweep call. */
export interface SweepOptions {
  /** Streams visited at most. @default 500 */
  maxStreams?: number;
  /**
   * Store calls (Redis round trips) spent at most: an idle stream costs one (an unlocked
   * load), a stream with work about ten plus one per shard it reads or retires; the sweep stops
   * before a stream that might not fit. @default unlimited
   */
  maxCalls?: number;
  /** Prefix to start at (the first one >= it, wrapping around). @default where the last call stopped */
  cursor?: string | null;
}

/** A commit as decided inside a critical section (prefix and revision are filled in there). */
type CommitBody = Omit<CommitRequest, 'prefix' | 'expectedRevision'>;

/** Store calls a stream with work may cost before its shard reads, kept free before starting it. */
const BUSY_STREAM_RESERVE = 10;
/** Resharding passes one call makes at most (a pass that starts retirements is followed by one that runs them). */
const MAX_PASSES = 3;
/** Shard provisioning calls in flight at once. */
const PROVISION_CONCURRENCY = 16;
/** Answer of a heartbeat decision that needs every group of the stream loaded. */
const NEEDS_ALL_GROUPS = Symbol('needs all groups');

const MAX_NAME = 200;
const HEALTH_CACHE_MS = 1000;

/** The coordinator's use-cases over a Store. */
export class Coordinator implements CoordinatorApi {
  private readonly store: Store;
  private readonly config: CoordinatorConfig;
  private readonly protocol: ProtocolConfig;
  private readonly now: () => number;
  private readonly log: Logger;
  private readonly random: () => number;
  private health: { value: RedisHealth; at: number; pending: Promise<void> | null } = {
    value: 'UNKNOWN',
    at: 0,
    pending: null,
  };
  private sweepCursor: string | null = null;
  /** Store calls made by this instance (sweeps budget themselves with it). */
  private calls = 0;

  constructor(deps: CoordinatorDeps) {
    this.store = countingStore(deps.store, () => {
      this.calls++;
    });
    this.config = deps.config;
    this.now = deps.now ?? Date.now;
    this.log = deps.log ?? (() => undefined);
    this.random = deps.random ?? Math.random;
    this.protocol = {
      heartbeatIntervalMs: deps.config.heartbeatIntervalMs,
      memberLeaseTtlMs: deps.config.memberLeaseTtlMs,
      rebalanceTimeoutMs: deps.config.rebalanceTimeoutMs,
      staleMemberRetentionMs: deps.config.staleMemberRetentionMs,
    };
  }

  /** Releases nothing today; kept so adapters can shut every component down uniformly. */
  async close(): Promise<void> {
    await this.health.pending;
  }

  /** Protocol timings in force. */
  get protocolConfig(): ProtocolConfig {
    return this.protocol;
  }

  // ---- admin -------------------------------------------------------------------------

  async createStream(prefix: string, input: CreateStreamInput): Promise<GroupSnapshot> {
    const group = input.consumerGroup ?? prefix;
    checkNames(prefix, group);
    const shardCount = this.checkShardCount(input.initialShardCount ?? this.config.defaultShardCount);
    return this.createStreamWithGroup(prefix, group, shardCount, 'STREAM_PREFIX_ALREADY_EXISTS', input);
  }

  async createGroup(prefix: string, group: string, input: CreateGroupInput): Promise<GroupSnapshot> {
    checkNames(prefix, group);
    const asked = input.initialShardCount === null ? null : this.checkShardCount(input.initialShardCount);
    const existing = await this.store.load(prefix, [group]);
    if (!existing) {
      return this.createStreamWithGroup(
        prefix,
        group,
        asked ?? this.config.defaultShardCount,
        'GROUP_ALREADY_EXISTS',
        input,
      );
    }
    const now = this.now();
    this.checkAddGroup(existing, group, asked);
    await this.advanceStream(prefix, now, { lockWaitMs: this.config.lockWaitMs, resumePreparing: null });
    // Provision before the metadata commit so no member is ever assigned a shard without the
    // Redis group; XGROUP CREATE is idempotent, so a lost race costs nothing. A migration that
    // moves meanwhile may need more shards: then provision those and try again.
    const done = { create: new Set<number>(), existing: new Set<number>() };
    let stream = existing.stream;
    for (let attempt = 0; attempt < MAX_PASSES; attempt++) {
      await this.provisionNewGroup(prefix, group, stream, done);
      const snap = await this.critical(prefix, [group], (s): Decision<GroupSnapshot | StreamDoc> => {
        if (!s) throw new CoordinatorError('STREAM_NOT_FOUND', `stream "${prefix}" was deleted meanwhile`);
        this.checkAddGroup(s, group, asked);
        const plan = newGroupProvisioning(s.stream);
        const covered =
          plan.create.every((i) => done.create.has(i)) &&
          plan.existing.every((i) => done.create.has(i) || done.existing.has(i));
        if (!covered) return { result: s.stream };
        const doc = newGroupDoc(prefix, group, now);
        const next: StreamDoc = { ...s.stream, groups: [...s.stream.groups, group].sort(), updatedAt: now };
        return {
          commit: {
            stream: next,
            groups: { [group]: doc },
            fastPathUntil: { [group]: fastPathUntil(next, doc, this.protocol) },
          },
          result: { stream: next, group: doc },
        };
      });
      if ('group' in snap) {
        this.audit('group created', prefix, group, input);
        return snap;
      }
      stream = snap;
    }
    throw new CoordinatorError(
      'STATE_VERSION_CONFLICT',
      `the shards of stream "${prefix}" kept changing while group "${group}" was provisioned; retry the request`,
    );
  }

  async getGroup(prefix: string, group: string): Promise<GroupSnapshot> {
    return this.readGroup(prefix, group);
  }

  async getRouting(prefix: string, group: string): Promise<GroupSnapshot> {
    return this.readGroup(prefix, group);
  }

  async deleteGroup(prefix: string, group: string, input: DeleteGroupInput): Promise<GroupSnapshot> {
    checkNames(prefix, group);
    const now = this.now();
    await this.advanceStream(prefix, now, { lockWaitMs: this.config.lockWaitMs, resumePreparing: null });
    let removedStream = false;
    const snap = await this.critical(prefix, [group], (s): Decision<GroupSnapshot> => {
      const doc = s?.groups[group];
      if (!s || !doc) throw groupNotFound(prefix, group);
      const current = housekeepGroup({ stream: s.stream, group: doc, config: this.protocol, now });
      const active = Object.values(current.members).filter((m) => isLive(m.state));
      if (active.length > 0 && !input.force) {
        throw new CoordinatorError(
          'GROUP_HAS_ACTIVE_MEMBERS',
          `group "${group}" of stream "${prefix}" has ${active.length} active member(s); pass force=true to delete anyway`,
        );
      }
      const groups = s.stream.groups.filter((g) => g !== group);
      removedStream = groups.length === 0;
      const commit: Decision<GroupSnapshot>['commit'] = removedStream
        ? { deleteStream: true, groups: { [group]: null } }
        : { stream: { ...s.stream, groups, updatedAt: now }, groups: { [group]: null } };
      return { commit, result: { stream: s.stream, group: doc } };
    });
    if (removedStream) await this.store.unregisterStream(prefix).catch(() => undefined);
    this.audit('group deleted', prefix, group, input, { force: input.force });
    return snap;
  }

  async listGroups(): Promise<GroupSnapshot[]> {
    const out: GroupSnapshot[] = [];
    for (const prefix of await this.store.listStreams()) {
      const s = await this.store.load(prefix, 'all');
      if (!s) continue;
      for (const name of s.stream.groups) {
        const group = s.groups[name];
        if (group) out.push({ stream: s.stream, group });
      }
    }
    return out;
  }

  async redisHealth(): Promise<RedisHealth> {
    const now = this.now();
    if (now - this.health.at >= HEALTH_CACHE_MS && !this.health.pending) {
      this.health.pending = this.store
        .ping()
        .then((ok) => {
          this.health = { value: ok ? 'UP' : 'DOWN', at: this.now(), pending: null };
        })
        .catch(() => {
          this.health = { value: 'DOWN', at: this.now(), pending: null };
        });
    }
    // The first probe is awaited so a fresh instance does not report UNKNOWN for a second.
    if (this.health.value === 'UNKNOWN' && this.health.pending) await this.health.pending;
    return this.health.value;
  }

  // ---- member protocol -----------------------------------------------------------------

  async heartbeat(prefix: string, group: string, input: HeartbeatInput): Promise<HeartbeatOutput> {
    const fast = await this.tryFastHeartbeat(prefix, group, input);
    if (fast) return fast;
    const now = this.now();
    const first = await this.critical(prefix, [group], (s) =>
      this.decideHeartbeat(prefix, group, input, s, now, false),
    );
    if (first !== NEEDS_ALL_GROUPS) return first;
    // Resharding is in progress: the lazy pass changes every group of the stream at once.
    const all = await this.critical(prefix, 'all', (s) =>
      this.decideHeartbeat(prefix, group, input, s, now, true),
    );
    if (all === NEEDS_ALL_GROUPS)
      throw new CoordinatorError('INTERNAL_ERROR', 'heartbeat could not load its stream');
    return all;
  }

  /** The full-path heartbeat inside the critical section, with the stream's lazy pass while resharding. */
  private async decideHeartbeat(
    prefix: string,
    group: string,
    input: HeartbeatInput,
    s: StreamSnapshot | null,
    now: number,
    allLoaded: boolean,
  ): Promise<Decision<HeartbeatOutput | typeof NEEDS_ALL_GROUPS>> {
    const resharding = s !== null && reshardingInProgress(s.stream);
    if (resharding && !allLoaded && s.stream.groups.some((g) => g !== group))
      return { result: NEEDS_ALL_GROUPS };
    const state: StreamState = { stream: s?.stream ?? emptyStream(prefix, now), groups: s?.groups ?? {} };
    const io = resharding ? await this.gatherIo(prefix, state.stream, now) : {};
    const out = processStreamHeartbeat({ state, group, request: input, io, config: this.protocol, now });
    const response = out.response;
    if (!out.answeredFrom) return { result: response };
    const commit = this.stateCommit(state, out.state, now);
    const member = out.answeredFrom.members[input.memberId];
    if (member && member.lastHeartbeatAt === now) {
      // Accepted this round: store the progress the core kept (filtered to the member's authority).
      commit.progress = {
        group,
        memberId: member.memberId,
        json: JSON.stringify(member.shardProgress),
        at: now,
      };
    }
    // A fingerprint only for an answer that the stored group still gives (no pass changed it since).
    const stored = out.state.groups[group];
    if (response.status === 'OK' && input.memberId === input.pathMemberId && stored === out.answeredFrom) {
      const fp = steadyFingerprint({
        stream: out.state.stream,
        group: stored,
        request: input,
        response,
        config: this.protocol,
        now,
      });
      if (fp) {
        commit.fastPath = {
          group,
          memberId: input.memberId,
          key: fp.key,
          response: JSON.stringify(fp.response),
        };
      }
    }
    return { commit, result: response };
  }

  private async tryFastHeartbeat(
    prefix: string,
    group: string,
    input: HeartbeatInput,
  ): Promise<HeartbeatOutput | null> {
    if (input.memberEpoch <= 0 || input.protocolVersion !== PROTOCOL_VERSION) return null;
    if (input.memberId !== input.pathMemberId) return null;
    const now = this.now();
    const text = await this.store.fastHeartbeat({
      prefix,
      group,
      memberId: input.memberId,
      key: heartbeatKey(input),
      now,
      leaseExpiresAt: now + this.protocol.memberLeaseTtlMs,
      progressJson: JSON.stringify(input.shardProgress),
    });
    return text === null ? null : (JSON.parse(text) as HeartbeatOutput);
  }

  // ---- resharding ----------------------------------------------------------------------

  async scaleStream(prefix: string, input: ScaleInput): Promise<StreamScaleResult> {
    return this.scale(prefix, null, input);
  }

  async scaleGroup(prefix: string, group: string, input: ScaleInput): Promise<StreamScaleResult> {
    return this.scale(prefix, group, input);
  }

  async getMigration(prefix: string, group: string, reshardingId: string): Promise<Migration> {
    const { stream } = await this.readGroup(prefix, group);
    const m = stream.migrations.find((x) => x.reshardingId === reshardingId);
    if (!m) throw migrationNotFound(prefix, reshardingId);
    return m;
  }

  async rollbackMigration(
    prefix: string,
    group: string,
    reshardingId: string,
    input: RollbackInput,
  ): Promise<Migration> {
    checkNames(prefix, group);
    const now = this.now();
    await this.advanceStream(prefix, now, { lockWaitMs: this.config.lockWaitMs, resumePreparing: null });
    const migration = await this.critical(prefix, 'all', async (s): Promise<Decision<Migration>> => {
      if (!s?.groups[group]) throw groupNotFound(prefix, group);
      const state = streamPass({ stream: s.stream, groups: s.groups }, {}, now, this.protocol);
      const m = state.stream.migrations.find((x) => x.reshardingId === reshardingId);
      if (!m) throw migrationNotFound(prefix, reshardingId);
      // Read under the mutex: the check sees the added shards as they are at the decision.
      const readings = await this.readShards(prefix, rollbackReadsNeeded(state.stream, m));
      const out = rollbackMigration(state, reshardingId, readings, now, this.protocol);
      const before = { stream: s.stream, groups: s.groups };
      return out.state === before
        ? { result: out.migration }
        : { commit: this.stateCommit(before, out.state, now), result: out.migration };
    });
    this.audit('migration rolled back', prefix, group, input, { reshardingId, state: migration.state });
    return migration;
  }

  async migrationsOverview(prefix: string, group: string): Promise<MigrationsOverview> {
    checkNames(prefix, group);
    const s = await this.store.load(prefix, 'all');
    if (!s?.groups[group]) throw groupNotFound(prefix, group);
    const now = this.now();
    const { stream } = s;
    const active = activeMigrationOf(stream);
    const shown = stream.removedShards.filter(
      (r) => r.state !== 'RETIRED' || (active !== null && r.reshardingId === active.reshardingId),
    );
    const live = await this.readShards(
      prefix,
      shown.filter((r) => r.state !== 'RETIRED').map((r) => r.shard),
    );
    const holders = holdersByShard(s.groups, now);
    const removedShards = shown.map((record) => {
      const reading = live.get(record.shard);
      return {
        record,
        holders: holders.get(record.shard) ?? [],
        live: reading ? { reading, verdict: drainVerdict(reading, stream.groups) } : null,
      };
    });
    let rollback: MigrationsOverview['rollback'] = { allowed: false, reason: 'no active migration' };
    if (active) {
      const readings = await this.readShards(prefix, rollbackReadsNeeded(stream, active));
      const blocker = rollbackBlocker(stream, active, readings);
      rollback = { allowed: blocker === null, reason: blocker };
    }
    return { stream, removedShards, rollback, readAt: now };
  }

  /** Both scale routes: lazy pass, decision (one atomic commit), provisioning, activation. */
  private async scale(prefix: string, group: string | null, input: ScaleInput): Promise<StreamScaleResult> {
    checkNames(prefix, group ?? prefix);
    const target = input.targetShardCount;
    if (!Number.isSafeInteger(target) || target < 0 || target > this.config.maxShardCount) {
      throw new CoordinatorError(
        'INVALID_REQUEST',
        `targetShardCount: must be an integer between 0 and ${this.config.maxShardCount}`,
      );
    }
    const now = this.now();
    const missing = () => (group === null ? streamNotFound(prefix) : groupNotFound(prefix, group));
    await this.advanceStream(prefix, now, { lockWaitMs: this.config.lockWaitMs, resumePreparing: null });
    const decision = await this.critical(prefix, 'all', (s) => {
      if (!s || s.stream.groups.length === 0 || (group !== null && !s.groups[group])) throw missing();
      const before: StreamState = { stream: s.stream, groups: s.groups };
      // Expire members first (PROTOCOL §5.1); the pre-pass did the Redis part.
      const housekept = streamPass(before, {}, now, this.protocol);
      const d = requestScale(housekept, { targetShardCount: target, reshardingId: newReshardingId() }, now);
      const commit = d.state === before ? undefined : this.stateCommit(before, d.state, now);
      return { commit, result: d };
    });
    this.audit('scale requested', prefix, group ?? prefix, input, {
      targetShardCount: target,
      reshardingId: decision.migration.reshardingId,
      outcome: decision.outcome,
    });
    const groups = [...decision.state.stream.groups].sort();
    if (decision.outcome === 'noop') {
      return { stream: decision.state.stream, groups, migration: decision.migration };
    }
    const activated = await this.provisionAndActivate(prefix, decision.migration.reshardingId, now);
    return {
      stream: activated.stream,
      groups: [...activated.stream.groups].sort(),
      migration: activated.migration,
    };
  }

  /**
   * PREPARING → ACTIVE: provisions shards `0..to-1` for every group, then activates in one
   * commit. A provisioning failure leaves the migration PREPARING (503); the same request or
   * the sweep resumes. A group added meanwhile is provisioned before activation.
   */
  private async provisionAndActivate(
    prefix: string,
    reshardingId: string,
    now: number,
  ): Promise<{ stream: StreamDoc; migration: Migration }> {
    const provisioned = new Set<string>();
    for (let attempt = 0; attempt < MAX_PASSES; attempt++) {
      const snap = await this.store.load(prefix, []);
      if (!snap) throw streamNotFound(prefix);
      const m = preparingMigration(snap.stream);
      if (!m || m.reshardingId !== reshardingId) return currentMigration(snap.stream, reshardingId, prefix);
      const groups = snap.stream.groups.filter((g) => !provisioned.has(g));
      if (this.config.provisioning) {
        const jobs = groups.flatMap((g) =>
          activationShards(m).map((i) => () => this.store.provision(shardKey(prefix, i), g)),
        );
        await inBatches(jobs, PROVISION_CONCURRENCY);
      }
      for (const g of groups) provisioned.add(g);
      const out = await this.critical(prefix, 'all', (s) => {
        if (!s) throw streamNotFound(prefix);
        const current = preparingMigration(s.stream);
        if (!current || current.reshardingId !== reshardingId) {
          return { result: currentMigration(s.stream, reshardingId, prefix) };
        }
        if (!s.stream.groups.every((g) => provisioned.has(g))) return { result: null };
        const before: StreamState = { stream: s.stream, groups: s.groups };
        const after = activateMigration(before, reshardingId, now, this.protocol);
        return {
          commit: this.stateCommit(before, after, now),
          result: currentMigration(after.stream, reshardingId, prefix),
        };
      });
      if (out) return out;
    }
    throw new CoordinatorError(
      'STATE_VERSION_CONFLICT',
      `groups of stream "${prefix}" kept changing while migration ${reshardingId} was provisioned; repeat the request`,
    );
  }

  // ---- sweep ---------------------------------------------------------------------------

  /**
   * Housekeeping for every stream (expiry, fencing, migration advance with drain evidence,
   * pruning), bounded per call and resumed from a cursor on the next call. An idle stream costs
   * one unlocked load; a stream with work is locked (busy streams are skipped, not waited for)
   * and may resume a PREPARING migration. `limits` may be the old `maxStreams` number.
   */
  async sweep(now: number, limits: number | SweepOptions = {}): Promise<SweepReport> {
    const opts: SweepOptions = typeof limits === 'number' ? { maxStreams: limits } : limits;
    const maxStreams = opts.maxStreams ?? 500;
    const maxCalls = opts.maxCalls ?? Number.POSITIVE_INFINITY;
    const start = this.calls;
    const spent = () => this.calls - start;
    const report: SweepReport = { streams: 0, groupsChanged: 0, skippedBusy: 0, nextCursor: null, calls: 0 };
    const prefixes = await this.store.listStreams();
    if (prefixes.length === 0) return { ...report, calls: spent() };
    const order = rotateFrom(prefixes, opts.cursor === undefined ? this.sweepCursor : opts.cursor);
    let next = 0;
    for (; next < Math.min(maxStreams, order.length); next++) {
      if (spent() + 1 > maxCalls) break;
      const prefix = order[next]!;
      try {
        const snap = await this.store.load(prefix, 'all');
        if (snap && streamWorkDue({ stream: snap.stream, groups: snap.groups }, now, this.protocol)) {
          // Not enough budget left for this stream's work: it is where the next call starts.
          if (spent() + BUSY_STREAM_RESERVE > maxCalls) break;
          report.groupsChanged += await this.advanceStream(prefix, now, {
            lockWaitMs: 0,
            // Provisioning costs one call per shard and group: resumed only while the budget covers it.
            resumePreparing: (m, groups) =>
              spent() + activationShards(m).length * groups + BUSY_STREAM_RESERVE <= maxCalls,
          });
        }
      } catch (e) {
        if (e instanceof LockBusyError) report.skippedBusy++;
        else this.log('warn', 'sweep of stream failed', { streamPrefix: prefix, error: errorText(e) });
      }
      report.streams++;
    }
    this.sweepCursor = order[next % order.length] ?? null;
    return { ...report, nextCursor: this.sweepCursor, calls: spent() };
  }

  /**
   * The stream's housekeeping under its mutex: every group's expiry, fencing and pruning, and
   * the resharding pass on freshly gathered Redis evidence; a pass that starts retirements is
   * followed by one that runs them. Returns how many group documents changed.
   */
  private async advanceStream(
    prefix: string,
    now: number,
    opts: { lockWaitMs: number; resumePreparing: ((m: Migration, groupCount: number) => boolean) | null },
  ): Promise<number> {
    let changed = 0;
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      const r = await runCritical(
        this.store,
        prefix,
        'all',
        {
          lockWaitMs: opts.lockWaitMs,
          lockTtlMs: 10_000,
          maxAttempts: 3,
          random: this.random,
          clock: this.now,
        },
        async (s) => {
          if (!s)
            return { result: { changed: 0, again: false, preparing: null as Migration | null, groups: 0 } };
          const before: StreamState = { stream: s.stream, groups: s.groups };
          const after = streamPass(before, await this.gatherIo(prefix, s.stream, now), now, this.protocol);
          const preparing = preparingMigration(after.stream);
          const groups = after.stream.groups.length;
          if (after === before) return { result: { changed: 0, again: false, preparing, groups } };
          const again = ioNeeded(after.stream, now, this.protocol.heartbeatIntervalMs).retirements.length > 0;
          const count = Object.keys(after.groups).filter(
            (g) => !durablyEqual(before.groups[g]!, after.groups[g]!),
          ).length;
          return {
            commit: this.stateCommit(before, after, now),
            result: { changed: count, again, preparing, groups },
          };
        },
      );
      changed += r.changed;
      if (r.preparing && opts.resumePreparing?.(r.preparing, r.groups)) {
        await this.provisionAndActivate(prefix, r.preparing.reshardingId, now).catch((e: unknown) => {
          this.log('warn', 'resuming a PREPARING migration failed', {
            streamPrefix: prefix,
            reshardingId: r.preparing?.reshardingId,
            error: errorText(e),
          });
        });
      }
      if (!r.again) break;
    }
    return changed;
  }

  /** Drain-evidence reads and retire scripts the next pass needs (at most one read per interval per shard). */
  private async gatherIo(prefix: string, stream: StreamDoc, now: number): Promise<ReshardIo> {
    const needs = ioNeeded(stream, now, this.protocol.heartbeatIntervalMs);
    if (needs.readings.length === 0 && needs.retirements.length === 0) return {};
    const store = this.store;
    const retire = (shard: number): Promise<RetireOutcome> =>
      store.retireShard
        ? store.retireShard(shardKey(prefix, shard), stream.groups)
        : Promise.resolve({ kind: 'error', message: 'this store cannot retire shards' });
    const [readings, outcomes] = await Promise.all([
      this.readShards(prefix, needs.readings),
      Promise.all(needs.retirements.map(retire)),
    ]);
    return { readings, retirements: new Map(needs.retirements.map((s, i) => [s, outcomes[i]!])) };
  }

  /** Read-only drain evidence of `shards` (a store without the capability yields errors: never evidence). */
  private async readShards(prefix: string, shards: number[]): Promise<Map<number, ShardReading>> {
    const store = this.store;
    const read = (shard: number): Promise<ShardReading> =>
      store.readShard
        ? store.readShard(shardKey(prefix, shard))
        : Promise.resolve({ kind: 'error', message: 'this store cannot read drain evidence' });
    const readings = await Promise.all(shards.map(read));
    return new Map(shards.map((s, i) => [s, readings[i]!]));
  }

  // ---- helpers -------------------------------------------------------------------------

  /**
   * The commit taking a stream from `before` to `after`: the stream document when it changed;
   * per changed group its document (when durably changed), leases and expiries; and, whenever
   * the stream document changed, every group's fast-path window (it depends on the stream).
   */
  private stateCommit(before: StreamState, after: StreamState, now: number): CommitBody {
    const commit: CommitBody = { groups: {}, leases: {}, expiries: {}, fastPathUntil: {} };
    const streamChanged = after.stream !== before.stream;
    if (streamChanged) commit.stream = { ...after.stream, updatedAt: now };
    for (const [name, g] of Object.entries(after.groups)) {
      const b = before.groups[name];
      if (b && g !== b) {
        const part = this.groupCommit(after.stream, name, b, g, now);
        Object.assign(commit.groups!, part.groups);
        Object.assign(commit.leases!, part.leases);
        Object.assign(commit.expiries!, part.expiries);
        Object.assign(commit.fastPathUntil!, part.fastPathUntil);
      }
      if (streamChanged) commit.fastPathUntil![name] = fastPathUntil(after.stream, g, this.protocol);
    }
    return commit;
  }

  /** Provisions a joining group on what `newGroupProvisioning` asks that is not done yet. */
  private async provisionNewGroup(
    prefix: string,
    group: string,
    stream: StreamDoc,
    done: { create: Set<number>; existing: Set<number> },
  ): Promise<void> {
    const plan = newGroupProvisioning(stream);
    const create = plan.create.filter((i) => !done.create.has(i));
    const existing = plan.existing.filter((i) => !done.create.has(i) && !done.existing.has(i));
    if (this.config.provisioning) {
      const store = this.store;
      await inBatches(
        [
          ...create.map((i) => () => store.provision(shardKey(prefix, i), group)),
          // Removed shards: only where the key still exists (a retired key is never brought back).
          ...existing.map((i) => async () => {
            if (store.provisionExisting) await store.provisionExisting(shardKey(prefix, i), group);
          }),
        ],
        PROVISION_CONCURRENCY,
      );
    }
    for (const i of create) done.create.add(i);
    for (const i of existing) done.existing.add(i);
  }

  /** The commit for one group going from `before` to `after` (document only if it changed durably). */
  private groupCommit(
    stream: StreamDoc,
    name: string,
    before: GroupDoc,
    after: GroupDoc,
    now: number,
  ): Omit<CommitRequest, 'prefix' | 'expectedRevision'> {
    const commit: Omit<CommitRequest, 'prefix' | 'expectedRevision'> = {
      leases: { [name]: leaseWrites(before, after) },
    };
    if (!durablyEqual(before, after)) {
      commit.groups = { [name]: { ...after, updatedAt: now } };
      commit.fastPathUntil = { [name]: fastPathUntil(stream, after, this.protocol) };
      const expired = newlyExpired(before, after);
      if (expired.length > 0) commit.expiries = { [name]: expired };
    }
    return commit;
  }

  private critical<T>(
    prefix: string,
    groups: string[] | 'all',
    decide: (s: StreamSnapshot | null) => Decision<T> | Promise<Decision<T>>,
  ): Promise<T> {
    return runCritical(
      this.store,
      prefix,
      groups,
      {
        lockWaitMs: this.config.lockWaitMs,
        lockTtlMs: 10_000,
        maxAttempts: 5,
        random: this.random,
        clock: this.now,
      },
      decide,
    );
  }

  private async readGroup(prefix: string, group: string): Promise<GroupSnapshot> {
    checkNames(prefix, group);
    const s = await this.store.load(prefix, [group]);
    const doc = s?.groups[group];
    if (!s || !doc) throw groupNotFound(prefix, group);
    return { stream: s.stream, group: doc };
  }

  private async createStreamWithGroup(
    prefix: string,
    group: string,
    shardCount: number,
    existsCode: 'STREAM_PREFIX_ALREADY_EXISTS' | 'GROUP_ALREADY_EXISTS',
    meta: AdminRequestMeta,
  ): Promise<GroupSnapshot> {
    const now = this.now();
    const stream: StreamDoc = {
      streamPrefix: prefix,
      shardCount,
      removedShards: [],
      migrations: [],
      activeReshardingId: null,
      groups: [group],
      createdAt: now,
      updatedAt: now,
    };
    const doc = newGroupDoc(prefix, group, now);
    const alreadyExists = () =>
      new CoordinatorError(
        existsCode,
        existsCode === 'GROUP_ALREADY_EXISTS'
          ? `group "${group}" of stream "${prefix}" already exists`
          : `stream "${prefix}" already exists`,
      );
    if (this.config.provisioning) {
      const keys = [prefix, ...Array.from({ length: shardCount }, (_, i) => shardKey(prefix, i))];
      if ((await this.store.load(prefix, [])) === null && (await this.store.countExisting(keys)) > 0) {
        throw new CoordinatorError(
          'STREAM_PREFIX_ALREADY_EXISTS',
          `Redis already has keys of stream "${prefix}" that this coordinator does not manage`,
        );
      }
    }
    await this.store.registerStream(prefix);
    await this.critical(prefix, [], (s): Decision<void> => {
      if (s) throw alreadyExists();
      return {
        commit: {
          stream,
          groups: { [group]: doc },
          fastPathUntil: { [group]: fastPathUntil(stream, doc, this.protocol) },
        },
        result: undefined,
      };
    });
    try {
      await this.provisionGroup(prefix, group, consumableShards(stream));
    } catch (e) {
      // Undo the metadata so the request can be repeated; the stream keys stay (never deleted here).
      await this.critical(
        prefix,
        [],
        (s): Decision<void> =>
          s
            ? { commit: { deleteStream: true, groups: { [group]: null } }, result: undefined }
            : { result: undefined },
      ).catch(() => undefined);
      await this.store.unregisterStream(prefix).catch(() => undefined);
      throw e;
    }
    this.audit('stream created', prefix, group, meta, { shardCount });
    return { stream, group: doc };
  }

  private checkAddGroup(s: StreamSnapshot, group: string, asked: number | null): void {
    if (s.stream.groups.includes(group) || s.groups[group]) {
      throw new CoordinatorError(
        'GROUP_ALREADY_EXISTS',
        `group "${group}" of stream "${s.stream.streamPrefix}" already exists`,
      );
    }
    if (asked !== null && asked !== s.stream.shardCount) {
      throw new CoordinatorError(
        'SHARD_COUNT_MISMATCH',
        `stream "${s.stream.streamPrefix}" has ${s.stream.shardCount} shards; a group cannot ask for ${asked} (omit initialShardCount to join at the current count)`,
      );
    }
  }

  private async provisionGroup(prefix: string, group: string, shards: number[]): Promise<void> {
    if (!this.config.provisioning) return;
    for (const i of shards) await this.store.provision(shardKey(prefix, i), group);
  }

  private checkShardCount(n: number): number {
    if (!Number.isInteger(n) || n < 1 || n > this.config.maxShardCount) {
      throw new CoordinatorError(
        'INVALID_REQUEST',
        `initialShardCount: must be an integer between 1 and ${this.config.maxShardCount}`,
      );
    }
    return n;
  }

  private audit(
    msg: string,
    prefix: string,
    group: string,
    meta: AdminRequestMeta,
    extra: Record<string, unknown> = {},
  ): void {
    this.log('info', msg, {
      streamPrefix: prefix,
      consumerGroup: group,
      requestedBy: meta.requestedBy,
      reason: meta.reason,
      ...extra,
    });
  }
}

/** Lease writes for every member whose liveness or lease changed between two group states. */
function leaseWrites(before: GroupDoc, after: GroupDoc): LeaseWrite[] {
  const out: LeaseWrite[] = [];
  for (const m of Object.values(after.members)) {
    const b = before.members[m.memberId];
    if (
      b &&
      isLive(b.state) === isLive(m.state) &&
      b.memberLeaseExpiresAt === m.memberLeaseExpiresAt &&
      b.lastHeartbeatAt === m.lastHeartbeatAt
    ) {
      continue;
    }
    out.push({
      memberId: m.memberId,
      live: isLive(m.state),
      leaseExpiresAt: m.memberLeaseExpiresAt,
      lastHeartbeatAt: m.lastHeartbeatAt,
    });
  }
  for (const id of Object.keys(before.members)) {
    if (!after.members[id]) out.push({ memberId: id, live: false, leaseExpiresAt: 0, lastHeartbeatAt: 0 });
  }
  return out;
}

function emptyStream(prefix: string, now: number): StreamDoc {
  return {
    streamPrefix: prefix,
    shardCount: 0,
    removedShards: [],
    migrations: [],
    activeReshardingId: null,
    groups: [],
    createdAt: now,
    updatedAt: now,
  };
}

function checkNames(prefix: string, group: string): void {
  if (prefix.trim() === '' || /[{}]/.test(prefix) || prefix.length > MAX_NAME) {
    throw new CoordinatorError(
      'INVALID_REQUEST',
      'streamPrefix: must be non-blank, at most 200 characters, without { or }',
    );
  }
  if (group.trim() === '' || group.length > MAX_NAME) {
    throw new CoordinatorError('INVALID_REQUEST', 'consumerGroup: must be non-blank, at most 200 characters');
  }
}

function groupNotFound(prefix: string, group: string): CoordinatorError {
  return new CoordinatorError('GROUP_NOT_FOUND', `group "${group}" of stream "${prefix}" not found`);
}

function streamNotFound(prefix: string): CoordinatorError {
  return new CoordinatorError('STREAM_NOT_FOUND', `stream "${prefix}" not found`);
}

function migrationNotFound(prefix: string, reshardingId: string): CoordinatorError {
  return new CoordinatorError(
    'MIGRATION_NOT_FOUND',
    `migration ${reshardingId} of stream "${prefix}" not found`,
  );
}

/** The stream and its migration `reshardingId` as stored. */
function currentMigration(
  stream: StreamDoc,
  reshardingId: string,
  prefix: string,
): { stream: StreamDoc; migration: Migration } {
  const migration = stream.migrations.find((m) => m.reshardingId === reshardingId);
  if (!migration) throw migrationNotFound(prefix, reshardingId);
  return { stream, migration };
}

/** `reshard-<uuid>` (PROTOCOL §2.6). */
function newReshardingId(): string {
  return `reshard-${globalThis.crypto.randomUUID()}`;
}

/** `prefixes` (sorted) starting at the first one >= `cursor`, wrapping around. */
function rotateFrom(prefixes: readonly string[], cursor: string | null): string[] {
  const start = cursor === null ? 0 : prefixes.findIndex((p) => p >= cursor);
  if (start <= 0) return [...prefixes];
  return [...prefixes.slice(start), ...prefixes.slice(0, start)];
}

/** Runs `jobs` with at most `size` in flight; the first failure is thrown once all settled. */
async function inBatches(jobs: Array<() => Promise<unknown>>, size: number): Promise<void> {
  for (let i = 0; i < jobs.length; i += size) {
    const results = await Promise.allSettled(jobs.slice(i, i + size).map((job) => job()));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }
}

/** The store with every method call counted (the sweep budgets its Redis round trips with it). */
function countingStore(store: Store, count: () => void): Store {
  return new Proxy(store, {
    get(target, prop) {
      const v: unknown = Reflect.get(target, prop, target);
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        count();
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

function errorText(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}
