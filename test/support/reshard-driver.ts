/**
 * Resharding scenarios on the production path with several consumer groups: one stream (groups
 * `g1` and `g2` unless told otherwise) in its own key namespace on the private standalone Redis,
 * `Coordinator` over an `IoredisStore` with a clock the test moves. Members heartbeat through
 * `Coordinator.heartbeat`; migrations move through the coordinator's own scale, rollback, sweep
 * and the lazy pass of heartbeats. After every step the driver reads the stream and every group
 * back from Redis (`snapshot`).
 *
 * Drain evidence is whatever Redis holds: entries are written with XADD and read and
 * acknowledged with XREADGROUP / XACK as the consumer groups. Only what Redis cannot be made to
 * do on demand is injected, through a wrapper of the coordinator's store (`faults`): a failed
 * evidence read, a retire script that cannot run, a refused provisioning. The wrapper also
 * counts evidence reads and retire scripts, and lets a test act right before a retire script.
 */
import type { Redis } from 'ioredis';
import { afterEach } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { Coordinator } from '../../src/coordinator.js';
import type { StreamScaleResult } from '../../src/coordinator-api.js';
import type { RetireOutcome, ShardReading } from '../../src/core/drain-evidence.js';
import { CoordinatorError } from '../../src/core/errors.js';
import type { HeartbeatInput, HeartbeatOutput } from '../../src/core/heartbeat-types.js';
import type {
  GroupDoc,
  MemberRecord,
  Migration,
  ProtocolConfig,
  RemovedShard,
  StreamDoc,
} from '../../src/core/model.js';
import { IoredisStore } from '../../src/store/ioredis-store.js';
import type { Store, StreamSnapshot } from '../../src/store/store.js';
import { CONFIG, T0 } from './heartbeat-fixtures.js';
import { standaloneClient, uniquePrefix } from './redis.js';
import { adopt, type Client, newClient, requestOf } from './sim-client.js';
import { manualClock, type TestClock } from './stack.js';

export { CONFIG, hb, T0 } from './heartbeat-fixtures.js';

/** Faults the coordinator's store injects, and hooks around its shard scripts. */
export interface ShardFaults {
  /** Shards whose drain-evidence read fails with this message (Redis is not asked). */
  failRead: Map<number, string>;
  /** Shards whose retire script cannot run, with the message it fails with (Redis is not asked). */
  failRetire: Map<number, string>;
  /** Whether provisioning of (shard, group) is refused as Redis refuses it (nothing is created). */
  refuseProvision: ((shard: number, group: string) => boolean) | null;
  /** Runs right before a retire script reaches Redis (to look at the state, or to write late). */
  beforeRetire: ((shard: number) => Promise<void>) | null;
  /** Told what a retire script did, right after it ran. */
  afterRetire: ((shard: number, outcome: RetireOutcome) => void) | null;
}

/** What the coordinator asked of the store's shard operations, in order. */
export interface ShardCalls {
  /** Shard of each drain-evidence read. */
  reads: number[];
  /** Shard of each retire script. */
  retires: number[];
  /** Provisioning calls (refused ones included). */
  provisions: number;
}

/** How a provisioning refused by `faults.refuseProvision` says so (in its message, and in logs of it). */
export const PROVISIONING_REFUSED = 'refused (test fault)';

/** Drivers opened by the running test, closed after it. */
const open = new Set<ReshardDriver>();
afterEach(async () => {
  for (const d of [...open]) await d.close();
});

/** One stream with several consumer groups, driven through the coordinator. */
export class ReshardDriver {
  /** The stream and every group as Redis holds them after the last step. */
  snapshot!: StreamSnapshot;
  readonly faults: ShardFaults = {
    failRead: new Map(),
    failRetire: new Map(),
    refuseProvision: null,
    beforeRetire: null,
    afterRetire: null,
  };
  readonly calls: ShardCalls = { reads: [], retires: [], provisions: 0 };
  /** Warnings and errors the coordinator logged (a sweep or a lazy pass that failed says so only there). */
  readonly warnings: Array<{ msg: string; fields: Record<string, unknown> | undefined }> = [];
  /** The honest members the driver heartbeats for, by `group/member`. */
  private readonly members = new Map<string, Client>();

