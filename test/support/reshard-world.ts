/**
 * A stream under resharding for property tests, on the production path: several consumer
 * groups of honest clients, a producer whose routing may be stale, and a plain reader, all on a
 * private Redis through the coordinator (`reshard-driver.ts`). Clients heartbeat through
 * `Coordinator.heartbeat` and then really read and acknowledge what they were told to: on each
 * owned shard they acknowledge the entries they read at the last heartbeat, take over and
 * acknowledge what earlier holders left pending (XAUTOCLAIM, as the SDK does on gaining a shard)
 * and read what is new (XREADGROUP `>`), which stays pending until their next heartbeat; on a
 * shard they are giving up they only finish that in-flight work. Sweeps, scale and rollback
 * requests are the coordinator's own.
 *
 * After every coordinator call the stream is read back from Redis and checked, and after every
 * action Redis is checked again (clients, the producer and the plain reader only touch entries):
 * epochs and versions never go back, every group is well formed, a routed shard's key exists, a
 * RETIRED shard's key does not, nobody within its lease is told to read a shard whose key is
 * missing or has it deleted under it, and no entry is lost: each one the producer added is
 * acknowledged by every group that existed when it was added, or is still in Redis. A broken
 * rule throws.
 */
import { isCoordinatorError } from '../../src/core/errors.js';
import { invariantViolations, observedAt } from '../../src/core/group-view.js';
import type { HeartbeatInput, HeartbeatOutput } from '../../src/core/heartbeat-types.js';
import type { ProtocolConfig } from '../../src/core/model.js';
import { activeMigrationOf } from '../../src/core/stream-state.js';
import type { StreamSnapshot } from '../../src/store/store.js';
import { CONFIG, PROVISIONING_REFUSED, ReshardDriver, readIds } from './reshard-driver.js';
import { adopt, type Client, leaveRequest, newClient, requestOf } from './sim-client.js';

/** One step of the simulation. */
export type ReshardAction =
  | { kind: 'start'; client: number; drainBeats: number }
  | { kind: 'beat'; client: number }
  | { kind: 'round' }
  | { kind: 'leave'; client: number }
  | { kind: 'crash'; client: number }
  | { kind: 'advance'; ms: number }
  | { kind: 'sweep' }
  | { kind: 'produce'; partition: number; count: number }
  | { kind: 'refresh' }
  | { kind: 'scale'; target: number }
  | { kind: 'rollback' }
  | { kind: 'failProvisioning' };

/** Codes a scale or rollback request may legitimately be refused with in the simulation. */
const EXPECTED_REFUSALS = new Set([
  'ACTIVE_MIGRATION_EXISTS',
  'METADATA_SYNC_IN_PROGRESS',
  'ROLLBACK_NOT_ALLOWED',
  'MIGRATION_NOT_FOUND',
]);

/** Shard indexes that may have keys (the stream starts with 4 shards, scale targets stay below 8). */
const MAX_SHARDS = 8;
/** Entries one XREADGROUP / XAUTOCLAIM asks for. */
const BATCH = 1000;

/** One consumer process and what it has read but not yet acknowledged. */
interface Consumer {
  group: string;
  client: Client;
  /** Entries delivered to it and not yet acknowledged, by shard. */
  inFlight: Map<number, string[]>;
  /** When it was last answered: what it was told it owns holds for one lease from then. */
  toldAt: number;
}

/** One entry the producer added. */
interface Entry {
  shard: number;
  id: string;
  /** The stream's groups when it was added: each must acknowledge it. */
  groups: string[];
  acked: Set<string>;
}

/** The simulated world. */
export class ReshardWorld {
  readonly consumers: Consumer[] = [];
  /** The producer's cached shard count (stale until it refreshes). */
  routing: number;
  /** Scale and sweep actions whose provisioning Redis will still refuse. */
  failProvisioning = 0;
  private last: StreamSnapshot;
  private readonly entries = new Map<string, Entry>();
  /** Entries not yet acknowledged by every group they must be. */
  private readonly outstanding = new Set<string>();
  private readonly violations: string[] = [];
  /** Provisioning calls refused so far. */
  private refusals = 0;
  /** What the run exercised (for the test's own check that it was not vacuous). */
  readonly stats = { produced: 0, deleted: 0, takenOver: 0, refusedRetirements: 0 };

