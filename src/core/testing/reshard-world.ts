/**
 * A simulated stream under resharding for property tests: several consumer groups of honest
 * members, a producer with a routing cache that may be stale, and a model of the Redis shard
 * streams (entries, and per consumer group delivered/acknowledged counters). The world drives
 * the pure core the way the coordinator does (full-path heartbeats with the lazy pass, sweeps
 * with evidence reads and the retire script, scale and rollback requests) and checks after
 * every step that no entry is ever lost and no held shard is ever deleted.
 */

import { adopt, type Client, leaveRequest, newClient, requestOf } from '../../../test/support/sim-client.js';
import { drainVerdict, type RetireOutcome, type ShardReading } from '../drain-evidence.js';
import { isCoordinatorError } from '../errors.js';
import { newGroupDoc } from '../group.js';
import { invariantViolations } from '../group-view.js';
import type { ProtocolConfig } from '../model.js';
import {
  activateMigration,
  activationShards,
  requestScale,
  rollbackMigration,
  rollbackReadsNeeded,
} from '../resharding.js';
import { ioNeeded, preparingMigration, type ReshardIo, streamPass } from '../resharding-advance.js';
import { processStreamHeartbeat } from '../stream-heartbeat.js';
import { activeMigrationOf, type StreamState } from '../stream-state.js';
import { CONFIG, T0 } from './fixtures.js';

/** One modelled shard stream: entries ever added, and per consumer group how far it got. */
export interface ModelShard {
  entries: number;
  groups: Map<string, { delivered: number; acked: number }>;
}

/** Codes a request may legitimately be refused with in the simulation. */
const EXPECTED_REFUSALS = new Set([
  'ACTIVE_MIGRATION_EXISTS',
  'METADATA_SYNC_IN_PROGRESS',
  'ROLLBACK_NOT_ALLOWED',
  'MIGRATION_NOT_FOUND',
]);

/** The simulated world. */
export class ReshardWorld {
  state: StreamState;
  now = T0;
  readonly clients: Array<{ group: string; client: Client }> = [];
  readonly redis = new Map<number, ModelShard>();
  /** The producer's cached shard count (stale until it refreshes). */
  routing: number;
  /** Provisioning attempts that will still fail. */
  failProvisioning = 0;
  /** When each client last sent a heartbeat (it reads only within its lease of that moment). */
  private readonly lastBeat = new Map<string, number>();
  private nextId = 1;

  constructor(
    readonly groupNames: string[],
    clientsPerGroup: number,
    shardCount: number,
    readonly config: ProtocolConfig = CONFIG,
  ) {
    const prefix = 'orders';
    const groups = Object.fromEntries(groupNames.map((g) => [g, newGroupDoc(prefix, g, T0)]));
    this.state = {
      stream: {
        streamPrefix: prefix,
        shardCount,
        removedShards: [],
        migrations: [],
        activeReshardingId: null,
        groups: [...groupNames].sort(),
        createdAt: T0,
        updatedAt: T0,
      },
      groups,
    };
    for (let i = 0; i < shardCount; i++) for (const g of groupNames) this.provisionModel(i, g);
    for (const g of groupNames) {
      for (let i = 0; i < clientsPerGroup; i++)
        this.clients.push({ group: g, client: newClient(`${g}-m${i}`) });
    }
    this.routing = shardCount;
  }

  // ---- the Redis model ---------------------------------------------------------------------

  /** XGROUP CREATE … $ MKSTREAM ENTRIESREAD <entries-added>: the group starts at the tail. */
  private provisionModel(shard: number, group: string): void {
    const key = this.redis.get(shard) ?? { entries: 0, groups: new Map() };
    if (!key.groups.has(group)) key.groups.set(group, { delivered: key.entries, acked: key.entries });
    this.redis.set(shard, key);
  }

  /** What the evidence script would return for `shard`. */
  reading(shard: number): ShardReading {
    const key = this.redis.get(shard);
    if (!key) return { kind: 'absent' };
    return {
      kind: 'stream',
      length: key.entries,
      entriesAdded: key.entries,
      groups: [...key.groups].map(([name, c]) => ({
        name,
        pending: c.delivered - c.acked,
        lag: key.entries - c.delivered,
      })),
    };
  }

