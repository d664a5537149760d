/**
 * When the time-driven work a commit creates falls due (docs/architecture.md#the-due-index): a
 * lease that can expire, a rebalance deadline, a timer (a blocking fence's lapse, a prune), an
 * assignment round a membership change made due, a stream whose resharding needs passes. The
 * store records the earliest of them in the namespace's due index before it commits, so the
 * sweep visits only streams with something due. Earlier than the truth is harmless (the visit
 * finds nothing and records the real next time); later would lose work, so every kind of
 * operation is classified below and a new kind does not compile until it is.
 */
import type { PlanOp } from './commit-plan.js';
import type { StreamDoc } from './model.js';

/** The parts of a commit plan that can create time-driven work. */
export interface DuePlan {
  stream?: { doc: StreamDoc; head: { resharding: boolean } } | null;
  groups: ReadonlyArray<{ delete?: boolean; ops: readonly PlanOp[] }>;
}

/** The time `op` makes its group due at, or null when it creates no time-driven work. */
export function opDueAt(op: PlanOp): number | null {
  switch (op.k) {
    case 'lease':
      // A renewal only moves a lease the due index already covers later.
      return op.renewal ? null : op.at;
    case 'deadline':
    case 'timer':
    case 'bump':
    case 'reset-group':
      return op.at;
    case 'group-exists':
    case 'record-rev':
    case 'target-is':
    case 'deadline-is':
    case 'status-is':
    case 'owner-is':
    case 'owner-mine':
    case 'lease-at-most':
    case 'live-below':
    case 'round-is':
    case 'token-is':
    case 'members-are':
    case 'wipe-index':
    case 'record':
    case 'joined-record':
    case 'delete-member':
    case 'status':
    case 'target':
    case 'delete-target':
    case 'owner':
    case 'release-owner':
    case 'drop-lease':
    case 'live':
    case 'drop-deadline':
    case 'drop-timer':
    case 'assignment-epoch':
    case 'round':
    case 'ack':
    case 'touch':
    case 'fingerprint':
    case 'release-lock':
      return null;
    default: {
      const unclassified: never = op;
      throw new Error(`unclassified plan operation ${JSON.stringify(unclassified)}`);
    }
  }
}

/** The earliest time the plan makes its stream due at, or null when it creates nothing time-driven. */
export function planDueAt(plan: DuePlan): number | null {
  let at: number | null = null;
  const consider = (t: number | null) => {
    if (t !== null && (at === null || t < at)) at = t;
  };
  // A resharding stream is visited right after the change; the visit records when it needs the next pass.
  if (plan.stream?.head.resharding) consider(plan.stream.doc.updatedAt);
  for (const g of plan.groups) {
    if (g.delete) continue;
    for (const op of g.ops) consider(opDueAt(op));
  }
  return at;
}
