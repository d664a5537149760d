/**
 * The member protocol's scenario driver on the production path: `Coordinator.heartbeat` over a
 * private Redis with a clock the test moves. Each driver has its own key namespace and one stream
 * of a unique name (shard keys are not namespaced) whose only group is named like the stream. After every step the driver reloads the group as
 * the store holds it (`group`), so scenarios read what Redis recorded, not what a model thinks.
 *
 * `arrange` writes a hand-made change of the group through the store's own commit (checks
 * dropped: the test is the only writer), for scenarios that start from a state no honest member
 * sequence reaches (a version that went backwards, a record edited by an older release).
 */
import { afterEach } from 'vitest';

export { CONFIG, deepFreeze, type HbSpec, hb, newlyExpired, T0 } from './heartbeat-fixtures.js';

import type { CoordinatorEvent } from '../../src/coordinator.js';
import { type HolderStatus, memberOps, type PlanOp } from '../../src/core/commit-plan.js';
import { deepEqual } from '../../src/core/equal.js';
import type { HeartbeatInput, HeartbeatOutput } from '../../src/core/heartbeat-types.js';
import type { GroupDoc, MemberRecord, ProtocolConfig, StreamDoc } from '../../src/core/model.js';
import { type GroupKeys, groupKeys } from '../../src/store/keys.js';
import { CONFIG, type HbSpec, hb, T0 } from './heartbeat-fixtures.js';
import { backends, uniquePrefix } from './redis.js';
import { makeStack, manualClock, type Stack } from './stack.js';

/** Drivers opened by the running test, closed after it. */
const open: Driver[] = [];
afterEach(async () => {
  for (const d of open.splice(0)) await d.close();
});

/** A stream and a clock driven through the coordinator the way members drive it. */
export class Driver {
  /** The group as the store holds it after the last step. */
  group!: GroupDoc;
  /** The stream document after the last step. */
  stream!: StreamDoc;
  /** Every event the coordinator reported (fast-path hits, commits, rounds). */
  readonly events: CoordinatorEvent[] = [];

  private constructor(
    private readonly stack: Stack,
    readonly prefix: string,
    readonly config: ProtocolConfig,
  ) {}

  /** A new stream of `shardCount` shards (created through the admin use-case) in its own namespace. */
  static async open(shardCount: number, config: ProtocolConfig = CONFIG): Promise<Driver> {
    const prefix = uniquePrefix('orders');
    const events: CoordinatorEvent[] = [];
    const clock = manualClock(T0);
    const stack = makeStack(backends[0]!, {
      clock,
      config: {
        COORDINATOR_HEARTBEAT_INTERVAL_MS: String(config.heartbeatIntervalMs),
        COORDINATOR_MEMBER_LEASE_TTL_MS: String(config.memberLeaseTtlMs),
        COORDINATOR_REBALANCE_TIMEOUT_MS: String(config.rebalanceTimeoutMs),
        COORDINATOR_STALE_MEMBER_RETENTION_MS: String(config.staleMemberRetentionMs),
      },
      onEvent: (e) => events.push(e),
      // Work takes no time on the simulated clock: no round is ever "costly" (no real-time cooldown).
      monotonic: clock.now,
    });
    const d = new Driver(stack, prefix, config);
    (d as { events: CoordinatorEvent[] }).events = events;
    open.push(d);
    await stack.coordinator.createStream(prefix, {
      initialShardCount: shardCount,
      consumerGroup: prefix,
      requestedBy: 'test',
      reason: null,
    });
    await d.reload();
    return d;
  }

  /** A on [0,1] and B on [2,3] of a 4-shard stream, both settled: epochs 3, version 3, STABLE. */
  static async twoSettled(config: ProtocolConfig = CONFIG): Promise<Driver> {
    const d = await Driver.open(4, config);
    await d.joinAndSettle('A');
    await d.beat('B', { epoch: 0, mv: 0 });
    const a = await d.beat('A', { epoch: 2, mv: 2, owned: [0, 1, 2, 3] });
    await d.beat('A', { epoch: 3, mv: 3, owned: a.assignedShards });
    const b = await d.beat('B', { epoch: 3, mv: 3 });
    await d.beat('B', { epoch: 3, mv: 3, owned: b.assignedShards });
    return d;
  }