  private constructor(
    readonly d: ReshardDriver,
    clientsPerGroup: number,
  ) {
    this.last = d.snapshot;
    this.routing = d.stream.shardCount;
    for (const g of d.stream.groups) {
      for (let i = 0; i < clientsPerGroup; i++) {
        this.consumers.push({ group: g, client: newClient(`${g}-m${i}`), inFlight: new Map(), toldAt: 0 });
      }
    }
    d.faults.refuseProvision = () => {
      if (this.failProvisioning === 0) return false;
      this.refusals++;
      return true;
    };
    d.faults.afterRetire = (shard, outcome) => {
      if (outcome.kind === 'deleted') this.checkDeletion(shard);
      if (outcome.kind === 'deleted') this.stats.deleted++;
      if (outcome.kind === 'refused') this.stats.refusedRetirements++;
    };
  }

  /** A stream of `shardCount` shards with groups `groups`, `clientsPerGroup` clients each (not started). */
  static async open(
    groups: string[],
    clientsPerGroup: number,
    shardCount: number,
    config: ProtocolConfig = CONFIG,
  ): Promise<ReshardWorld> {
    return new ReshardWorld(await ReshardDriver.open(shardCount, groups, config), clientsPerGroup);
  }

  get config(): ProtocolConfig {
    return this.d.config;
  }

  get groupNames(): string[] {
    return this.last.stream.groups;
  }

  close(): Promise<void> {
    return this.d.close();
  }

  /** Applies one action, then checks every rule. */
  async apply(a: ReshardAction): Promise<void> {
    const refusals = this.refusals;
    switch (a.kind) {
      case 'start':
        await this.start(a.client, a.drainBeats);
        break;
      case 'beat':
        await this.beat(this.consumers[a.client]!);
        break;
      case 'round':
        await this.round();
        break;
      case 'leave':
        await this.leave(a.client);
        break;
      case 'crash':
        this.crash(a.client);
        break;
      case 'advance':
        this.d.advance(a.ms);
        break;
      case 'sweep':
        await this.sweep();
        break;
      case 'produce':
        for (let i = 0; i < a.count; i++) await this.produce(a.partition + i);
        break;
      case 'refresh':
        await this.refreshRouting();
        break;
      case 'scale':
        await this.scale(a.target);
        break;
      case 'rollback':
        await this.rollback();
        break;
      case 'failProvisioning':
        this.failProvisioning++;
        break;
    }
    // One provisioning attempt (all of its calls) was refused.
    if (this.refusals > refusals && this.failProvisioning > 0) this.failProvisioning--;
    // Every coordinator call of the action was checked already; what clients did since is not.
    await this.checkRedis();
  }

  // ---- actors ---------------------------------------------------------------------------------

  /** Starts client `i` as a new process (epoch 0, nothing in flight); `drainBeats` DRAINING reports precede each REVOKED. */
  async start(i: number, drainBeats: number): Promise<void> {
    const c = this.consumers[i]!;
    if (c.client.running) return;
    Object.assign(c.client, { running: true, drainBeats, epoch: 0, mv: 0, owned: [], draining: {} });
    c.inFlight.clear();
    await this.beat(c);
  }

  /** Client `i` stops without a word: what it read stays pending, its member expires with its lease. */
  crash(i: number): void {
    this.consumers[i]!.client.running = false;
  }

  /** Client `i` finishes its in-flight work, then leaves (epoch -1, everything reported REVOKED). */
  async leave(i: number): Promise<void> {
    const c = this.consumers[i]!;
    if (!c.client.running) return;
    for (const [s, ids] of c.inFlight) await this.ack(s, c.group, ids);
    c.inFlight.clear();
    await this.heartbeat(c.group, leaveRequest(c.client, this.d.now, this.d.prefix));
    Object.assign(c.client, { running: false, owned: [], draining: {}, epoch: 0, mv: 0 });
  }

  /** Every running client heartbeats once, the sweep runs, the clock moves one interval. */
  async round(): Promise<void> {
    for (const c of this.consumers) await this.beat(c);
    await this.sweep();
    this.d.advance(this.config.heartbeatIntervalMs);
  }

  /** The coordinator's sweep. */
  async sweep(): Promise<void> {
    await this.coordinatorCall(() => this.d.coordinator.sweep(this.d.now));
  }

