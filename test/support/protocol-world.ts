/**
 * A simulated group for property tests, on the production path: honest clients that follow the
 * correct-client rules, a clock, zombie replays and lost answers, all sent through
 * `Coordinator.heartbeat` over a private Redis (see `protocol-driver.ts`), with the coordinator's
 * own sweep and resharding. After every step the group is read back from Redis and checked
 * against the protocol's invariants; a broken one throws.
 */
import { deepEqual } from '../../src/core/equal.js';
import { isCoordinatorError } from '../../src/core/errors.js';
import { blocksOthers, holdings } from '../../src/core/group.js';
import { durablyEqual } from '../../src/core/group-equality.js';
import { invariantViolations } from '../../src/core/group-view.js';
import type { HeartbeatInput, HeartbeatOutput } from '../../src/core/heartbeat-types.js';
import { assignableShards, type GroupDoc, isLive, type ProtocolConfig } from '../../src/core/model.js';
import { CONFIG, Driver } from './protocol-driver.js';
import { adopt, type Client, leaveRequest, newClient, requestOf } from './sim-client.js';

/** A simulation step. */
export type SimAction =
  | { kind: 'start'; client: number; drainBeats: number }
  | { kind: 'beat'; client: number; lose: boolean }
  | { kind: 'round' }
  | { kind: 'stale'; client: number; back: number }
  | { kind: 'leave'; client: number }
  | { kind: 'crash'; client: number }
  | { kind: 'advance'; ms: number }
  | { kind: 'sweep' }
  | { kind: 'reshard'; shardCount: number };

/** Refusals a scale request may meet in the simulation (one migration at a time). */
const EXPECTED_REFUSALS = new Set(['ACTIVE_MIGRATION_EXISTS', 'METADATA_SYNC_IN_PROGRESS']);

/** The simulated world. */
export class World {
  readonly clients: Client[];
  /** How often the fast path answered (for test diagnostics). */
  fastPathHits = 0;

  private constructor(
    readonly d: Driver,
    clientCount: number,
  ) {
    this.clients = Array.from({ length: clientCount }, (_, i) => newClient(`m${i}`));
  }

  /** A stream of `shardCount` shards with `clientCount` clients that have not started. */
  static async open(
    shardCount: number,
    clientCount: number,
    config: ProtocolConfig = CONFIG,
  ): Promise<World> {
    return new World(await Driver.open(shardCount, config), clientCount);
  }

  /** The group as Redis holds it. */
  get group(): GroupDoc {
    return this.d.group;
  }

  get config(): ProtocolConfig {
    return this.d.config;
  }

  /** Applies one action and checks every invariant afterwards. */
  async apply(action: SimAction): Promise<void> {
    const before = this.group;
    switch (action.kind) {
      case 'start': {
        const c = this.clients[action.client]!;
        if (!c.running) {
          Object.assign(c, {
            running: true,
            drainBeats: action.drainBeats,
            epoch: 0,
            mv: 0,
            owned: [],
            draining: {},
          });
          Object.assign(c, { lastRequest: null, retry: false });
          await this.beat(c, false);
        }
        break;
      }
      case 'beat':
        if (this.clients[action.client]!.running) await this.beat(this.clients[action.client]!, action.lose);
        break;
      case 'round':
        await this.round();
        break;
      case 'stale': {
        const c = this.clients[action.client]!;
        const req = c.history[Math.max(0, c.history.length - 1 - action.back)];
        if (req) await this.process(req); // a delayed duplicate: its answer reaches nobody
        break;
      }
      case 'leave':
        await this.leave(this.clients[action.client]!);
        break;
      case 'crash':
        this.clients[action.client]!.running = false;
        break;
      case 'advance':
        this.d.advance(action.ms);
        break;
      case 'sweep':
        await this.sweep();
        break;
      case 'reshard':
        await this.reshard(action.shardCount);
        break;
    }
    this.checkInvariants(before);
  }

  /** Honest rounds with no churn: in-flight work finishes, every running client heartbeats each round. */
  async settle(rounds: number): Promise<void> {
    for (const c of this.clients) {
      c.drainBeats = 0;
      for (const s of Object.keys(c.draining)) c.draining[Number(s)] = 0;
    }
    for (let r = 0; r < rounds; r++) await this.apply({ kind: 'round' });
  }

  /** Every running client heartbeats once (no losses), the sweep runs, then the clock moves one interval. */
  async round(): Promise<void> {
    for (const c of this.clients) if (c.running) await this.beat(c, false);
    await this.sweep();
    this.d.advance(this.config.heartbeatIntervalMs);
  }

  /** Ids of the clients that are running. */
  runningIds(): string[] {
    return this.clients.filter((c) => c.running).map((c) => c.id);
  }

  private async beat(c: Client, lose: boolean): Promise<void> {
    const req = c.retry && c.lastRequest ? c.lastRequest : requestOf(c, this.d.now, this.d.prefix);
    const res = await this.process(req);
    c.lastRequest = req;
    c.history.push(req);
    if (lose) {
      c.retry = true;
      return;
    }
    c.retry = false;
    adopt(c, req, res);
  }

  private async leave(c: Client): Promise<void> {
    if (!c.running) return;
    await this.process(leaveRequest(c, this.d.now, this.d.prefix));
    Object.assign(c, {
      running: false,
      owned: [],
      draining: {},
      epoch: 0,
      mv: 0,
      retry: false,
      lastRequest: null,
    });
  }

