/**
 * Encodes a CommitRequest as the KEYS/ARGV of the commit script and decodes its reply. Shared by
 * every Store implementation so they all speak the same script protocol.
 */
import { CoordinatorError } from '../../core/errors.js';
import { groupKeyList, groupKeys, streamKeys } from '../keys.js';
import type { CommitRequest, CommitResult } from '../store.js';

/** Keys and arguments for one script call. */
export interface ScriptCall {
  keys: string[];
  args: string[];
}

function bug(message: string): CoordinatorError {
  return new CoordinatorError('INTERNAL_ERROR', `invalid commit: ${message}`);
}

/** Epoch milliseconds as the integer text Lua compares and Redis stores. */
export function ms(n: number): string {
  if (!Number.isFinite(n)) throw bug(`time ${n} is not finite`);
  return String(Math.floor(n));
}

/** Every group the request touches, sorted so key order is deterministic. */
function touchedGroups(req: CommitRequest): string[] {
  const names = new Set<string>([
    ...Object.keys(req.groups ?? {}),
    ...Object.keys(req.expiries ?? {}),
    ...Object.keys(req.leases ?? {}),
    ...Object.keys(req.fastPathUntil ?? {}),
  ]);
  if (req.progress) names.add(req.progress.group);
  if (req.fastPath) names.add(req.fastPath.group);
  return [...names].sort();
}

/** Builds the commit script call for `req` in namespace `ns`. Throws on a malformed request. */
export function encodeCommit(ns: string, req: CommitRequest): ScriptCall {
  if (!Number.isSafeInteger(req.expectedRevision) || req.expectedRevision < 0) {
    throw bug(`expectedRevision ${req.expectedRevision}`);
  }
  if (req.deleteStream && req.stream) throw bug('stream and deleteStream are exclusive');
  if (req.expectedRevision === 0 && !req.stream) throw bug('creating a stream needs its document');

  const keys = [streamKeys(ns, req.prefix).stream];
  const streamOp = req.stream ? 'set' : req.deleteStream ? 'del' : '-';
  const args = [String(req.expectedRevision), streamOp, req.stream ? JSON.stringify(req.stream) : ''];
  const names = touchedGroups(req);
  args.push(String(names.length));

  for (const g of names) {
    keys.push(...groupKeyList(groupKeys(ns, req.prefix, g)));
    const doc = req.groups?.[g];
    const until = req.fastPathUntil?.[g];
    if (doc && until === undefined) throw bug(`fastPathUntil missing for group "${g}"`);
    args.push(doc === undefined ? '-' : doc === null ? 'del' : 'set', doc ? JSON.stringify(doc) : '');
    args.push(until === undefined ? '' : ms(until));

    const members = doc ? Object.keys(doc.members) : [];
    args.push(String(members.length), ...members);

    const expiries = req.expiries?.[g] ?? [];
    args.push(String(expiries.length));
    for (const e of expiries) args.push(e.memberId, ms(e.observedLeaseExpiresAt));

    const leases = req.leases?.[g] ?? [];
    args.push(String(leases.length));
    for (const l of leases) args.push(l.memberId, l.live ? '1' : '0', ms(l.leaseExpiresAt));

    // Live-hash writes: each lease write's heartbeat time, combined with the requester's progress.
    const live = new Map<string, { at: number; progress?: string }>();
    for (const l of leases) {
      const prev = live.get(l.memberId);
      live.set(l.memberId, { at: Math.max(prev?.at ?? l.lastHeartbeatAt, l.lastHeartbeatAt) });
    }
    const p = req.progress?.group === g ? req.progress : undefined;
    if (p) {
      const prev = live.get(p.memberId);
      live.set(p.memberId, { at: Math.max(prev?.at ?? p.at, p.at), progress: p.json });
    }
    args.push(String(live.size));
    for (const [member, w] of live) {
      args.push(member, ms(w.at), w.progress === undefined ? '0' : '1', w.progress ?? '');
    }

    const f = req.fastPath?.group === g ? req.fastPath : undefined;
    if (f) args.push('1', f.memberId, f.key, f.response);
    else args.push('0');
  }
  return { keys, args };
}

/** Decodes the commit script's reply. */
export function decodeCommitReply(reply: unknown): CommitResult {
  const [code, rev] = Array.isArray(reply) ? reply : [];
  if (Number(code) === 1) return { ok: true, revision: Number(rev) };
  if (Number(code) === 0) return { ok: false, reason: 'conflict' };
  if (Number(code) === -1) return { ok: false, reason: 'lease-renewed' };
  throw new CoordinatorError('INTERNAL_ERROR', 'unexpected reply from the commit script');
}
