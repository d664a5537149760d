/**
 * Every commit checks everything its decision consulted (docs/protocol.md#invariants). The
 * coordinator runs on real Redis over a store whose reads report each stored fact the code looks
 * at — a member's record (with the deadline and lease merged into it), a target, an ownership
 * entry, a holder status, a deadline score — and every commit is compared with the facts
 * consulted since the read it was decided on. The table walks each kind of decision.
 *
 * Which facts a commit must check:
 * - a heartbeat: every fact it consulted;
 * - maintenance: every fact about a member it writes (the others decide nothing it writes);
 * - an assignment round: every fact about a member whose rebalance deadline it sets or clears.
 *   Targets are written only by rounds, under the assignment lock the round's commit checks, and
 *   are computed from the live set and the shard count, which the group epoch and the stream
 *   revision guard.
 * Not recorded as facts: the group header (its counters move by increments), the stream head
 * (its revision is checked by every plan), and answer hints (acknowledgements, live count).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { HolderStatus, OwnerEntry, PlanOp, RecordAt } from '../../src/core/commit-plan.js';
import { deepEqual } from '../../src/core/equal.js';
import type { HeartbeatOutput } from '../../src/core/heartbeat-types.js';
import type { GroupDoc } from '../../src/core/model.js';
import type { StreamPlan } from '../../src/store/store.js';
import { CONFIG, type HbSpec, hb, T0 } from '../support/heartbeat-fixtures.js';
import { backends, uniquePrefix } from '../support/redis.js';
import { makeStack, manualClock, type Stack } from '../support/stack.js';

type ReadKind = 'member' | 'members' | 'assignment';

/** One stored fact the code looked at, as read. */
type Fact =
  | { kind: 'record'; member: string; at: RecordAt | null }
  | { kind: 'target'; member: string; shards: readonly number[] | null }
  | { kind: 'owner'; shard: number; entry: OwnerEntry | null }
  | { kind: 'status'; member: string; status: HolderStatus | null }
  | { kind: 'deadline'; member: string; at: number | null };

/** A commit with the facts consulted since its read. */
interface Seen {
  read: ReadKind;
  facts: Fact[];
  plan: StreamPlan;
  now: number;
}

/** A map that reports the entries looked up, or all of them when iterated. */
class Watched<K, V> extends Map<K, V> {
  constructor(
    entries: ReadonlyMap<K, V>,
    private readonly seen: (key: K, value: V) => void,
  ) {
    super(entries);
  }
  override get(key: K): V | undefined {
    if (super.has(key)) this.seen(key, super.get(key) as V);
    return super.get(key);
  }
  override *entries(): MapIterator<[K, V]> {
    for (const [k, v] of super.entries()) {
      this.seen(k, v);
      yield [k, v];
    }
  }
  override [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries();
  }
  override forEach(fn: (v: V, k: K, m: Map<K, V>) => void): void {
    for (const [k, v] of this.entries()) fn(v, k, this);
  }
}

const stacks: Stack[] = [];
afterEach(async () => {
  for (const s of stacks.splice(0)) await s.close();
});

/** One stream on a coordinator whose store reports what is consulted and what is committed. */
class Harness {
  readonly seen: Seen[] = [];
  private facts: Fact[] = [];
  private read: ReadKind = 'member';

  private constructor(
    readonly stack: Stack,
    readonly prefix: string,
  ) {}

  static async open(shards: number, rebalanceTimeoutMs = CONFIG.rebalanceTimeoutMs): Promise<Harness> {
    const stack = makeStack(backends[0]!, {
      clock: manualClock(T0),
      config: {
        COORDINATOR_HEARTBEAT_INTERVAL_MS: String(CONFIG.heartbeatIntervalMs),
        COORDINATOR_MEMBER_LEASE_TTL_MS: String(CONFIG.memberLeaseTtlMs),
        COORDINATOR_REBALANCE_TIMEOUT_MS: String(rebalanceTimeoutMs),
        COORDINATOR_STALE_MEMBER_RETENTION_MS: String(CONFIG.staleMemberRetentionMs),
      },
    });
    stacks.push(stack);
    const h = new Harness(stack, uniquePrefix('reads'));
    await stack.coordinator.createStream(h.prefix, {
      initialShardCount: shards,
      consumerGroup: h.prefix,
      requestedBy: 'test',
      reason: null,
    });
    h.watch();
    return h;
  }