  /** One heartbeat through the coordinator; an answer from the fast path must have changed nothing durable. */
  private async process(req: HeartbeatInput): Promise<HeartbeatOutput> {
    const before = this.group;
    const hits = this.d.fastPathHits();
    const response = await this.d.send(req);
    const after = this.group;
    if (this.d.fastPathHits() > hits) {
      this.fastPathHits++;
      if (!durablyEqual(before, after))
        throw new Error(`the fast path answered ${req.memberId} at ${this.d.now} but the group changed`);
    }
    this.checkGrants(before, after, req.memberId, response);
    return response;
  }

  /** The coordinator's sweep; a second sweep at the same instant must find nothing to do. */
  private async sweep(): Promise<void> {
    const once = await this.d.housekeep();
    const twice = await this.d.housekeep();
    if (!durablyEqual(once, twice) || !sameCounters(once, twice))
      throw new Error('housekeeping is not idempotent');
  }

  /** A scale request through the admin use-case (refused while another migration runs). */
  private async reshard(shardCount: number): Promise<void> {
    try {
      await this.d.scale(shardCount);
    } catch (e) {
      if (!isCoordinatorError(e) || !EXPECTED_REFUSALS.has(e.code)) throw e;
    }
  }

  /** Revoke-before-assign: nothing in `res.assignedShards` is held by another blocking member. */
  private checkGrants(before: GroupDoc, after: GroupDoc, memberId: string, res: HeartbeatOutput): void {
    for (const g of [before, after]) {
      for (const m of Object.values(g.members)) {
        const now = after.members[m.memberId];
        // Holders that expired, were released or pruned meanwhile no longer block.
        if (m.memberId === memberId || !blocksOthers(m) || !now || !blocksOthers(now)) continue;
        const held = new Set(holdings(m));
        const clash = res.assignedShards.filter((s) => held.has(s));
        if (clash.length > 0)
          throw new Error(`granted ${clash} to ${memberId} while ${m.memberId} holds them`);
      }
    }
  }

  private checkInvariants(before: GroupDoc): void {
    const g = this.group;
    const violations = invariantViolations(this.d.stream, g);
    if (violations.length > 0) throw new Error(`invariant violations: ${violations.join('; ')}`);
    for (const k of ['groupEpoch', 'metadataVersion', 'assignmentEpoch'] as const) {
      if (g[k] < before[k]) throw new Error(`${k} went back from ${before[k]} to ${g[k]}`);
    }
    for (const [id, b] of Object.entries(before.members)) {
      const a = g.members[id];
      if (!a || a.state === 'LEAVING' || b.state === 'LEAVING') continue;
      if (a.memberEpoch < b.memberEpoch) throw new Error(`epoch of ${id} went back`);
    }
    const live = Object.values(g.members).some((m) => isLive(m.state));
    if ((g.state === 'EMPTY') === live) throw new Error(`state ${g.state} with live=${live}`);
  }

  /**
   * Asserts that the steady state is served by the fast path: after two back-to-back
   * heartbeats of every running client (the first may still record a new metadata version),
   * the next heartbeat of every running client is answered by the store in one round trip.
   */
  async checkSteadyFastPath(): Promise<void> {
    const before = this.group;
    for (let pass = 0; pass < 2; pass++)
      for (const c of this.clients) if (c.running) await this.beat(c, false);
    const running = this.clients.filter((c) => c.running);
    for (const c of running) {
      const hits = this.d.fastPathHits();
      await this.beat(c, false);
      if (this.d.fastPathHits() === hits)
        throw new Error(`the steady heartbeat of ${c.id} missed the fast path`);
    }
    this.checkInvariants(before);
  }

  /** Asserts the converged state: balanced targets, everyone reading exactly its target. */
  checkStable(): void {
    const g = this.group;
    const running = this.runningIds();
    const liveIds = Object.values(g.members)
      .filter((m) => isLive(m.state))
      .map((m) => m.memberId)
      .sort();
    if (!deepEqual(liveIds, [...running].sort())) throw new Error(`live ${liveIds} ≠ running ${running}`);
    if (running.length === 0) {
      if (g.state !== 'EMPTY') throw new Error(`state ${g.state} without members`);
      return;
    }
    if (g.state !== 'STABLE') throw new Error(`not stable: ${JSON.stringify(g)}`);
    const owners = new Map<number, number>();
    for (const id of running)
      for (const s of g.targetAssignments[id] ?? []) owners.set(s, (owners.get(s) ?? 0) + 1);
    for (const s of assignableShards(this.d.stream)) {
      if (owners.get(s) !== 1) throw new Error(`shard ${s} has ${owners.get(s) ?? 0} target owners`);
    }
    const loads = running.map((id) => g.targetAssignments[id]?.length ?? 0);
    if (Math.max(...loads) - Math.min(...loads) > 1) throw new Error(`unbalanced loads ${loads}`);
    for (const c of this.clients.filter((x) => x.running)) {
      if (!deepEqual(c.owned, g.targetAssignments[c.id])) throw new Error(`${c.id} does not read its target`);
    }
  }
}

/** Same epochs and version. */
function sameCounters(a: GroupDoc, b: GroupDoc): boolean {
  return (
    a.groupEpoch === b.groupEpoch &&
    a.assignmentEpoch === b.assignmentEpoch &&
    a.metadataVersion === b.metadataVersion
  );
}
