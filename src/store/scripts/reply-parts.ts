/**
 * Pieces every read-reply decoder shares: loose reply values as text, numbers, lists and field
 * pairs; the refusal of a layout-1 stream; the damage answers of the group scripts; and a member
 * record merged with its lease, heartbeat time and deadline.
 */
import type { RecordAt } from '../../core/commit-plan.js';
import type { CoordinatorError } from '../../core/errors.js';
import type { MemberRecord } from '../../core/model.js';
import { corrupt } from '../codec.js';
import { groupDamaged, headerLost } from '../damage.js';

/**
 * The answer to a stream whose hash lacks the layout-2 marker (the read scripts' {-2}): layout 1,
 * one JSON document per group, was only ever written by unreleased development builds and is
 * not read, so the stream is refused like any other unreadable metadata, and nothing is written.
 */
export function layout1Refused(prefix: string): CoordinatorError {
  return corrupt(
    prefix,
    "it is in layout 1 (one JSON document per group), written only by unreleased development builds; this coordinator reads layout 2 only: delete the stream's coordinator keys (or the whole key namespace) and create the stream again",
  );
}

/**
 * `read()`, or — when a derived index holds an entry that does not decode — the damage as a lost
 * `part`, which the coordinator rebuilds from the member records like a missing key.
 */
export function derived<T>(prefix: string, group: string, part: string, read: () => T): T {
  try {
    return read();
  } catch {
    throw groupDamaged(prefix, group, [part]);
  }
}

/** Throws when a group read answered that the group lost part of its state ({-6, parts} or {-7}). */
export function damaged(prefix: string, group: string, a: unknown[]): void {
  const code = Number(a[0]);
  if (code === -6)
    throw groupDamaged(
      prefix,
      group,
      list(a[1]).map((x) => str(x) ?? '?'),
    );
  if (code === -7) throw headerLost(prefix, group);
}

export function str(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (v instanceof Uint8Array) return new TextDecoder().decode(v);
  if (typeof v === 'number') return String(v);
  return null;
}

export function num(v: unknown): number | null {
  const s = str(v);
  if (s === null) return null;
  const n = Number(s);
  return Number.isFinite(n) ? n : null;
}

export function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

export function pairs(v: unknown): Array<[string, string]> {
  const a = list(v);
  const out: Array<[string, string]> = [];
  for (let i = 0; i + 1 < a.length; i += 2) out.push([str(a[i]) ?? '', str(a[i + 1]) ?? '']);
  return out;
}

export const STATUSES = new Set(['A', 'L', 'B', 'X']);

/** A record merged with what lives beside it: lease and heartbeat time by maximum, the deadline. */
export function merged(
  stored: RecordAt,
  lease: number | null,
  at: number | null,
  deadline: number | null,
): RecordAt {
  const r: MemberRecord = {
    ...stored.record,
    memberLeaseExpiresAt: Math.max(stored.record.memberLeaseExpiresAt, lease ?? Number.NEGATIVE_INFINITY),
    lastHeartbeatAt: Math.max(stored.record.lastHeartbeatAt, at ?? Number.NEGATIVE_INFINITY),
    rebalanceDeadlineAt: deadline,
  };
  return { rev: stored.rev, record: r };
}
