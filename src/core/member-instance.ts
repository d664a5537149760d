/**
 * One process per member id. Our SDK sends `memberInstanceId`, a random
 * token of the member object, with every heartbeat; the coordinator keeps the one it saw last
 * in the member record and refuses a different instance while the record still holds the id.
 * Reference clients never send the field and are never refused for it.
 */
import { CoordinatorError } from './errors.js';
import type { HeartbeatInput } from './heartbeat-types.js';
import { isLive, type MemberRecord } from './model.js';

/**
 * True while `m` holds its member id for its instance at `now`: live with its lease running,
 * or fenced with holdings that still block others (its process may still be reading them).
 * A member that left, expired or whose fence released its holdings frees the id.
 */
export function holdsMemberId(m: MemberRecord, now: number): boolean {
  if (now > m.memberLeaseExpiresAt) return false;
  return isLive(m.state) || (m.state === 'FENCED' && m.fence === 'BLOCKING');
}

/**
 * True when `request` comes from another instance than the one holding `stored`. Unknown on
 * either side (a reference client, or a record written before instance ids) is no conflict.
 */
export function isSharedMemberId(stored: MemberRecord | null, request: HeartbeatInput, now: number): boolean {
  const mine = request.memberInstanceId;
  const theirs = stored?.memberInstanceId;
  if (!stored || !mine || !theirs || mine === theirs) return false;
  return holdsMemberId(stored, now);
}

/** The 409 a second process sharing a member id gets. */
function memberIdInUse(memberId: string): CoordinatorError {
  return new CoordinatorError(
    'MEMBER_ID_IN_USE',
    `member id ${memberId} is in use by another process; give each process a unique member id (memberBase)`,
  );
}

/** Throws MEMBER_ID_IN_USE when `request` shares the member id of another, live instance. */
export function refuseSharedMemberId(
  stored: MemberRecord | null,
  request: HeartbeatInput,
  now: number,
): void {
  if (isSharedMemberId(stored, request, now)) throw memberIdInUse(request.memberId);
}

/**
 * True when `request` is older than a request of the same instance already recorded in `stored`
 * (docs/protocol.md#request-order): a copy that outlived the SDK's timeout. Unknown on either
 * side (no instance id or no sequence) is never late; an equal sequence is a repeat of the latest.
 */
export function isLateRequest(stored: MemberRecord | null, request: HeartbeatInput): boolean {
  const seq = request.requestSeq;
  if (!stored || typeof seq !== 'number' || stored.lastRequestSeq === undefined) return false;
  if (!request.memberInstanceId || request.memberInstanceId !== stored.memberInstanceId) return false;
  return seq < stored.lastRequestSeq;
}

/**
 * `member` carrying the request's instance id (adopted when the record had none, replaced on a
 * rejoin) and, from that instance, its request sequence (never lowered; a new instance starts
 * from its own, so no other instance's counter is compared with it).
 */
export function withInstance(member: MemberRecord, request: HeartbeatInput): MemberRecord {
  const id = request.memberInstanceId;
  if (!id) return member;
  const seq = typeof request.requestSeq === 'number' ? request.requestSeq : undefined;
  const sameInstance = member.memberInstanceId === id;
  const kept = sameInstance ? member.lastRequestSeq : undefined;
  const next = seq === undefined ? kept : Math.max(seq, kept ?? seq);
  if (sameInstance && next === member.lastRequestSeq) return member;
  const { lastRequestSeq: _, ...rest } = member;
  return { ...rest, memberInstanceId: id, ...(next === undefined ? {} : { lastRequestSeq: next }) };
}