  private constructor(
    readonly prefix: string,
    readonly coordinator: Coordinator,
    /** The store without faults, for reading state back. */
    readonly store: IoredisStore,
    /** A raw client on the same Redis, for XADD / XREADGROUP / XACK and checks. */
    readonly redis: Redis,
    readonly clock: TestClock,
    readonly config: ProtocolConfig,
  ) {}

  /** A new stream of `shardCount` shards with consumer groups `groups` (the first one creates it). */
  static async open(
    shardCount: number,
    groups: readonly string[] = ['g1', 'g2'],
    config: ProtocolConfig = CONFIG,
  ): Promise<ReshardDriver> {
    const prefix = uniquePrefix('rsm');
    const clock = manualClock(T0);
    const coordinatorConfig = parseConfig({
      COORDINATOR_KEY_PREFIX: uniquePrefix('ns'),
      COORDINATOR_HEARTBEAT_INTERVAL_MS: String(config.heartbeatIntervalMs),
      COORDINATOR_MEMBER_LEASE_TTL_MS: String(config.memberLeaseTtlMs),
      COORDINATOR_REBALANCE_TIMEOUT_MS: String(config.rebalanceTimeoutMs),
      COORDINATOR_STALE_MEMBER_RETENTION_MS: String(config.staleMemberRetentionMs),
    });
    const store = new IoredisStore(standaloneClient(), {
      namespace: coordinatorConfig.keyPrefix,
      ownsClient: true,
    });
    let d: ReshardDriver | null = null;
    const faulty = shardFaultStore(store, prefix, () => d!);
    const coordinator = new Coordinator({
      store: faulty,
      config: coordinatorConfig,
      now: clock.now,
      log: (level, msg, fields) => {
        if (level === 'warn' || level === 'error') d?.warnings.push({ msg, fields });
      },
      // Work takes no time on the simulated clock: no round is ever "costly".
      monotonic: clock.now,
    });
    d = new ReshardDriver(prefix, coordinator, store, standaloneClient(), clock, config);
    open.add(d);
    const meta = { requestedBy: 'test', reason: null };
    await coordinator.createStream(prefix, {
      initialShardCount: shardCount,
      consumerGroup: groups[0]!,
      ...meta,
    });
    for (const g of groups.slice(1))
      await coordinator.createGroup(prefix, g, { initialShardCount: null, ...meta });
    await d.reload();
    return d;
  }

  // ---- state as Redis holds it ----------------------------------------------------------------

  get stream(): StreamDoc {
    return this.snapshot.stream;
  }

  /** Group `name` as stored (throws if absent). */
  g(name: string): GroupDoc {
    const g = this.snapshot.groups[name];
    if (!g) throw new Error(`no group ${name}`);
    return g;
  }

  /** Member `id` of group `group` as stored (throws if absent). */
  member(group: string, id: string): MemberRecord {
    const m = this.g(group).members[id];
    if (!m) throw new Error(`no member ${group}/${id}`);
    return m;
  }

  /** The removed-shard record of `shard`, if any. */
  removed(shard: number): RemovedShard | undefined {
    return this.stream.removedShards.find((r) => r.shard === shard);
  }

  /** The id of the active migration (throws when there is none). */
  activeId(): string {
    const id = this.stream.activeReshardingId;
    if (id === null) throw new Error('no active migration');
    return id;
  }

  /** Reads the stream and every group back from Redis. */
  async reload(): Promise<StreamSnapshot> {
    const snap = await this.store.load(this.prefix, 'all');
    if (!snap) throw new Error(`stream ${this.prefix} is gone`);
    this.snapshot = snap;
    return snap;
  }

  // ---- clock ----------------------------------------------------------------------------------

  get now(): number {
    return this.clock.now();
  }

