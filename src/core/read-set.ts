/**
 * What a decision read, fact by fact, and the checks its commit makes from it. The views that
 * decisions read through (a heartbeat's `MemberView`, maintenance's due members, the assignment
 * round's input) record each stored fact as it is consulted; the commit plan then
 * requires every recorded fact to still hold (docs/protocol.md#invariants: every change commits
 * only if what it read is unchanged). No decision adds checks of its own, so a new input that a
 * decision starts to consult is checked without anyone remembering to.
 *
 * Facts about the group as a whole are guarded elsewhere and not recorded: the stream document
 * by its revision (every plan checks it), the targets by the assignment lock (only a round writes
 * them), and the header's counters move by relative increments, so an answer computed from older
 * counters is merely one heartbeat behind.
 */
import {
  type HolderStatus,
  type OwnerEntry,
  ordered,
  type PlanOp,
  type RecordAt,
  statusBlocks,
} from './commit-plan.js';
import type { DueMember } from './maintenance.js';
import type { GroupHeader, MemberView, StreamView } from './member-view.js';

/** A member's target as read: null when none was stored; `emptyIfAbsent` when the read could not tell. */
interface TargetRead {
  shards: readonly number[] | null;
  emptyIfAbsent?: boolean;
}

/** Stored facts a decision consulted, each as it was read (null = absent). */
export interface ReadSet {
  /** Member record revisions. */
  records: Map<string, number | null>;
  targets: Map<string, TargetRead>;
  /** Scores in the deadline index. */
  deadlines: Map<string, number | null>;
  /** Leases seen run out, with the lease as read: still run out at commit (no renewal since). */
  lapsed: Map<string, number>;
  /** Ownership entries by shard. */
  owners: Map<number, OwnerEntry | null>;
  /** Holder statuses by member. */
  statuses: Map<string, HolderStatus | null>;
}

/** An empty read set. */
export function newReadSet(): ReadSet {
  return {
    records: new Map(),
    targets: new Map(),
    deadlines: new Map(),
    lapsed: new Map(),
    owners: new Map(),
    statuses: new Map(),
  };
}

/**
 * Records that member `id`'s record was read as `at` at `now`: its revision, and the facts the
 * read merged into it from beside the record — its rebalance deadline, and its lease when that
 * had run out (a running lease is only ever extended, and a record that stops being live is
 * rewritten, so the revision covers it).
 */
function noteRecord(reads: ReadSet, id: string, at: RecordAt | null, now: number): void {
  reads.records.set(id, at?.rev ?? null);
  if (!at) return;
  reads.deadlines.set(id, at.record.rebalanceDeadlineAt);
  if (now > at.record.memberLeaseExpiresAt) reads.lapsed.set(id, at.record.memberLeaseExpiresAt);
}

/**
 * Records the ownership entry of `shard` as read, and the status of its holder when it is
 * another member (`self`); `holders` gives that status. Unread entries (undefined) are not facts.
 */
export function noteOwner(
  reads: ReadSet,
  shard: number,
  entry: OwnerEntry | null | undefined,
  self: string | null,
  holders?: ReadonlyMap<string, HolderStatus | null>,
): void {
  if (entry === undefined) return;
  reads.owners.set(shard, entry);
  if (entry && holders && entry.memberId !== self) {
    reads.statuses.set(entry.memberId, holders.get(entry.memberId) ?? null);
  }
}

/** `owners` that records into `reads` each entry a plan builder looks up (or every one, when it iterates). */
export function recordingOwners(
  owners: ReadonlyMap<number, OwnerEntry | null>,
  reads: ReadSet,
): ReadonlyMap<number, OwnerEntry | null> {
  return new RecordingOwners(owners, reads);
}

class RecordingOwners implements ReadonlyMap<number, OwnerEntry | null> {
  constructor(
    private readonly inner: ReadonlyMap<number, OwnerEntry | null>,
    private readonly reads: ReadSet,
  ) {}

  get size(): number {
    return this.inner.size;
  }

  get(shard: number): OwnerEntry | null | undefined {
    const entry = this.inner.get(shard);
    noteOwner(this.reads, shard, entry, null);
    return entry;
  }

  has(shard: number): boolean {
    return this.inner.has(shard);
  }

  *entries(): MapIterator<[number, OwnerEntry | null]> {
    for (const [shard, entry] of this.inner) {
      noteOwner(this.reads, shard, entry, null);
      yield [shard, entry];
    }
  }

  keys(): MapIterator<number> {
    return this.inner.keys();
  }

  *values(): MapIterator<OwnerEntry | null> {
    for (const [, entry] of this.entries()) yield entry;
  }

