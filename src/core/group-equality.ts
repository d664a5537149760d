/**
 * Equality of group documents as the store sees them: "durable" fields live in the
 * CAS-guarded document, liveness fields (leases, heartbeat times, progress) live beside it and
 * are written by the fast path (docs/protocol.md#concurrency).
 */

import { own } from './dict.js';
import { deepEqual } from './equal.js';
import type { GroupDoc, MemberRecord } from './model.js';

const GROUP_LIVENESS: ReadonlySet<string> = new Set(['updatedAt', 'members']);
const MEMBER_LIVENESS: ReadonlySet<string> = new Set([
  'memberLeaseExpiresAt',
  'lastHeartbeatAt',
  'shardProgress',
]);

/** True when a and b differ at most in liveness fields (memberLeaseExpiresAt, lastHeartbeatAt, shardProgress, updatedAt of group). */
export function durablyEqual(a: GroupDoc, b: GroupDoc): boolean {
  if (a === b) return true;
  if (!equalExcept(a, b, GROUP_LIVENESS)) return false;
  const ids = Object.keys(a.members);
  if (ids.length !== Object.keys(b.members).length) return false;
  for (const id of ids) {
    const x = own(a.members, id);
    const y = own(b.members, id);
    if (!x || !y) return false;
    if (x !== y && !equalExcept(x, y, MEMBER_LIVENESS)) return false;
  }
  return true;
}

/** True when a and b are equal in every field, liveness included. */
export function sameGroup(a: GroupDoc, b: GroupDoc): boolean {
  if (a === b) return true;
  if (a.updatedAt !== b.updatedAt || !durablyEqual(a, b)) return false;
  for (const [id, x] of Object.entries(a.members)) {
    const y = own(b.members, id) as MemberRecord;
    if (x.memberLeaseExpiresAt !== y.memberLeaseExpiresAt || x.lastHeartbeatAt !== y.lastHeartbeatAt)
      return false;
    if (!deepEqual(x.shardProgress, y.shardProgress)) return false;
  }
  return true;
}

/** Field-wise deep equality of two records, ignoring the `skip` keys (and undefined values). */
function equalExcept(x: object, y: object, skip: ReadonlySet<string>): boolean {
  const rx = x as Record<string, unknown>;
  const ry = y as Record<string, unknown>;
  for (const k of Object.keys(rx)) if (!skip.has(k) && !deepEqual(rx[k], ry[k])) return false;
  for (const k of Object.keys(ry))
    if (!skip.has(k) && rx[k] === undefined && ry[k] !== undefined) return false;
  return true;
}
