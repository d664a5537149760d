/**
 * Lifecycle lines (docs/operating.md#logs): a member joining, leaving, expiring or being fenced,
 * and a migration changing state, each get their own `info` line once its commit stands, so an
 * operator reads what happened to a group without diffing sweeps. Bounded: at most `burst` lines
 * per `windowMs`; the lines dropped beyond it are counted in the next line that gets through.
 */
import type { MemberRecord, MemberState, Migration, MigrationState } from '../core/model.js';
import type { CoordinatorEvent, Logger } from './context.js';

/** A committed change of a member's state (`to` null: its record was removed). */
export interface MemberChange {
  type: 'member';
  streamPrefix: string;
  consumerGroup: string;
  memberId: string;
  from: MemberState | null;
  to: MemberState | null;
}

/** A committed change of a migration's state. */
export interface MigrationChange {
  type: 'migration';
  streamPrefix: string;
  reshardingId: string;
  from: MigrationState | null;
  to: MigrationState;
}

/** The member changes between `before` and `after` records (`after` undefined: unchanged). */
export function memberChanges(
  streamPrefix: string,
  consumerGroup: string,
  changes: Iterable<readonly [string, MemberRecord | null, MemberRecord | null | undefined]>,
): MemberChange[] {
  const out: MemberChange[] = [];
  for (const [memberId, before, after] of changes) {
    if (after === undefined) continue;
    const from = before?.state ?? null;
    const to = after?.state ?? null;
    if (from !== to) out.push({ type: 'member', streamPrefix, consumerGroup, memberId, from, to });
  }
  return out;
}

/** The migrations whose state differs between two versions of a stream's history. */
export function migrationChanges(
  streamPrefix: string,
  before: readonly Migration[],
  after: readonly Migration[],
): MigrationChange[] {
  const was = new Map(before.map((m) => [m.reshardingId, m.state]));
  return after
    .filter((m) => was.get(m.reshardingId) !== m.state)
    .map((m) => ({
      type: 'migration',
      streamPrefix,
      reshardingId: m.reshardingId,
      from: was.get(m.reshardingId) ?? null,
      to: m.state,
    }));
}

/** The line a member change is worth, or null for routine steps (STARTING → ACTIVE, a pruned record). */
function memberLine(e: MemberChange): string | null {
  switch (e.to) {
    case 'STARTING':
    case 'ACTIVE':
      return e.from === 'STARTING' || e.from === 'ACTIVE' ? null : 'member joined';
    case 'LEAVING':
      return 'member leaving';
    case 'EXPIRED':
      return 'member expired';
    case 'FENCED':
      return 'member fenced';
    default:
      return e.from === 'LEAVING' ? 'member left' : null;
  }
}

/** Options of `lifecycleLog`. */
export interface LifecycleLogOptions {
  /** Lines written per window at most. @default 50 */
  burst?: number;
  /** The window, in ms of the monotonic clock. @default 10000 */
  windowMs?: number;
}

/** An `onEvent` listener that writes the lifecycle lines of member and migration events. */
export function lifecycleLog(
  log: Logger,
  monotonic: () => number,
  opts: LifecycleLogOptions = {},
): (e: CoordinatorEvent) => void {
  const burst = opts.burst ?? 50;
  const windowMs = opts.windowMs ?? 10_000;
  let windowStart = Number.NEGATIVE_INFINITY;
  let written = 0;
  let dropped = 0;
  const write = (msg: string, fields: Record<string, unknown>) => {
    const t = monotonic();
    if (t - windowStart >= windowMs) {
      windowStart = t;
      written = 0;
    }
    if (written >= burst) {
      dropped++;
      return;
    }
    written++;
    log('info', msg, dropped > 0 ? { ...fields, droppedLifecycleLines: dropped } : fields);
    dropped = 0;
  };
  return (e) => {
    if (e.type === 'member') {
      const msg = memberLine(e);
      const { type: _, ...fields } = e;
      if (msg) write(msg, fields);
    } else if (e.type === 'migration') {
      const { type: _, ...fields } = e;
      write('migration state changed', fields);
    }
  };
}