  forEach(
    fn: (entry: OwnerEntry | null, shard: number, map: ReadonlyMap<number, OwnerEntry | null>) => void,
  ): void {
    for (const [shard, entry] of this.entries()) fn(entry, shard, this);
  }

  [Symbol.iterator](): MapIterator<[number, OwnerEntry | null]> {
    return this.entries();
  }
}

/** Adds every fact of `from` to `into`. */
export function mergeReads(into: ReadSet, from: ReadSet): void {
  for (const [k, v] of from.records) into.records.set(k, v);
  for (const [k, v] of from.targets) into.targets.set(k, v);
  for (const [k, v] of from.deadlines) into.deadlines.set(k, v);
  for (const [k, v] of from.lapsed) into.lapsed.set(k, v);
  for (const [k, v] of from.owners) into.owners.set(k, v);
  for (const [k, v] of from.statuses) into.statuses.set(k, v);
}

/** The checks that hold exactly while every fact of `reads` does. */
function checksOf(reads: ReadSet): PlanOp[] {
  const ops: PlanOp[] = [];
  for (const [member, rev] of reads.records) ops.push({ k: 'record-rev', member, rev });
  for (const [member, t] of reads.targets) {
    ops.push(
      t.emptyIfAbsent
        ? { k: 'target-is', member, target: t.shards ?? [], emptyIfAbsent: true }
        : { k: 'target-is', member, target: t.shards },
    );
  }
  for (const [member, at] of reads.deadlines) ops.push({ k: 'deadline-is', member, at });
  for (const [member, lease] of reads.lapsed) ops.push({ k: 'lease-at-most', member, lease });
  for (const [shard, owner] of reads.owners) ops.push({ k: 'owner-is', shard, owner });
  for (const [member, status] of reads.statuses) ops.push({ k: 'status-is', member, status });
  return ops;
}

/**
 * A plan's operations: the checks of `reads`, then `ops` (whose own checks — the revision a write
 * replaces, the entries it takes over — are kept once when `reads` has them too), checks first.
 */
export function withChecks(reads: ReadSet, ops: readonly PlanOp[]): PlanOp[] {
  const checks = checksOf(reads);
  const have = new Set(checks.map((op) => JSON.stringify(op)));
  // Only an op of a kind `checksOf` makes can repeat one: writes, which carry whole records and
  // answers, are not serialised just to find that out.
  const repeats = (op: PlanOp) => CHECK_KINDS.has(op.k) && have.has(JSON.stringify(op));
  return ordered([...checks, ...ops.filter((op) => !repeats(op))]);
}

/** The kinds of operation `checksOf` makes. */
const CHECK_KINDS: ReadonlySet<PlanOp['k']> = new Set([
  'record-rev',
  'target-is',
  'deadline-is',
  'lease-at-most',
  'owner-is',
  'status-is',
]);

/** What one member read holds, as the store answers it (its heartbeat read has this shape). */
export interface MemberReadParts {
  head: StreamView;
  header: GroupHeader;
  member: RecordAt | null;
  target: readonly number[];
  /** Whether a target is stored at all (an empty one counts). */
  targetStored: boolean;
  owners: ReadonlyMap<number, OwnerEntry | null>;
  holders: ReadonlyMap<string, HolderStatus | null>;
  acknowledged: boolean;
  liveMembers: number;
}

/**
 * Member `id`'s view over `read` at `now` that records into `reads` each stored fact a decision
 * consults: its record (with the deadline and lease merged into it), its target, and for every
 * shard asked about, the ownership entry and the status of another holder.
 */
export function recordingView(read: MemberReadParts, id: string, reads: ReadSet, now: number): MemberView {
  return {
    stream: read.head,
    header: read.header,
    get member() {
      noteRecord(reads, id, read.member, now);
      return read.member?.record ?? null;
    },
    get target() {
      reads.targets.set(id, { shards: read.targetStored ? read.target : null });
      return read.target;
    },
    blockedByOther(shard) {
      const entry = read.owners.get(shard);
      noteOwner(reads, shard, entry, id, read.holders);
      return !!entry && entry.memberId !== id && statusBlocks(read.holders.get(entry.memberId) ?? null);
    },
    acknowledged: read.acknowledged,
    liveMembers: read.liveMembers,
  };
}

/**
 * A due member whose record and target record themselves into `reads` when maintenance consults
 * them. The read of several members cannot tell an absent target from an empty one, and
 * maintenance treats both alike, so either satisfies the check.
 */
export function recordingDueMember(
  id: string,
  stored: RecordAt,
  target: () => readonly number[],
  reads: ReadSet,
  now: number,
): DueMember {
  return {
    get member() {
      noteRecord(reads, id, stored, now);
      return stored.record;
    },
    get target() {
      const shards = target();
      reads.targets.set(id, { shards, emptyIfAbsent: true });
      return shards;
    },
  };
}
