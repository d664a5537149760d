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
  RedisHealth,
} from './coordinator-api.js';
import { CoordinatorError } from './core/errors.js';
import { fastPathUntil, heartbeatKey, steadyFingerprint } from './core/fast-path.js';
import { newGroupDoc } from './core/group.js';
import { processHeartbeat } from './core/heartbeat.js';
import type { HeartbeatInput, HeartbeatOutput } from './core/heartbeat-types.js';
import { durablyEqual, housekeepGroup, newlyExpired } from './core/housekeeping.js';
import {
  consumableShards,
  type GroupDoc,
  isLive,
  PROTOCOL_VERSION,
  type ProtocolConfig,
  type StreamDoc,
} from './core/model.js';
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
  streams: number;
  groupsChanged: number;
  skippedBusy: number;
}

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
  private sweepCursor = 0;

  constructor(deps: CoordinatorDeps) {
    this.store = deps.store;
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
    // Provision before the metadata commit so no member is ever assigned a shard without the
    // Redis group; XGROUP CREATE is idempotent, so a lost race costs nothing.
    this.checkAddGroup(existing, group, asked);
    await this.provisionGroup(prefix, group, consumableShards(existing.stream));
    const snap = await this.critical(prefix, [group], (s): Decision<GroupSnapshot> => {
      if (!s) throw new CoordinatorError('STREAM_NOT_FOUND', `stream "${prefix}" was deleted meanwhile`);
      this.checkAddGroup(s, group, asked);
      const doc = newGroupDoc(prefix, group, now);
      const stream: StreamDoc = {
        ...s.stream,
        groups: [...s.stream.groups, group].sort(),
        updatedAt: now,
      };
      return {
        commit: {
          stream,
          groups: { [group]: doc },
          fastPathUntil: { [group]: fastPathUntil(stream, doc, this.protocol) },
        },
        result: { stream, group: doc },
      };
    });
    this.audit('group created', prefix, group, input);
    return snap;
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
    return this.critical(prefix, [group], (s): Decision<HeartbeatOutput> => {
      const before = s?.groups[group] ?? null;
      const stream = s?.stream ?? emptyStream(prefix, now);
      const { group: after, response } = processHeartbeat({
        stream,
        group: before,
        request: input,
        config: this.protocol,
        now,
      });
      if (!before || !after) return { result: response };
      const commit = this.groupCommit(stream, group, before, after, now);
      const member = after.members[input.memberId];
      if (member && member.lastHeartbeatAt === now) {
        // Accepted this round: store the progress the core kept (filtered to the member's authority).
        commit.progress = {
          group,
          memberId: member.memberId,
          json: JSON.stringify(member.shardProgress),
          at: now,
        };
      }
      if (response.status === 'OK' && input.memberId === input.pathMemberId) {
        const fp = steadyFingerprint({
          stream,
          group: after,
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
    });
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

  // ---- sweep ---------------------------------------------------------------------------

  /**
   * Housekeeping for every stream (expiry, fencing, pruning), bounded to `maxStreams` per
   * call and resumed from a cursor on the next call. Busy streams are skipped, not waited for.
   */
  async sweep(now: number, maxStreams = 500): Promise<SweepReport> {
    const prefixes = await this.store.listStreams();
    const report: SweepReport = { streams: 0, groupsChanged: 0, skippedBusy: 0 };
    if (prefixes.length === 0) return report;
    const count = Math.min(maxStreams, prefixes.length);
    for (let i = 0; i < count; i++) {
      const prefix = prefixes[(this.sweepCursor + i) % prefixes.length]!;
      report.streams++;
      try {
        report.groupsChanged += await this.sweepStream(prefix, now);
      } catch (e) {
        if (e instanceof LockBusyError) report.skippedBusy++;
        else this.log('warn', 'sweep of stream failed', { streamPrefix: prefix, error: errorText(e) });
      }
    }
    this.sweepCursor = (this.sweepCursor + count) % prefixes.length;
    return report;
  }

  private sweepStream(prefix: string, now: number): Promise<number> {
    return runCritical(
      this.store,
      prefix,
      'all',
      { lockWaitMs: 0, lockTtlMs: 10_000, maxAttempts: 2, random: this.random, clock: this.now },
      (s): Decision<number> => {
        if (!s) return { result: 0 };
        const commit: Omit<CommitRequest, 'prefix' | 'expectedRevision'> = {
          groups: {},
          expiries: {},
          leases: {},
          fastPathUntil: {},
        };
        let changed = 0;
        for (const [name, before] of Object.entries(s.groups)) {
          const after = housekeepGroup({ stream: s.stream, group: before, config: this.protocol, now });
          if (after === before || durablyEqual(before, after)) continue;
          const part = this.groupCommit(s.stream, name, before, after, now);
          Object.assign(commit.groups!, part.groups);
          Object.assign(commit.expiries!, part.expiries);
          Object.assign(commit.leases!, part.leases);
          Object.assign(commit.fastPathUntil!, part.fastPathUntil);
          changed++;
        }
        return changed === 0 ? { result: 0 } : { commit, result: changed };
      },
    );
  }

  // ---- helpers -------------------------------------------------------------------------

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
    decide: (s: StreamSnapshot | null) => Decision<T>,
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

function errorText(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}
