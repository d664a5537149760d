/**
 * A simulated group for property tests: honest clients that follow PROTOCOL §7's "correct
 * client" rules, a clock, zombie replays, lost answers, and a model of the store's fast path.
 * Every step is checked against the invariants of SPEC §5; a broken one throws.
 */
import { deepEqual } from '../equal.js';
import { blockersOf, heartbeatKey, sameExceptLiveness, steadyFingerprint } from '../fast-path.js';
import { blocksOthers, holdings, newGroupDoc } from '../group.js';
import { invariantViolations } from '../group-view.js';
import { processHeartbeat } from '../heartbeat.js';
import type { HeartbeatInput, HeartbeatOutput } from '../heartbeat-types.js';
import { durablyEqual, housekeepGroup, reconcileGroup } from '../housekeeping.js';
import { isDue } from '../maintenance.js';
import {
  assignableShards,
  type GroupDoc,
  isLive,
  type MemberRecord,
  type ProtocolConfig,
  type StreamDoc,
} from '../model.js';
import { CONFIG, streamDoc, T0 } from './fixtures.js';
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

/** A recorded fast-path answer and what it was recorded against. */
interface Fingerprinted {
  key: string;
  response: HeartbeatOutput;
  epochs: number[];
  stream: string;
  record: MemberRecord;
  target: number[];
  /** The blockers of the answer's pending shards (the store records their entries and statuses). */
  blockers: string;
}

/** The simulated world. */
export class World {
  stream: StreamDoc;
  group: GroupDoc;
  now = T0;
  readonly clients: Client[];
  /** Fast-path fingerprints per member, with what they were recorded against (the store's checks). */
  private fingerprints = new Map<string, Fingerprinted>();
  /** How often the modelled fast path would have answered (for test diagnostics). */
  fastPathHits = 0;

  constructor(
    shardCount: number,
    clientCount: number,
    readonly config: ProtocolConfig = CONFIG,
  ) {
    this.stream = streamDoc(shardCount);
    this.group = newGroupDoc(this.stream.streamPrefix, this.stream.streamPrefix, T0);
    this.clients = Array.from({ length: clientCount }, (_, i) => newClient(`m${i}`));
  }