  private watch(): void {
    const store = this.stack.store;
    const note = (f: Fact) => this.facts.push(f);
    const begin = (kind: ReadKind) => {
      this.read = kind;
      this.facts = [];
    };
    const readMember = store.readMember.bind(store);
    store.readMember = async (req) => {
      const r = await readMember(req);
      if (r.kind !== 'view') return r;
      begin('member');
      const id = req.memberId;
      const owners = new Watched(r.owners, (shard, entry) => note({ kind: 'owner', shard, entry }));
      const holders = new Watched(r.holders, (member, status) => note({ kind: 'status', member, status }));
      return new Proxy(r, {
        get(t, p) {
          if (p === 'member') note({ kind: 'record', member: id, at: t.member });
          if (p === 'target' || p === 'targetStored')
            note({ kind: 'target', member: id, shards: t.targetStored ? t.target : null });
          if (p === 'owners') return owners;
          if (p === 'holders') return holders;
          return Reflect.get(t, p);
        },
      });
    };
    const readMembers = store.readMembers.bind(store);
    store.readMembers = async (prefix, group, ids) => {
      const r = await readMembers(prefix, group, ids);
      if (!r) return r;
      begin('members');
      const members = new Map(
        [...r.members].map(([id, m]) => [
          id,
          new Proxy(m, {
            get(t, p) {
              if (p === 'stored') note({ kind: 'record', member: id, at: t.stored });
              if (p === 'target') note({ kind: 'target', member: id, shards: t.target });
              return Reflect.get(t, p);
            },
          }),
        ]),
      );
      return { ...r, members };
    };
    const readAssignment = store.readAssignment.bind(store);
    store.readAssignment = async (...args) => {
      const r = await readAssignment(...args);
      if (r === 'busy' || r === null) return r;
      begin('assignment');
      return {
        ...r,
        owners: new Watched(r.owners, (shard, entry) => note({ kind: 'owner', shard, entry })),
        deadlines: new Watched(r.deadlines, (member, at) => note({ kind: 'deadline', member, at })),
      };
    };
    const commit = store.commit.bind(store);
    store.commit = (plan) => {
      this.seen.push({ read: this.read, facts: [...this.facts], plan, now: this.stack.clock.now() });
      return commit(plan);
    };
  }

  beat(id: string, spec: HbSpec): Promise<HeartbeatOutput> {
    return this.stack.coordinator.heartbeat(this.prefix, this.prefix, hb(id, spec, this.prefix));
  }

  async sweep(): Promise<void> {
    await this.stack.coordinator.sweep(this.stack.clock.now());
  }

  advance(ms: number): void {
    this.stack.clock.advance(ms);
  }

  async group(): Promise<GroupDoc> {
    return (await this.stack.store.load(this.prefix, [this.prefix]))!.groups[this.prefix]!;
  }

  /** A on [0, 1] and B on [2, 3] of a 4-shard stream, settled at epoch 3. */
  async twoSettled(): Promise<void> {
    const a = await this.beat('A', { epoch: 0, mv: 0 });
    await this.beat('A', { epoch: a.memberEpoch, mv: 2, owned: [0, 1, 2, 3] });
    await this.beat('B', { epoch: 0, mv: 0 });
    await this.beat('A', { epoch: 2, mv: 2, owned: [0, 1, 2, 3] });
    await this.beat('A', { epoch: 3, mv: 3, owned: [0, 1] });
    await this.beat('B', { epoch: 3, mv: 3 });
    await this.beat('B', { epoch: 3, mv: 3, owned: [2, 3] });
  }
}

/** The member a fact is about (an ownership entry: its holder). */
function aboutMember(f: Fact): string | null {
  return f.kind === 'owner' ? (f.entry?.memberId ?? null) : f.member;
}

/** Members a plan writes about (for a round: whose deadline it sets or clears). */
function written(s: Seen): Set<string> {
  const out = new Set<string>();
  for (const op of s.plan.groups.flatMap((g) => g.ops)) {
    if (s.read === 'assignment' && op.k !== 'deadline' && op.k !== 'drop-deadline') continue;
    if (op.k === 'owner') out.add(op.owner.memberId);
    else if ('member' in op && !isCheck(op)) out.add(op.member);
  }
  return out;
}

function isCheck(op: PlanOp): boolean {
  return [
    'record-rev',
    'target-is',
    'deadline-is',
    'status-is',
    'owner-is',
    'owner-mine',
    'lease-at-most',
  ].includes(op.k);
}