  /** A scale request through the admin use-case (refusals are expected outcomes). */
  async scale(target: number): Promise<void> {
    await this.refusable(() =>
      this.d.coordinator.scaleStream(this.d.prefix, {
        targetShardCount: target,
        requestedBy: 'world',
        reason: 'property',
        deprecatedAfter: null,
      }),
    );
  }

  /** Rollback of the active migration, when there is one (refusals are expected outcomes). */
  async rollback(): Promise<void> {
    const id = this.last.stream.activeReshardingId;
    if (id === null) return;
    await this.refusable(() =>
      this.d.coordinator.rollbackMigration(this.d.prefix, this.groupNames[0]!, id, {
        requestedBy: 'world',
        reason: 'property',
      }),
    );
  }

  /** The producer writes one entry with its cached routing; a nil reply refreshes and retries once. */
  async produce(partition: number): Promise<void> {
    for (let attempt = 0; attempt < 2; attempt++) {
      if (this.routing === 0) {
        await this.refreshRouting();
        continue;
      }
      const shard = partition % this.routing;
      const groups = [...this.last.stream.groups];
      const id = await this.d.redis.xadd(this.d.key(shard), 'NOMKSTREAM', '*', 'p', String(partition));
      if (id !== null) {
        const key = `${shard}/${id}`;
        this.entries.set(key, { shard, id, groups, acked: new Set() });
        this.outstanding.add(key);
        this.stats.produced++;
        return;
      }
      // XADD NOMKSTREAM answered nil: the route is stale.
      await this.refreshRouting();
    }
  }

  /** The producer refetches routing from the coordinator. */
  async refreshRouting(): Promise<void> {
    this.routing = (
      await this.d.coordinator.getRouting(this.d.prefix, this.groupNames[0]!)
    ).stream.shardCount;
  }

  /** A plain XREADGROUP + XACK reader outside the coordinator: drains every key for `group`. */
  async plainReader(group: string): Promise<void> {
    const exists = await this.existing();
    for (let s = 0; s < MAX_SHARDS; s++) if (exists[s]) await this.readAll(s, group);
    await this.checkRedis();
  }

  /** Moves the clock. */
  advance(ms: number): void {
    this.d.advance(ms);
  }

  // ---- one client -----------------------------------------------------------------------------

  /** One heartbeat of a running client, then it reads what it was told to. */
  private async beat(c: Consumer): Promise<void> {
    if (!c.client.running) return;
    const req = requestOf(c.client, this.d.now, this.d.prefix);
    const res = await this.heartbeat(c.group, req);
    adopt(c.client, req, res);
    // Fenced or unknown: it dropped everything; what it read stays pending for the next holder.
    if (c.client.epoch === 0) c.inFlight.clear();
    c.toldAt = this.d.now;
    await this.consume(c);
  }

  private heartbeat(group: string, req: HeartbeatInput): Promise<HeartbeatOutput> {
    return this.coordinatorCall(() => this.d.coordinator.heartbeat(this.d.prefix, group, req));
  }

  /**
   * Owned shards: acknowledge the last read, take over what earlier holders left pending, read
   * what is new. Shards being given up: finish in-flight work. One pipeline (and one more to
   * acknowledge what was taken over).
   */
  private async consume(c: Consumer): Promise<void> {
    const { client, group } = c;
    const owned = new Set(client.owned);
    const shards = [...client.owned, ...Object.keys(client.draining).map(Number)];
    if (shards.length === 0) return;
    const p = this.d.redis.pipeline();
    for (const s of shards) {
      const key = this.d.key(s);
      const done = c.inFlight.get(s) ?? [];
      p.exists(key);
      if (done.length > 0) p.xack(key, group, ...done);
      if (owned.has(s)) {
        p.call('XAUTOCLAIM', key, group, client.id, '0', '0-0', 'COUNT', String(BATCH));
        p.xreadgroup('GROUP', group, client.id, 'COUNT', BATCH, 'STREAMS', key, '>');
      }
    }
    const replies = (await p.exec()) ?? [];
    let i = 0;
    const next = (): [Error | null, unknown] => replies[i++]!;
    const taken: Array<[number, string[], boolean]> = [];
    for (const s of shards) {
      const exists = next()[1] === 1;
      const done = c.inFlight.get(s) ?? [];
      if (done.length > 0) {
        const [err] = next();
        if (err) throw err;
        if (exists) this.acked(s, group, done);
      }
      if (!exists && owned.has(s))
        this.violation(
          `${client.id} was told at ${c.toldAt} that it owns shard ${s}, whose key does not exist`,
        );
      else if (!exists && done.length > 0)
        this.violation(`${client.id} still finishes work on shard ${s}, whose key does not exist`);
      if (!owned.has(s)) {
        c.inFlight.delete(s);
        continue;
      }
      const [claimErr, claim] = next();
      const [readErr, read] = next();
      if (!exists) continue;
      if (claimErr || readErr) throw claimErr ?? readErr;
      const [cursor, claimed] = claim as [string, Array<[string, unknown]>];
      taken.push([s, claimed.map(([id]) => id), cursor !== '0-0']);
      c.inFlight.set(s, readIds(read));
    }
    for (const [s, ids, more] of taken) {
      const all = more ? [...ids, ...(await this.d.claimPending(s, group, client.id))] : ids;
      await this.ack(s, group, all);
      this.stats.takenOver += all.length;
    }
  }