  /** Applies one action and checks every invariant afterwards. */
  apply(action: SimAction): void {
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
          this.beat(c, false);
        }
        break;
      }
      case 'beat':
        if (this.clients[action.client]!.running) this.beat(this.clients[action.client]!, action.lose);
        break;
      case 'round':
        this.round();
        break;
      case 'stale': {
        const c = this.clients[action.client]!;
        const req = c.history[Math.max(0, c.history.length - 1 - action.back)];
        if (req) this.process(req); // a delayed duplicate: its answer reaches nobody
        break;
      }
      case 'leave':
        this.leave(this.clients[action.client]!);
        break;
      case 'crash':
        this.clients[action.client]!.running = false;
        break;
      case 'advance':
        this.now += action.ms;
        break;
      case 'sweep':
        this.sweep();
        break;
      case 'reshard':
        this.reshard(action.shardCount);
        break;
    }
    this.checkInvariants(before);
  }

  /** Honest rounds with no churn: in-flight work finishes, every running client heartbeats each round. */
  settle(rounds: number): void {
    for (const c of this.clients) {
      c.drainBeats = 0;
      for (const s of Object.keys(c.draining)) c.draining[Number(s)] = 0;
    }
    for (let r = 0; r < rounds; r++) this.apply({ kind: 'round' });
  }

  /** Every running client heartbeats once (no losses), the sweep runs, then the clock moves one interval. */
  round(): void {
    for (const c of this.clients) if (c.running) this.beat(c, false);
    this.sweep();
    this.now += this.config.heartbeatIntervalMs;
  }

  /** Ids of the clients that are running. */
  runningIds(): string[] {
    return this.clients.filter((c) => c.running).map((c) => c.id);
  }

  /** The owned shards client `id` reads right now. */
  ownedBy(id: string): number[] {
    return this.clients.find((c) => c.id === id)!.owned;
  }

  private beat(c: Client, lose: boolean): void {
    const req = c.retry && c.lastRequest ? c.lastRequest : requestOf(c, this.now);
    const res = this.process(req);
    c.lastRequest = req;
    c.history.push(req);
    if (lose) {
      c.retry = true;
      return;
    }
    c.retry = false;
    adopt(c, req, res);
  }

  private leave(c: Client): void {
    if (!c.running) return;
    this.process(leaveRequest(c, this.now));
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

  /** The full path, with a model of the store's fast path that must agree with it. */
  private process(req: HeartbeatInput): HeartbeatOutput {
    const before = this.group;
    const out = processHeartbeat({
      stream: this.stream,
      group: before,
      request: req,
      config: this.config,
      now: this.now,
    });
    const after = out.group!;
    const fp = this.fingerprints.get(req.memberId);
    const fastPathWould =
      fp !== undefined && req.memberEpoch > 0 && fp.key === heartbeatKey(req) && this.valid(fp);
    if (fastPathWould) {
      this.fastPathHits++;
      if (!durablyEqual(before, after) || !deepEqual(out.response, fp.response)) {
        throw new Error(`fast path would have answered ${req.memberId} wrongly at ${this.now}`);
      }
    }
    this.write(after);
    if (out.response.status === 'OK') {
      const next = steadyFingerprint({
        stream: this.stream,
        group: after,
        request: req,
        response: out.response,
        config: this.config,
        now: this.now,
      });
      if (next)
        this.fingerprints.set(req.memberId, { ...next, ...this.dependencies(req.memberId, next.response) });
    }
    this.checkGrants(before, after, req.memberId, out.response);
    return out.response;
  }

  private sweep(): void {
    const after = housekeepGroup({
      stream: this.stream,
      group: this.group,
      config: this.config,
      now: this.now,
    });
    if (housekeepGroup({ stream: this.stream, group: after, config: this.config, now: this.now }) !== after) {
      throw new Error('housekeeping is not idempotent');
    }
    this.write(after);
  }

  /** A shard-count change the way resharding commits one: G+1, M+1, reconcile. */
  private reshard(shardCount: number): void {
    this.stream = { ...this.stream, shardCount };
    const bumped = {
      ...this.group,
      groupEpoch: this.group.groupEpoch + 1,
      metadataVersion: this.group.metadataVersion + 1,
    };
    this.write(reconcileGroup(this.stream, bumped, this.config, this.now));
  }

  /** Keeps `g` (a fingerprint stays valid as long as what it depends on is unchanged). */
  private write(g: GroupDoc): void {
    this.group = g;
  }

  /** What a fingerprint of `memberId` depends on in the store: header, stream, own record, own target. */
  private dependencies(memberId: string, response: HeartbeatOutput): Omit<Fingerprinted, 'key' | 'response'> {
    const g = this.group;
    return {
      epochs: [g.groupEpoch, g.assignmentEpoch, g.metadataVersion],
      stream: JSON.stringify(this.stream),
      record: g.members[memberId]!,
      target: g.targetAssignments[memberId] ?? [],
      blockers: blockersOf(g, memberId, response.pendingShards),
    };
  }

  /** The store's fast-path conditions for `fp` now. */
  private valid(fp: Fingerprinted): boolean {
    const g = this.group;
    const m = g.members[fp.record.memberId];
    return (
      m !== undefined &&
      isLive(m.state) &&
      g.metadataCorrection === null &&
      deepEqual(fp.epochs, [g.groupEpoch, g.assignmentEpoch, g.metadataVersion]) &&
      fp.stream === JSON.stringify(this.stream) &&
      sameExceptLiveness(fp.record, m) &&
      deepEqual(fp.target, g.targetAssignments[m.memberId] ?? []) &&
      fp.blockers === blockersOf(g, m.memberId, fp.response.pendingShards) &&
      !Object.values(g.members).some((x) => isDue(x, this.now, this.config, true))
    );
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
    const violations = invariantViolations(this.stream, g);
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
   * every next heartbeat matches its recorded fingerprint, and the model store answers it.
   */
  checkSteadyFastPath(): void {
    const before = this.group;
    for (let pass = 0; pass < 2; pass++) for (const c of this.clients) if (c.running) this.beat(c, false);
    const hits = this.fastPathHits;
    const running = this.clients.filter((c) => c.running);
    for (const c of running) {
      const fp = this.fingerprints.get(c.id);
      if (!fp || !this.valid(fp) || fp.key !== heartbeatKey(requestOf(c, this.now))) {
        throw new Error(`no valid fast-path fingerprint for ${c.id} in the steady state`);
      }
    }
    for (const c of running) this.beat(c, false);
    if (this.fastPathHits - hits !== running.length)
      throw new Error('steady heartbeats missed the fast path');
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
    for (const s of assignableShards(this.stream)) {
      if (owners.get(s) !== 1) throw new Error(`shard ${s} has ${owners.get(s) ?? 0} target owners`);
    }
    const loads = running.map((id) => g.targetAssignments[id]?.length ?? 0);
    if (Math.max(...loads) - Math.min(...loads) > 1) throw new Error(`unbalanced loads ${loads}`);
    for (const id of running) {
      if (!deepEqual(this.ownedBy(id), g.targetAssignments[id]))
        throw new Error(`${id} does not read its target`);
    }
  }
}