/** The checks a fact requires, each as a test on the plan's operations (with what it wants). */
function required(f: Fact, s: Seen): Array<{ want: string; ok: (op: PlanOp) => boolean }> {
  const is = (want: PlanOp) => ({ want: JSON.stringify(want), ok: (op: PlanOp) => deepEqual(op, want) });
  switch (f.kind) {
    case 'record': {
      const out = [is({ k: 'record-rev', member: f.member, rev: f.at?.rev ?? null })];
      if (!f.at) return out;
      const r = f.at.record;
      out.push(is({ k: 'deadline-is', member: f.member, at: r.rebalanceDeadlineAt }));
      if (s.now > r.memberLeaseExpiresAt)
        out.push(is({ k: 'lease-at-most', member: f.member, lease: r.memberLeaseExpiresAt }));
      return out;
    }
    case 'target': {
      // The members read cannot tell an absent target from an empty one: its check counts them alike.
      const loose = s.read === 'members';
      const want = {
        k: 'target-is',
        member: f.member,
        target: f.shards,
        ...(loose ? { emptyIfAbsent: true } : {}),
      };
      return [{ want: JSON.stringify(want), ok: (op) => deepEqual(op, want) }];
    }
    case 'owner':
      return [is({ k: 'owner-is', shard: f.shard, owner: f.entry })];
    case 'status':
      return [is({ k: 'status-is', member: f.member, status: f.status })];
    case 'deadline':
      return [is({ k: 'deadline-is', member: f.member, at: f.at })];
  }
}

/** The required checks each commit of `h` lacks (empty when every consulted fact is checked). */
function unchecked(h: Harness): string[] {
  const missing: string[] = [];
  h.seen.forEach((s, i) => {
    const ops = s.plan.groups.flatMap((g) => g.ops);
    const scope = s.read === 'member' ? null : written(s);
    for (const f of s.facts) {
      const m = aboutMember(f);
      if (scope && (m === null || !scope.has(m))) continue;
      for (const r of required(f, s)) {
        if (!ops.some(r.ok)) missing.push(`commit ${i} (${s.read} read): ${r.want}`);
      }
    }
  });
  return [...new Set(missing)];
}

/** Ops of the commits of `h` that write `k`-operations matching `match`. */
function commitsWith(h: Harness, match: (op: PlanOp) => boolean): Seen[] {
  return h.seen.filter((s) => s.plan.groups.some((g) => g.ops.some(match)));
}

const fencedAs = (id: string, fence: 'BLOCKING' | 'RELEASED') => (op: PlanOp) =>
  op.k === 'record' && op.member === id && op.record.state === 'FENCED' && op.record.fence === fence;

describe('commit read-set > every consulted fact is checked at commit', () => {
  it.each<[string, (h: Harness) => Promise<(op: PlanOp) => boolean>]>([
    [
      'heartbeat: a join, its assignment round and its grant',
      async (h) => {
        await h.beat('A', { epoch: 0, mv: 0 });
        return (op) => op.k === 'joined-record' && op.member === 'A';
      },
    ],
    [
      'heartbeat: a report accepted, with a shard pending behind another holder',
      async (h) => {
        await h.twoSettled();
        await h.beat('C', { epoch: 0, mv: 0 });
        await h.beat('C', { epoch: 4, mv: 4 }); // shard 3 pending behind B
        return (op) => op.k === 'record' && op.member === 'C' && op.record.state === 'ACTIVE';
      },
    ],
    [
      'heartbeat: the previous epoch after a lost answer',
      async (h) => {
        await h.twoSettled();
        await h.beat('C', { epoch: 0, mv: 0 });
        await h.beat('A', { epoch: 3, mv: 3, owned: [0, 1] });
        await h.beat('A', { epoch: 3, mv: 3, owned: [0, 1] });
        return (op) => op.k === 'record' && op.member === 'A' && op.record.previousEpoch === 3;
      },
    ],
    [
      'heartbeat: a leave',
      async (h) => {
        await h.twoSettled();
        await h.beat('A', { epoch: -1, mv: 3, revoking: [{ shard: 0, state: 'DRAINING' }] });
        return (op) => op.k === 'record' && op.member === 'A' && op.record.state === 'LEAVING';
      },
    ],
    [
      'heartbeat: the epoch-0 rejoin of a member fenced with blocking holdings',
      async (h) => {
        await h.twoSettled();
        await h.beat('A', { epoch: 3, mv: 3, owned: [0, 1, 2] });
        await h.beat('A', { epoch: 0, mv: 0 });
        return fencedAs('A', 'BLOCKING');
      },
    ],
    [
      'heartbeat: a report outside the authority fences',
      async (h) => {
        await h.twoSettled();
        await h.beat('A', { epoch: 3, mv: 3, owned: [0, 1, 2] });
        return fencedAs('A', 'BLOCKING');
      },
    ],
    [
      'heartbeat: the member’s own rebalance deadline has passed',
      async (h) => {
        await h.twoSettled();
        await h.beat('C', { epoch: 0, mv: 0 }); // B is to give up shard 3
        h.advance(1000);
        await h.beat('B', { epoch: 3, mv: 3, owned: [2, 3] });
        return fencedAs('B', 'RELEASED');
      },
    ],
    [
      'heartbeat: a higher metadata version opens a correction round',
      async (h) => {
        await h.twoSettled();
        await h.beat('A', { epoch: 3, mv: 9, owned: [0, 1] });
        return (op) => op.k === 'round' && op.round !== null;
      },
    ],
    [
      'maintenance: a lapsed lease expires the member',
      async (h) => {
        await h.twoSettled();
        h.advance(CONFIG.memberLeaseTtlMs + 1);
        await h.beat('A', { epoch: 3, mv: 3, owned: [0, 1] });
        await h.sweep();
        return (op) => op.k === 'record' && op.record.state === 'EXPIRED';
      },
    ],
    [
      'maintenance: a rebalance deadline fences, and an assignment round sets and clears deadlines',
      async (h) => {
        await h.twoSettled();
        await h.beat('C', { epoch: 0, mv: 0 }); // the round gives B a deadline
        await h.beat('D', { epoch: 0, mv: 0 });
        await h.beat('D', { epoch: -1, mv: 5 }); // the round after D's leave
        h.advance(1000);
        await h.sweep();
        return fencedAs('B', 'RELEASED');
      },
    ],
    [
      'maintenance: a blocking fence lapses at its lease, then the member is pruned',
      async (h) => {
        await h.twoSettled();
        await h.beat('A', { epoch: 2, mv: 3, owned: [0, 1] });
        h.advance(CONFIG.memberLeaseTtlMs + 1);
        await h.sweep();
        h.advance(CONFIG.staleMemberRetentionMs);
        await h.beat('B', { epoch: 4, mv: 5, owned: [2, 3] });
        await h.sweep();
        return (op) => op.k === 'delete-member' && op.member === 'A';
      },
    ],
  ])('%s', async (_name, scenario) => {
    const h = await Harness.open(4, 1000);
    const decided = await scenario(h);
    expect(commitsWith(h, decided).length).toBeGreaterThan(0);
    // Facts were consulted and checked (the oracle is not vacuous).
    expect(h.seen.some((s) => s.facts.length > 0)).toBe(true);
    expect(unchecked(h)).toEqual([]);
  });

  it('covers the kinds of decisions the table names', async () => {
    const h = await Harness.open(4, 1000);
    await h.twoSettled();
    await h.beat('C', { epoch: 0, mv: 0 });
    h.advance(1000);
    await h.sweep();
    const g = await h.group();
    expect(g.members.B).toMatchObject({ state: 'FENCED', fence: 'RELEASED' });
    const kinds = new Set(h.seen.map((s) => s.read));
    expect([...kinds].sort()).toEqual(['assignment', 'member', 'members']);
    expect(unchecked(h)).toEqual([]);
  });
});