  /** The simulated time. */
  get now(): number {
    return this.stack.clock.now();
  }

  set now(ms: number) {
    this.stack.clock.set(ms);
  }

  /** Moves the clock. */
  advance(ms: number): void {
    this.stack.clock.advance(ms);
  }

  /** Sends one heartbeat through `Coordinator.heartbeat` and reloads the group. */
  async send(req: HeartbeatInput): Promise<HeartbeatOutput> {
    try {
      return await this.stack.coordinator.heartbeat(this.prefix, this.prefix, req);
    } finally {
      await this.reload();
    }
  }

  /** Sends one heartbeat to group `group` of the stream (one that may not exist). */
  async sendTo(group: string, req: HeartbeatInput): Promise<HeartbeatOutput> {
    return this.stack.coordinator.heartbeat(this.prefix, group, req);
  }

  /** Whether the store holds group `group` of the stream. */
  async groupExists(group: string): Promise<boolean> {
    const snap = await this.stack.store.load(this.prefix, [group]);
    return snap?.groups[group] !== undefined;
  }

  /** Shorthand for `send(hb(id, spec))`. */
  beat(id: string, spec: HbSpec): Promise<HeartbeatOutput> {
    return this.send(hb(id, spec, this.prefix));
  }

  /** Reshards the stream to `shardCount` through the admin use-case and reloads. */
  async scale(shardCount: number): Promise<void> {
    try {
      await this.stack.coordinator.scaleStream(this.prefix, {
        targetShardCount: shardCount,
        requestedBy: 'test',
        reason: 'test',
        deprecatedAfter: null,
      });
    } finally {
      await this.reload();
    }
  }

  /** Appends one entry to shard `shard` (as a producer would), returning its id. */
  async produce(shard: number): Promise<string> {
    const id = await this.stack.redis.xadd(`${this.prefix}:${shard}`, 'NOMKSTREAM', '*', 'k', 'v');
    if (id === null) throw new Error(`shard ${shard} does not exist`);
    return id;
  }

  /** Runs the coordinator's housekeeping sweep once at the current time; returns the group after it. */
  async housekeep(): Promise<GroupDoc> {
    await this.stack.coordinator.sweep(this.now);
    await this.reload();
    return this.group;
  }

  /** The stored record of a member (throws if absent). */
  member(id: string): MemberRecord {
    const m = this.group.members[id];
    if (!m) throw new Error(`no member ${id}`);
    return m;
  }

  /** Joins `id` and acknowledges its first assignment; returns the acknowledging answer. */
  async joinAndSettle(id: string): Promise<HeartbeatOutput> {
    const joined = await this.beat(id, { epoch: 0, mv: 0 });
    return this.beat(id, {
      epoch: joined.memberEpoch,
      mv: joined.metadataVersion,
      owned: joined.assignedShards,
    });
  }

  /** The group header's cached earliest due time (`nd`: ms, '-' for none, null when absent). */
  async cachedNextDue(): Promise<string | null> {
    const keys = groupKeys(this.stack.config.keyPrefix, this.prefix, this.prefix);
    return this.stack.redis.hget(keys.header, 'nd');
  }

  /** How many heartbeats the fast path answered so far. */
  fastPathHits(): number {
    return this.events.filter((e) => e.type === 'fast-path' && e.hit).length;
  }