  /** The retire script: re-check and delete atomically. Deleting an unread entry is the bug we hunt. */
  private retire(shard: number): RetireOutcome {
    const r = this.reading(shard);
    if (r.kind === 'absent') return { kind: 'absent' };
    if (!drainVerdict(r, this.state.stream.groups).drained) return { kind: 'refused', reading: r };
    const key = this.redis.get(shard)!;
    for (const [name, c] of key.groups) {
      if (c.acked !== key.entries) throw new Error(`deleted shard ${shard} with entries unread by ${name}`);
    }
    for (const { client } of this.clients) {
      const reading = client.owned.includes(shard) || client.draining[shard] !== undefined;
      const leased = this.now <= (this.lastBeat.get(client.id) ?? -Infinity) + this.config.memberLeaseTtlMs;
      if (client.running && reading && leased)
        throw new Error(`deleted shard ${shard} while ${client.id} reads it`);
    }
    this.redis.delete(shard);
    return { kind: 'deleted' };
  }

  /** The Redis work of one pass, as the coordinator gathers it. */
  private gather(): ReshardIo {
    const needs = ioNeeded(this.state.stream, this.now, this.config.heartbeatIntervalMs);
    return {
      readings: new Map(needs.readings.map((s) => [s, this.reading(s)])),
      retirements: new Map(needs.retirements.map((s) => [s, this.retire(s)])),
    };
  }

  // ---- actors ------------------------------------------------------------------------------

  /** The producer writes one entry with its cached routing; a nil reply refreshes and retries once. */
  produce(partition: number): void {
    for (let attempt = 0; attempt < 2; attempt++) {
      if (this.routing === 0) {
        this.routing = this.state.stream.shardCount;
        continue;
      }
      const key = this.redis.get(partition % this.routing);
      if (key) {
        key.entries += 1;
        return;
      }
      // XADD NOMKSTREAM answered nil: the route is stale.
      this.routing = this.state.stream.shardCount;
    }
  }

  /** The producer refetches routing. */
  refreshRouting(): void {
    this.routing = this.state.stream.shardCount;
  }

  /** One heartbeat of client `i` through the full path, then it reads what it was given. */
  beat(i: number): void {
    const { group, client } = this.clients[i]!;
    if (!client.running) return;
    const req = requestOf(client, this.now);
    this.lastBeat.set(client.id, this.now);
    const out = processStreamHeartbeat({
      state: this.state,
      group,
      request: req,
      io: this.gather(),
      config: this.config,
      now: this.now,
    });
    this.commit(out.state);
    adopt(client, req, out.response);
    this.consume(group, client);
  }

  /** Reads and acknowledges like a consumer: owned shards read and ack; draining shards finish in-flight work. */
  private consume(group: string, c: Client): void {
    for (const s of c.owned) {
      const key = this.redis.get(s);
      if (!key) throw new Error(`${c.id} was given shard ${s} whose key does not exist`);
      const cg = key.groups.get(group);
      if (!cg) throw new Error(`${c.id} was given shard ${s} without consumer group ${group}`);
      cg.acked = cg.delivered;
      cg.delivered = key.entries;
    }
    for (const s of Object.keys(c.draining).map(Number)) {
      const cg = this.redis.get(s)?.groups.get(group);
      if (cg) cg.acked = cg.delivered;
    }
  }

  /** A plain XREADGROUP + XACK reader that drains every key for `group`. */
  plainReader(group: string): void {
    for (const key of this.redis.values()) {
      const cg = key.groups.get(group);
      if (cg) {
        cg.delivered = key.entries;
        cg.acked = key.entries;
      }
    }
  }

  /** Starts client `i` (joins with epoch 0); `drainBeats` DRAINING reports precede each REVOKED. */
  start(i: number, drainBeats: number): void {
    const c = this.clients[i]!.client;
    if (c.running) return;
    Object.assign(c, { running: true, drainBeats, epoch: 0, mv: 0, owned: [], draining: {} });
    this.beat(i);
  }

  /** Client `i` leaves gracefully (epoch -1, everything reported REVOKED). */
  leave(i: number): void {
    const { group, client } = this.clients[i]!;
    if (!client.running) return;
    const out = processStreamHeartbeat({
      state: this.state,
      group,
      request: leaveRequest(client, this.now),
      io: this.gather(),
      config: this.config,
      now: this.now,
    });
    this.commit(out.state);
    for (const s of Object.keys(client.draining).map(Number)) {
      const cg = this.redis.get(s)?.groups.get(group);
      if (cg) cg.acked = cg.delivered;
    }
    Object.assign(client, { running: false, owned: [], draining: {}, epoch: 0, mv: 0 });
  }