describe('commit read-set > the checks a read set adds hold only while their fact does', () => {
  it('checks a deadline score, a holder status and a target read with absent counted as empty', async () => {
    const h = await Harness.open(4, 1000);
    await h.twoSettled();
    await h.beat('C', { epoch: 0, mv: 0 }); // B gets a deadline; C's target is [3]
    const deadline = (await h.group()).members.B!.rebalanceDeadlineAt;
    expect(deadline).toBe(T0 + 1000);
    const holds = async (check: PlanOp): Promise<boolean> => {
      const res = await h.stack.store.commit({
        prefix: h.prefix,
        groups: [{ name: h.prefix, ops: [{ k: 'group-exists' }, check, { k: 'touch', at: T0 }] }],
      });
      return res.ok;
    };
    const cases: Array<[PlanOp, boolean]> = [
      [{ k: 'deadline-is', member: 'B', at: deadline }, true],
      [{ k: 'deadline-is', member: 'B', at: T0 + 999 }, false],
      [{ k: 'deadline-is', member: 'B', at: null }, false],
      [{ k: 'deadline-is', member: 'A', at: null }, true],
      [{ k: 'deadline-is', member: 'A', at: T0 }, false],
      [{ k: 'status-is', member: 'A', status: 'A' }, true],
      [{ k: 'status-is', member: 'A', status: 'B' }, false],
      [{ k: 'status-is', member: 'A', status: null }, false],
      [{ k: 'status-is', member: 'nobody', status: null }, true],
      [{ k: 'status-is', member: 'nobody', status: 'X' }, false],
      [{ k: 'target-is', member: 'C', target: [3], emptyIfAbsent: true }, true],
      [{ k: 'target-is', member: 'C', target: [2, 3], emptyIfAbsent: true }, false],
      [{ k: 'target-is', member: 'C', target: [], emptyIfAbsent: true }, false],
      [{ k: 'target-is', member: 'nobody', target: [], emptyIfAbsent: true }, true],
      [{ k: 'target-is', member: 'nobody', target: [0], emptyIfAbsent: true }, false],
    ];
    const outcomes: Array<[PlanOp, boolean]> = [];
    for (const [check] of cases) outcomes.push([check, await holds(check)]);
    expect(outcomes).toEqual(cases);
  });
});