  set now(ms: number) {
    this.clock.set(ms);
  }

  advance(ms: number): void {
    this.clock.advance(ms);
  }

  // ---- members --------------------------------------------------------------------------------

  /**
   * One heartbeat of honest member `member` of `group` (it joins on first use, adopts what it is
   * told like a correct client and reports a shard it gave up REVOKED once); reloads.
   */
  async beat(group: string, member: string): Promise<HeartbeatOutput> {
    const key = `${group}/${member}`;
    let c = this.members.get(key);
    if (!c) {
      c = { ...newClient(member), running: true };
      this.members.set(key, c);
    }
    const req = requestOf(c, this.now, this.prefix);
    const res = await this.send(group, req);
    adopt(c, req, res);
    return res;
  }

  /** Every listed `[group, member]` beats `times` times, in order. */
  async rounds(members: ReadonlyArray<readonly [string, string]>, times = 3): Promise<void> {
    for (let i = 0; i < times; i++) for (const [g, m] of members) await this.beat(g, m);
  }

  /**
   * Like `rounds`, but stops right after the heartbeat at which `done()` holds (checked before
   * each heartbeat too), so a test sees the state that heartbeat left behind.
   */
  async beatUntil(
    members: ReadonlyArray<readonly [string, string]>,
    done: () => boolean,
    times: number,
  ): Promise<void> {
    for (let i = 0; i < times; i++) {
      for (const [g, m] of members) {
        if (done()) return;
        await this.beat(g, m);
      }
    }
  }

  /** Sends `req` to `group` through `Coordinator.heartbeat` and reloads. */
  async send(group: string, req: HeartbeatInput): Promise<HeartbeatOutput> {
    try {
      return await this.coordinator.heartbeat(this.prefix, group, req);
    } finally {
      await this.reload();
    }
  }

  // ---- admin and housekeeping -----------------------------------------------------------------

  /** The coordinator's sweep at the current time; reloads. */
  async sweep(): Promise<void> {
    await this.coordinator.sweep(this.now);
    await this.reload();
  }

  /** A scale request through the admin use-case; reloads (also when it is refused). */
  async scale(target: number): Promise<StreamScaleResult> {
    try {
      return await this.coordinator.scaleStream(this.prefix, {
        targetShardCount: target,
        requestedBy: 'test',
        reason: 'test',
        deprecatedAfter: null,
      });
    } finally {
      await this.reload();
    }
  }

  /** A rollback of migration `id` through group `group`'s route; reloads (also when refused). */
  async rollback(id: string, group = this.stream.groups[0]!): Promise<Migration> {
    try {
      return await this.coordinator.rollbackMigration(this.prefix, group, id, {
        requestedBy: 'test',
        reason: 'test',
      });
    } finally {
      await this.reload();
    }
  }

  // ---- Redis ----------------------------------------------------------------------------------

  /** The stream key of `shard`. */
  key(shard: number): string {
    return `${this.prefix}:${shard}`;
  }

  /** Whether the key of `shard` exists. */
  async exists(shard: number): Promise<boolean> {
    return (await this.redis.exists(this.key(shard))) === 1;
  }

