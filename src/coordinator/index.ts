/**
 * The coordinator's use-cases over a Store (`CoordinatorApi`). Each use-case lives in its own
 * module — admin, heartbeat, resharding, sweep, health — and this class only wires them to one
 * shared context.
 */
import type {
  CoordinatorApi,
  CreateGroupInput,
  CreateStreamInput,
  DeleteGroupInput,
  DeleteStreamInput,
  GroupPage,
  GroupPageQuery,
  GroupSnapshot,
  MigrationsOverview,
  OffsetsReset,
  OffsetsResetInput,
  RedisCheck,
  RedisHealth,
  RepairGroupInput,
  RollbackInput,
  ScaleInput,
  StreamDeletion,
  StreamScaleResult,
} from '../coordinator-api.js';
import { isCoordinatorError } from '../core/errors.js';
import { observedAt, reportedState } from '../core/group-view.js';
import type { HeartbeatInput, HeartbeatOutput } from '../core/heartbeat-types.js';
import type { Migration, ProtocolConfig } from '../core/model.js';
import { LockBusyError } from '../store/critical-section.js';
import * as admin from './admin.js';
import type { CoordinatorDeps, CoordinatorEvent, Ctx } from './context.js';
import { errorText } from './context.js';
import { EvictionPolicyCheck } from './eviction-check.js';
import { RedisHealthProbe } from './health.js';
import { type HeartbeatOptions, heartbeat } from './heartbeat.js';
import { withIntactGroup } from './integrity.js';
import { lifecycleLog } from './lifecycle.js';
import { resetOffsets } from './offsets-reset.js';
import { repairGroup } from './repair.js';
import * as resharding from './resharding.js';
import { steadyHeartbeats } from './steady-heartbeats.js';
import { deleteStream } from './stream-delete.js';
import { type SweepOptions, type SweepReport, sweep } from './sweep.js';

export type {
  CoordinatorDeps,
  CoordinatorEvent,
  HeartbeatPath,
  Logger,
  SweepCounts,
} from './context.js';
export type { SweepOptions, SweepReport } from './sweep.js';

/** The coordinator's use-cases over a Store. */
export class Coordinator implements CoordinatorApi {
  private readonly ctx: Ctx;
  private readonly health: RedisHealthProbe;
  /** Redis requests of the store so far (sweeps budget themselves with it); null when not counted. */
  private readonly requestCount: (() => number) | null;

  constructor(deps: CoordinatorDeps) {
    const now = deps.now ?? Date.now;
    const log = deps.log ?? (() => undefined);
    const monotonic = deps.monotonic ?? (() => performance.now());
    const lifecycle = lifecycleLog(log, monotonic);
    const onEvent = deps.onEvent;
    const emit = (e: CoordinatorEvent): void => {
      lifecycle(e);
      onEvent?.(e);
    };
    const store = deps.store;
    this.requestCount = deps.requestCount ?? null;
    this.ctx = {
      store,
      config: deps.config,
      protocol: {
        heartbeatIntervalMs: deps.config.heartbeatIntervalMs,
        memberLeaseTtlMs: deps.config.memberLeaseTtlMs,
        rebalanceTimeoutMs: deps.config.rebalanceTimeoutMs,
        staleMemberRetentionMs: deps.config.staleMemberRetentionMs,
      },
      now,
      log,
      random: deps.random ?? Math.random,
      emit,
      monotonic,
      onLock: (attempt) => emit({ type: 'lock', ...attempt }),
    };
    const eviction = new EvictionPolicyCheck(store, deps.config.allowEviction, now, this.ctx.log);
    this.health = new RedisHealthProbe(store, now, this.ctx.log, eviction);
  }

  /** Releases nothing today but a health probe in flight; kept so adapters can shut every component down uniformly. */
  async close(): Promise<void> {
    await this.health.idle();
  }

  /** Protocol timings in force. */
  get protocolConfig(): ProtocolConfig {
    return this.ctx.protocol;
  }

  createStream(prefix: string, input: CreateStreamInput): Promise<GroupSnapshot> {
    return admin.createStream(this.ctx, prefix, input);
  }

  createGroup(prefix: string, group: string, input: CreateGroupInput): Promise<GroupSnapshot> {
    return admin.createGroup(this.ctx, prefix, group, input);
  }

  /** The group as observed now: lapsed leases show EXPIRED before the sweep records it (`observedAt`). */
  async getGroup(prefix: string, group: string): Promise<GroupSnapshot> {
    return this.observed(await admin.readGroup(this.ctx, prefix, group));
  }

  getRouting(prefix: string, group: string): Promise<GroupSnapshot> {
    return admin.readGroup(this.ctx, prefix, group);
  }

  deleteGroup(prefix: string, group: string, input: DeleteGroupInput): Promise<GroupSnapshot> {
    return admin.deleteGroup(this.ctx, prefix, group, input);
  }

  async repairGroup(prefix: string, group: string, input: RepairGroupInput): Promise<GroupSnapshot> {
    await repairGroup(this.ctx, prefix, group, input);
    return this.getGroup(prefix, group);
  }

  deleteStream(prefix: string, input: DeleteStreamInput): Promise<StreamDeletion> {
    return deleteStream(this.ctx, prefix, input);
  }