  /** What the plain reader does on one key: take over everything pending, then read and acknowledge all. */
  private async readAll(shard: number, group: string): Promise<void> {
    await this.ack(shard, group, await this.d.claimPending(shard, group, 'plain-reader'));
    for (;;) {
      const ids = await this.d.deliver(shard, group, BATCH, 'plain-reader');
      if (ids.length === 0) return;
      await this.ack(shard, group, ids);
    }
  }

  /** XACK of `ids` on `shard` as `group`; recorded only if the key was there to take it. */
  private async ack(shard: number, group: string, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const key = this.d.key(shard);
    const replies =
      (await this.d.redis
        .pipeline()
        .exists(key)
        .xack(key, group, ...ids)
        .exec()) ?? [];
    for (const [err] of replies) if (err) throw err;
    if (replies[0]?.[1] === 1) this.acked(shard, group, ids);
  }

  /** Records that `group` acknowledged `ids` of `shard`. */
  private acked(shard: number, group: string, ids: readonly string[]): void {
    for (const id of ids) {
      const key = `${shard}/${id}`;
      const e = this.entries.get(key);
      if (!e) continue;
      e.acked.add(group);
      if (e.groups.every((g) => e.acked.has(g))) this.outstanding.delete(key);
    }
  }

  // ---- checks ---------------------------------------------------------------------------------

  /** Runs a coordinator call and checks the state it left behind. */
  private async coordinatorCall<T>(fn: () => Promise<T>): Promise<T> {
    const result = await fn();
    await this.check();
    return result;
  }

  /** A scale or rollback request: refused only with an expected code, or for a refused provisioning. */
  private async refusable(fn: () => Promise<unknown>): Promise<void> {
    const refusals = this.refusals;
    try {
      await this.coordinatorCall(fn);
    } catch (e) {
      const provisioning =
        isCoordinatorError(e) && e.code === 'REDIS_STREAM_PROVISIONING_FAILED' && this.refusals > refusals;
      if (!provisioning && !(isCoordinatorError(e) && EXPECTED_REFUSALS.has(e.code))) throw e;
      await this.check();
    }
  }

  private violation(text: string): void {
    this.violations.push(`${text} (at ${this.d.now})`);
  }

  /** Right after the retire script deleted `shard`: nobody within its lease reads it, nothing on it was unread. */
  private checkDeletion(shard: number): void {
    for (const c of this.consumers) {
      const reads = c.client.owned.includes(shard) || c.client.draining[shard] !== undefined;
      const leased = this.d.now <= c.toldAt + this.config.memberLeaseTtlMs;
      if (c.client.running && reads && leased)
        this.violation(`deleted shard ${shard} while ${c.client.id} reads it`);
    }
    for (const key of this.outstanding) {
      const e = this.entries.get(key)!;
      if (e.shard !== shard) continue;
      const missing = e.groups.filter((g) => !e.acked.has(g));
      this.violation(`deleted shard ${shard} with entry ${e.id} not acknowledged by ${missing.join(', ')}`);
    }
  }