  /** Client `i` stops without a word (its member expires with its lease). */
  crash(i: number): void {
    this.clients[i]!.client.running = false;
  }

  /** The sweep: a pass with evidence, again while retirements are due, and PREPARING resumed. */
  sweep(): void {
    this.passes();
    const preparing = preparingMigration(this.state.stream);
    if (preparing) this.provisionAndActivate(preparing.reshardingId);
  }

  /** Housekeeping passes with evidence, again while retirements are due. */
  private passes(): void {
    for (let pass = 0; pass < 3; pass++) {
      this.commit(streamPass(this.state, this.gather(), this.now, this.config));
      if (ioNeeded(this.state.stream, this.now, this.config.heartbeatIntervalMs).retirements.length === 0)
        break;
    }
  }

  /** A scale request: lazy pass, the decision, provisioning, activation. */
  scale(target: number): void {
    this.sweep();
    try {
      const d = requestScale(
        this.state,
        { targetShardCount: target, reshardingId: `r${this.nextId++}` },
        this.now,
      );
      this.commit(d.state);
      if (d.outcome !== 'noop') this.provisionAndActivate(d.migration.reshardingId);
    } catch (e) {
      if (!isCoordinatorError(e) || !EXPECTED_REFUSALS.has(e.code)) throw e;
    }
  }

  private provisionAndActivate(id: string): void {
    const m = activeMigrationOf(this.state.stream);
    if (!m || m.reshardingId !== id || m.state !== 'PREPARING') return;
    if (this.failProvisioning > 0) {
      this.failProvisioning--;
      return;
    }
    for (const s of activationShards(m)) for (const g of this.state.stream.groups) this.provisionModel(s, g);
    // Provisioning runs outside the stream mutex: another instance's sweep may run meanwhile.
    this.passes();
    this.commit(activateMigration(this.state, id, this.now, this.config));
  }

  /** Rollback of the active migration, when there is one (refusals are expected outcomes). */
  rollback(): void {
    this.sweep();
    const m = activeMigrationOf(this.state.stream);
    if (!m) return;
    const readings = new Map(rollbackReadsNeeded(this.state.stream, m).map((s) => [s, this.reading(s)]));
    try {
      this.commit(rollbackMigration(this.state, m.reshardingId, readings, this.now, this.config).state);
    } catch (e) {
      if (!isCoordinatorError(e) || !EXPECTED_REFUSALS.has(e.code)) throw e;
    }
  }

  /** Every running client heartbeats once, the sweep runs, the clock moves one interval. */
  round(): void {
    this.clients.forEach((_, i) => {
      this.beat(i);
    });
    this.sweep();
    this.now += this.config.heartbeatIntervalMs;
  }

  // ---- checks ------------------------------------------------------------------------------

  /** Keeps `next` after checking the invariants across the step. */
  private commit(next: StreamState): void {
    const before = this.state;
    this.state = next;
    for (const [name, g] of Object.entries(next.groups)) {
      const b = before.groups[name]!;
      for (const k of ['groupEpoch', 'metadataVersion', 'assignmentEpoch'] as const) {
        if (g[k] < b[k]) throw new Error(`${name}.${k} went back from ${b[k]} to ${g[k]}`);
      }
      const violations = invariantViolations(next.stream, g);
      if (violations.length > 0) throw new Error(`${name}: ${violations.join('; ')}`);
    }
    const m = activeMigrationOf(next.stream);
    const frozen = m?.state === 'PREPARING' ? m.toShardCount : 0;
    for (const r of next.stream.removedShards) {
      if (r.state === 'RETIRED' && r.shard >= frozen && this.redis.has(r.shard)) {
        throw new Error(`shard ${r.shard} is RETIRED but its key exists`);
      }
    }
    for (let s = 0; s < next.stream.shardCount; s++) {
      if (!this.redis.has(s)) throw new Error(`routed shard ${s} has no key`);
    }
  }

  /** True when nothing is left to do: no migration, every removed shard retired, every entry read. */
  finished(): boolean {
    const { stream } = this.state;
    if (stream.activeReshardingId !== null) return false;
    if (stream.removedShards.some((r) => r.state !== 'RETIRED')) return false;
    for (const key of this.redis.values()) {
      for (const c of key.groups.values()) if (c.acked !== key.entries) return false;
    }
    return true;
  }
}