  /** One page of groups in (stream, group) order, as observed now (see `getGroup`). */
  async listGroupPage(query: GroupPageQuery): Promise<GroupPage> {
    const page = await admin.listGroupPage(this.ctx, query);
    return { ...page, groups: page.groups.map((snap) => this.observed(snap)) };
  }

  /** Every group as observed now (see `getGroup`). */
  async listGroups(): Promise<GroupSnapshot[]> {
    return (await admin.listGroups(this.ctx)).map((snap) => this.observed(snap));
  }

  private observed(snap: GroupSnapshot): GroupSnapshot {
    const seen = observedAt(snap.group, this.ctx.now());
    const state = reportedState(snap.stream, seen);
    const group = state === seen.state ? seen : { ...seen, state };
    return group === snap.group ? snap : { stream: snap.stream, group };
  }

  /** The deployment's generated bearer-token secret (see `Store.tokenSecret`); `candidate` when the store keeps none. */
  tokenSecret(candidate: string): Promise<string> {
    const { store } = this.ctx;
    return store.tokenSecret ? store.tokenSecret(candidate) : Promise.resolve(candidate);
  }

  redisHealth(): Promise<RedisHealth> {
    return this.health.get();
  }

  redisReadiness(): Promise<RedisCheck> {
    return this.health.check();
  }

  /** What a heartbeat calls back into (made once: the heartbeat path allocates as little as it can). */
  private readonly heartbeatHooks = { reshardingTouched: (p: string, now: number) => this.lazyPass(p, now) };

  async heartbeat(
    prefix: string,
    group: string,
    input: HeartbeatInput,
    options?: HeartbeatOptions,
  ): Promise<HeartbeatOutput> {
    try {
      return await withIntactGroup(this.ctx, prefix, group, () =>
        heartbeat(this.ctx, prefix, group, input, this.heartbeatHooks, options),
      );
    } catch (err) {
      this.ctx.emit({
        type: 'heartbeat',
        status: isCoordinatorError(err) ? err.code : 'INTERNAL_ERROR',
        path: 'full',
        streamPrefix: prefix,
        consumerGroup: group,
      });
      throw err;
    }
  }

  async steadyHeartbeats(
    prefix: string,
    group: string,
    inputs: readonly HeartbeatInput[],
  ): Promise<Array<HeartbeatOutput | null>> {
    try {
      return await steadyHeartbeats(this.ctx, prefix, group, inputs);
    } catch (err) {
      this.ctx.emit({
        type: 'heartbeat',
        status: isCoordinatorError(err) ? err.code : 'INTERNAL_ERROR',
        path: 'fast',
        streamPrefix: prefix,
        consumerGroup: group,
      });
      throw err;
    }
  }

  scaleStream(prefix: string, input: ScaleInput): Promise<StreamScaleResult> {
    return resharding.scale(this.ctx, prefix, null, input);
  }

  scaleGroup(prefix: string, group: string, input: ScaleInput): Promise<StreamScaleResult> {
    return resharding.scale(this.ctx, prefix, group, input);
  }

  getMigration(prefix: string, group: string, reshardingId: string): Promise<Migration> {
    return resharding.getMigration(this.ctx, prefix, group, reshardingId);
  }

  rollbackMigration(
    prefix: string,
    group: string,
    reshardingId: string,
    input: RollbackInput,
  ): Promise<Migration> {
    return resharding.rollback(this.ctx, prefix, group, reshardingId, input);
  }

  migrationsOverview(prefix: string, group: string): Promise<MigrationsOverview> {
    return resharding.migrationsOverview(this.ctx, prefix, group);
  }

  resetOffsets(prefix: string, group: string, input: OffsetsResetInput): Promise<OffsetsReset> {
    return resetOffsets(this.ctx, prefix, group, input);
  }

  /**
   * Housekeeping for every stream (expiry, fencing, pruning, assignment rounds, migration
   * advance with drain evidence) of the streams with work due, bounded per call; what a call
   * leaves stays due for the next.
   * `limits` may be the old `maxStreams` number.
   */
  async sweep(now: number, limits: number | SweepOptions = {}): Promise<SweepReport> {
    const opts: SweepOptions = typeof limits === 'number' ? { maxStreams: limits } : limits;
    const { ctx } = this;
    if (opts.maxCalls !== undefined && this.requestCount === null) {
      // Not a request's fault: the adapter forgot to count the store's requests.
      throw new Error('sweep maxCalls needs CoordinatorDeps.requestCount (the store’s onRequest count)');
    }
    const calls = this.requestCount ?? (() => 0);
    const start = ctx.monotonic();
    try {
      const report = await sweep(ctx, now, opts, calls);
      ctx.emit({ type: 'sweep', report, ms: ctx.monotonic() - start });
      return report;
    } catch (err) {
      ctx.emit({ type: 'sweep', report: null, ms: ctx.monotonic() - start });
      throw err;
    }
  }

  /** The resharding pass a heartbeat asked for: one try at the mutex, failures only logged. */
  private async lazyPass(prefix: string, now: number): Promise<void> {
    try {
      await resharding.advanceStream(this.ctx, prefix, now, {
        lockWaitMs: 0,
        maxPasses: 1,
        resumePreparing: null,
      });
    } catch (e) {
      if (!(e instanceof LockBusyError)) {
        this.ctx.log('warn', 'resharding pass after a heartbeat failed', {
          streamPrefix: prefix,
          error: errorText(e),
        });
      }
    }
  }
}