  /** Reads the stream back and checks every rule against the previous reading; throws on a broken one. */
  async check(): Promise<void> {
    const before = this.last;
    const now = await this.d.reload();
    this.last = now;
    for (const [name, g] of Object.entries(now.groups)) {
      const b = before.groups[name];
      for (const k of ['groupEpoch', 'metadataVersion', 'assignmentEpoch'] as const) {
        if (b && g[k] < b[k]) this.violation(`${name}.${k} went back from ${b[k]} to ${g[k]}`);
      }
      // The group as the coordinator reports it (monitoring, metrics): a member whose lease has
      // lapsed counts as expired before maintenance records it, as the assignment round already
      // counts it (a lazy pass started by one group's heartbeat runs other groups' rounds).
      const broken = invariantViolations(now.stream, observedAt(g, this.d.now));
      if (broken.length > 0) this.violation(`${name}: ${broken.join('; ')}`);
    }
    for (const w of this.d.warnings.splice(0)) {
      const refused = String(w.fields?.error ?? '').includes(PROVISIONING_REFUSED);
      if (!(w.msg === 'resuming a PREPARING migration failed' && refused))
        this.violation(`the coordinator warned: ${w.msg} ${JSON.stringify(w.fields)}`);
    }
    await this.checkRedis();
  }

  /**
   * The rules on Redis itself, against the stream as last read back (only the coordinator
   * changes it, and every coordinator call is followed by `check`): shard keys, and entries.
   */
  private async checkRedis(): Promise<void> {
    const { stream } = this.last;
    const m = activeMigrationOf(stream);
    const frozen = m?.state === 'PREPARING' ? m.toShardCount : 0;
    const exists = await this.checkEntries();
    for (let s = 0; s < stream.shardCount; s++) {
      if (!exists[s]) this.violation(`routed shard ${s} has no key`);
    }
    for (const r of stream.removedShards) {
      if (r.state === 'RETIRED' && r.shard >= frozen && exists[r.shard])
        this.violation(`shard ${r.shard} is RETIRED but its key exists`);
    }
    if (this.violations.length > 0) throw new Error(this.violations.join('\n'));
  }

  /** Whether each shard key `0..MAX_SHARDS-1` exists. */
  private async existing(): Promise<boolean[]> {
    const p = this.d.redis.pipeline();
    for (let s = 0; s < MAX_SHARDS; s++) p.exists(this.d.key(s));
    return ((await p.exec()) ?? []).map(([err, v]) => {
      if (err) throw err;
      return v === 1;
    });
  }

  /**
   * Every entry not yet acknowledged by all its groups is still in Redis (entries are never
   * trimmed here, so present means within XRANGE of its key). Returns which shard keys exist,
   * read in the same pipeline.
   */
  private async checkEntries(): Promise<boolean[]> {
    const byShard = new Map<number, Entry[]>();
    for (const key of this.outstanding) {
      const e = this.entries.get(key)!;
      byShard.set(e.shard, [...(byShard.get(e.shard) ?? []), e]);
    }
    const p = this.d.redis.pipeline();
    for (let s = 0; s < MAX_SHARDS; s++) p.exists(this.d.key(s));
    const shards = [...byShard.keys()];
    for (const s of shards) {
      const ids = byShard
        .get(s)!
        .map((e) => e.id)
        .sort(compareIds);
      p.xrange(this.d.key(s), ids[0]!, ids[ids.length - 1]!);
    }
    const replies = (await p.exec()) ?? [];
    for (const [err] of replies) if (err) throw err;
    shards.forEach((shard, n) => {
      const range = replies[MAX_SHARDS + n]![1] as Array<[string, string[]]>;
      const present = new Set(range.map(([id]) => id));
      for (const e of byShard.get(shard)!) {
        if (present.has(e.id)) continue;
        const missing = e.groups.filter((g) => !e.acked.has(g));
        this.violation(
          `entry ${e.id} of shard ${shard} is lost: gone from Redis, never acknowledged by ${missing.join(', ')}`,
        );
        this.outstanding.delete(`${shard}/${e.id}`);
      }
    });
    return replies.slice(0, MAX_SHARDS).map(([, v]) => v === 1);
  }

  /** True when nothing is left to do: no migration, every removed shard retired, every entry acknowledged. */
  finished(): boolean {
    const { stream } = this.last;
    if (stream.activeReshardingId !== null) return false;
    if (stream.removedShards.some((r) => r.state !== 'RETIRED')) return false;
    return this.outstanding.size === 0;
  }
}

/** Order of stream ids (`ms-seq`). */
function compareIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(BigInt) as [bigint, bigint];
  const [bm, bs] = b.split('-').map(BigInt) as [bigint, bigint];
  return am === bm ? (as < bs ? -1 : as > bs ? 1 : 0) : am < bm ? -1 : 1;
}