  /** Appends `count` entries to `shard` (the key must exist); returns their ids. */
  async fill(shard: number, count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const id = await this.redis.xadd(this.key(shard), 'NOMKSTREAM', '*', 'payload', `e${i}`);
      if (id === null) throw new Error(`shard ${shard} does not exist`);
      ids.push(id);
    }
    return ids;
  }

  /**
   * Delivers up to `count` new entries of `shard` to `group` as `consumer` (XREADGROUP `>`)
   * without acknowledging them; returns their ids.
   */
  async deliver(shard: number, group: string, count = 1000, consumer = 'reader'): Promise<string[]> {
    const reply = await this.redis.xreadgroup(
      'GROUP',
      group,
      consumer,
      'COUNT',
      count,
      'STREAMS',
      this.key(shard),
      '>',
    );
    return readIds(reply);
  }

  /** Claims for `consumer` every entry of `group` pending on `shard` under anyone (XAUTOCLAIM from 0-0). */
  async claimPending(shard: number, group: string, consumer: string): Promise<string[]> {
    const ids: string[] = [];
    let cursor = '0-0';
    do {
      const [next, claimed] = (await this.redis.call(
        'XAUTOCLAIM',
        this.key(shard),
        group,
        consumer,
        '0',
        cursor,
        'COUNT',
        '1000',
      )) as [string, Array<[string, unknown]>];
      ids.push(...claimed.map(([id]) => id));
      cursor = next;
    } while (cursor !== '0-0');
    return ids;
  }

  /** Acknowledges `ids` of `shard` as `group`. */
  async ack(shard: number, group: string, ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await this.redis.xack(this.key(shard), group, ...ids);
  }

  /** Every listed group reads and acknowledges everything on `shard`: drained for them. */
  async drain(shard: number, groups: readonly string[] = this.stream.groups): Promise<void> {
    for (const g of groups) {
      for (;;) {
        const ids = await this.deliver(shard, g, 100);
        if (ids.length === 0) break;
        await this.ack(shard, g, ids);
      }
    }
  }

  /** What a drain-evidence read of `shard` returns now (straight from the store, not counted). */
  readShard(shard: number): Promise<ShardReading> {
    return this.store.readShard(this.key(shard));
  }

  /** Closes the coordinator and its connections (once). */
  async close(): Promise<void> {
    if (!open.delete(this)) return;
    await this.coordinator.close();
    await this.store.close();
    this.redis.disconnect();
  }
}

/** Entry ids of an XREADGROUP reply on one key. */
export function readIds(reply: unknown): string[] {
  const r = reply as Array<[string, Array<[string, string[]]>]> | null;
  return (r?.[0]?.[1] ?? []).map(([id]) => id);
}

/** `inner` with the driver's faults applied to the shard operations of stream `prefix`, and counted. */
function shardFaultStore(inner: Store, prefix: string, driver: () => ReshardDriver): Store {
  const shardOf = (key: string): number | null =>
    key.startsWith(`${prefix}:`) ? Number(key.slice(prefix.length + 1)) : null;
  return new Proxy(inner, {
    get(target, prop) {
      const v: unknown = Reflect.get(target, prop, target);
      if (typeof v !== 'function') return v;
      const method = v as (...a: unknown[]) => Promise<unknown>;
      const d = () => driver();
      switch (prop) {
        case 'readShard':
          return async (key: string): Promise<ShardReading> => {
            const shard = shardOf(key);
            if (shard === null) return method.call(target, key) as Promise<ShardReading>;
            d().calls.reads.push(shard);
            const fail = d().faults.failRead.get(shard);
            if (fail !== undefined) return { kind: 'error', message: fail };
            return method.call(target, key) as Promise<ShardReading>;
          };
        case 'retireShard':
          return async (key: string, groups: readonly string[]): Promise<RetireOutcome> => {
            const shard = shardOf(key);
            if (shard === null) return method.call(target, key, groups) as Promise<RetireOutcome>;
            const { faults, calls } = d();
            calls.retires.push(shard);
            await faults.beforeRetire?.(shard);
            const fail = faults.failRetire.get(shard);
            const outcome: RetireOutcome =
              fail !== undefined
                ? { kind: 'error', message: fail }
                : ((await method.call(target, key, groups)) as RetireOutcome);
            faults.afterRetire?.(shard, outcome);
            return outcome;
          };
        case 'provision':
          return async (key: string, group: string): Promise<void> => {
            const shard = shardOf(key);
            if (shard !== null) {
              d().calls.provisions++;
              if (d().faults.refuseProvision?.(shard, group)) {
                throw new CoordinatorError(
                  'REDIS_STREAM_PROVISIONING_FAILED',
                  `provisioning ${key} for ${group} ${PROVISIONING_REFUSED}`,
                );
              }
            }
            await method.call(target, key, group);
          };
        default:
          return method.bind(target);
      }
    },
  });
}