  /**
   * Writes `change(group)` to the store: header counters, the correction round, member records
   * (with every index they imply) and targets, in one commit. The group state is derived again
   * from the records, as the store always does.
   */
  async arrange(change: (g: GroupDoc) => unknown): Promise<void> {
    await this.reload();
    const before = this.group;
    const draft = structuredClone(before);
    const after = (change(draft) as GroupDoc | undefined) ?? draft;
    const ids = [...new Set([...Object.keys(before.members), ...Object.keys(after.members)])];
    const read = await this.stack.store.readMembers(this.prefix, this.prefix, ids);
    if (!read) throw new Error('the group is gone');
    const ops: PlanOp[] = [];
    const groupDelta = after.groupEpoch - before.groupEpoch;
    const metadataDelta = after.metadataVersion - before.metadataVersion;
    if (groupDelta !== 0 || metadataDelta !== 0)
      ops.push({ k: 'bump', group: groupDelta, metadata: metadataDelta, at: this.now });
    if (after.assignmentEpoch !== before.assignmentEpoch)
      ops.push({ k: 'assignment-epoch', value: after.assignmentEpoch, at: this.now });
    if (!deepEqual(after.metadataCorrection, before.metadataCorrection))
      ops.push({ k: 'round', round: after.metadataCorrection, freshAcks: true });
    for (const id of ids) {
      const was = before.members[id];
      const now = after.members[id] ?? null;
      if (
        was &&
        now &&
        deepEqual(was, now) &&
        deepEqual(before.targetAssignments[id], after.targetAssignments[id])
      )
        continue;
      const stored = read.members.get(id)?.stored ?? null;
      if (!deepEqual(was ?? null, now))
        ops.push(
          ...memberOps(id, stored, now, {
            owners: new Map(),
            staleMemberRetentionMs: this.config.staleMemberRetentionMs,
          }).filter(isWrite),
        );
      const target = after.targetAssignments[id];
      if (!deepEqual(before.targetAssignments[id], target))
        ops.push(target ? { k: 'target', member: id, target } : { k: 'delete-target', member: id });
    }
    const r = await this.stack.store.commit({
      prefix: this.prefix,
      groups: [{ name: this.prefix, ops: [{ k: 'group-exists' }, ...ops] }],
    });
    if (!r.ok) throw new Error(`arranging the group failed at check ${r.failedCheck}`);
    await this.reload();
  }

  /** Sets member `id`'s holder status directly (what an arrangement of its record implies otherwise). */
  async setStatus(id: string, status: HolderStatus): Promise<void> {
    const r = await this.stack.store.commit({
      prefix: this.prefix,
      groups: [{ name: this.prefix, ops: [{ k: 'group-exists' }, { k: 'status', member: id, status }] }],
    });
    if (!r.ok) throw new Error('setting a holder status failed');
  }

  /** Deletes one of the group's Redis keys (what an eviction or an operator's mistake does). */
  async dropKey(key: keyof GroupKeys): Promise<void> {
    await this.stack.redis.del(groupKeys(this.stack.config.keyPrefix, this.prefix, this.prefix)[key]);
  }

  /** Overwrites member `member`'s entry of the group's `key` hash with text no reader decodes. */
  async garble(key: 'targets' | 'owners' | 'status', member: string): Promise<void> {
    await this.stack.redis.hset(
      groupKeys(this.stack.config.keyPrefix, this.prefix, this.prefix)[key],
      member,
      'garbled',
    );
  }

  /** The token holding the group's assignment lock (null: free). */
  assignmentLock(): Promise<string | null> {
    return this.stack.redis.get(groupKeys(this.stack.config.keyPrefix, this.prefix, this.prefix).assignLock);
  }

  /** The group as the monitoring API reports it now. */
  async observedState(): Promise<string> {
    return (await this.stack.coordinator.getGroup(this.prefix, this.prefix)).group.state;
  }

  /** Reads the stream and the group back from Redis. */
  async reload(): Promise<void> {
    const snap = await this.stack.store.load(this.prefix, [this.prefix]);
    if (!snap) throw new Error(`stream ${this.prefix} is gone`);
    this.stream = snap.stream;
    const g = snap.groups[this.prefix];
    if (!g) throw new Error(`group ${this.prefix} is gone`);
    this.group = g;
  }

  /** Closes the coordinator and its connections. */
  close(): Promise<void> {
    return this.stack.close();
  }
}

/** True for the operations of a plan that write (the checks are dropped when arranging). */
function isWrite(op: PlanOp): boolean {
  return ![
    'record-rev',
    'target-is',
    'owner-is',
    'owner-mine',
    'lease-at-most',
    'live-below',
    'round-is',
    'token-is',
    'members-are',
  ].includes(op.k);
}
