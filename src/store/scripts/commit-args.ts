/**
 * Encodes a StreamPlan as the KEYS/ARGV of the commit script and decodes its reply. Shared by
 * every Store implementation so they all speak the same script protocol.
 */
import type { DerivedIndex, Fingerprint, PlanOp } from '../../core/commit-plan.js';
import { CoordinatorError } from '../../core/errors.js';
import { groupDamaged } from '../damage.js';
import { dueIndexKeys, encodedGroup, groupKeyList, groupKeys, streamKeys } from '../keys.js';
import { encodeMember, encodeOwner, encodeRound, encodeStreamHead } from '../records.js';
import { encodeShards } from '../shard-ranges.js';
import type { CommitOutcome, HeaderValues, StreamPlan } from '../store.js';

/** Keys and arguments for one script call. */
export interface ScriptCall {
  keys: string[];
  args: string[];
}

function bug(message: string): CoordinatorError {
  return new CoordinatorError('INTERNAL_ERROR', `invalid commit: ${message}`);
}

/** Epoch milliseconds as the integer text Lua compares and Redis stores. */
function ms(n: number): string {
  if (!Number.isFinite(n)) throw bug(`time ${n} is not finite`);
  return String(Math.floor(n));
}

const utf8 = new TextEncoder();

/**
 * The stored fast-path entry: everything the answer depends on, then the answer —
 * `ge|ae|mv|streamRev|memberRev|target|keyBytes|key|nWaits|` then per pending shard
 * `shard,status,entryBytes:entry|`, then the answer's JSON.
 */
function fingerprintText(f: Fingerprint): string {
  const head = [
    String(f.groupEpoch),
    String(f.assignmentEpoch),
    String(f.metadataVersion),
    String(f.streamRev),
    String(f.memberRev),
    encodeShards(f.target),
    String(utf8.encode(f.key).length),
    f.key,
    String(f.waits.length),
  ].join('|');
  const waits = f.waits
    .map((w) => {
      const entry = encodeOwner(w.owner);
      return `${w.shard},${w.status},${utf8.encode(entry).length}:${entry}|`;
    })
    .join('');
  return `${head}|${waits}${JSON.stringify(f.response)}`;
}

/** Where each derived index sits among a group's keys (slot 1 = the header; `GROUP_KEY_PARTS` order). */
const INDEX_SLOT: Record<DerivedIndex, number> = {
  status: 3,
  targets: 4,
  owners: 5,
  leases: 6,
  live: 7,
  fast: 8,
  timers: 10,
};

/** The script arguments of one group operation (`g` = the group's index, 1-based). */
function encodeOp(op: PlanOp, g: number): string[] {
  const G = String(g);
  switch (op.k) {
    case 'group-exists':
      return ['ge', G];
    case 'record-rev':
      return ['rr', G, op.member, op.rev === null ? '-' : String(op.rev)];
    case 'target-is':
      if (op.emptyIfAbsent) return ['te', G, op.member, encodeShards(op.target ?? [])];
      return ['ti', G, op.member, op.target === null ? '-' : encodeShards(op.target)];
    case 'deadline-is':
      return ['di', G, op.member, op.at === null ? '-' : ms(op.at)];
    case 'status-is':
      return ['si', G, op.member, op.status ?? '-'];
    case 'owner-is':
      return ['oi', G, String(op.shard), op.owner === null ? '-' : encodeOwner(op.owner)];
    case 'owner-mine':
      return ['om', G, String(op.shard), op.member];
    case 'lease-at-most':
      return ['la', G, op.member, ms(op.lease)];
    case 'live-below':
      return ['lb', G, op.member, String(op.count)];
    case 'round-is':
      return ['ri', G, op.round === null ? '-' : encodeRound(op.round)];
    case 'token-is':
      return ['ki', G, op.token];
    case 'members-are':
      return ['mc', G, String(op.count)];
    case 'reset-group':
      return [
        'gX',
        G,
        ...[
          'ge',
          op.groupEpoch,
          'ae',
          op.groupEpoch,
          'mv',
          op.metadataVersion,
          'ca',
          op.createdAt,
          'ua',
          op.at,
        ]
          .map(String)
          .flatMap((v, i, all) => (i % 2 === 0 ? ['hs', G, v, all[i + 1]!] : [])),
        'hs',
        G,
        'rc',
        ms(op.holdUntil),
      ];
    case 'wipe-index':
      return ['kD', G, String(INDEX_SLOT[op.index])];
    case 'record':
      return ['ms', G, op.member, encodeMember(op.rev, op.record)];
    case 'joined-record':
      return ['mj', G, op.member, encodeMember(op.rev, op.record), String(op.floor)];
    case 'delete-member':
      return ['md', G, op.member];
    case 'status':
      return ['ss', G, op.member, op.status];
    case 'target':
      return ['ts', G, op.member, encodeShards(op.target)];
    case 'delete-target':
      return ['td', G, op.member];
    case 'owner':
      return ['os', G, String(op.shard), encodeOwner(op.owner)];
    case 'release-owner':
      return ['or', G, String(op.shard), op.member];
    case 'lease':
      return ['ls', G, op.member, ms(op.at)];
    case 'drop-lease':
      return ['lr', G, op.member];
    case 'live':
      return ['vs', G, op.member, ms(op.at), op.progress === null ? '' : JSON.stringify(op.progress)];
    case 'deadline':
      return [op.ifAbsent ? 'dn' : 'ds', G, op.member, ms(op.at)];
    case 'drop-deadline':
      return ['dr', G, op.member];
    case 'timer':
      return ['zs', G, op.member, ms(op.at)];
    case 'drop-timer':
      return ['zr', G, op.member];
    case 'bump': {
      const out: string[] = [];
      if (op.group !== 0) out.push('hi', G, 'ge', String(op.group), 'hn', G, 'pa', ms(op.at));
      if (op.metadata !== 0) out.push('hi', G, 'mv', String(op.metadata));
      return out;
    }
    case 'assignment-epoch':
      return ['ae', G, String(op.value), ms(op.at)];
    case 'round':
      if (op.round === null) return ['hd', G, 'cr', 'ax', G];
      return [...(op.freshAcks ? ['ax', G] : []), 'hs', G, 'cr', encodeRound(op.round)];
    case 'ack':
      return ['as', G, op.member];
    case 'touch':
      return ['hs', G, 'ua', ms(op.at)];
    case 'fingerprint':
      return ['fs', G, op.member, fingerprintText(op.fingerprint)];
    case 'release-lock':
      if (op.unlessMovedFrom !== undefined) {
        return ['kc', G, op.token, String(op.unlessMovedFrom), String(Math.max(1, Math.floor(op.ms)))];
      }
      return ['kr', G, op.token, String(Math.max(0, Math.floor(op.ms)))];
  }
}

/**
 * How long a commit token stays stored: far longer than any resend of the same call (a client
 * reconnect, the critical section's in-doubt resends), short enough to leave nothing behind.
 */
const COMMIT_TOKEN_TTL_MS = 60_000;

/**
 * Builds the commit script call for `plan` in namespace `ns`; with `due`, the commit also lowers
 * the stream's time in the due index (only where every key shares one slot).
 */
export function encodeCommit(ns: string, plan: StreamPlan, due?: { at: number }): ScriptCall {
  const sk = streamKeys(ns, plan.prefix);
  const keys = [sk.stream, sk.lock, sk.commit];
  for (const g of plan.groups) keys.push(...groupKeyList(groupKeys(ns, plan.prefix, g.name)));
  const args = [String(plan.groups.length), ...plan.groups.map((g) => encodedGroup(g.name))];
  if (plan.lock !== undefined) args.push('lk', '0', plan.lock);
  if (plan.expect === 'absent') args.push('sx', '0');
  else if (plan.expect !== undefined) args.push('sr', '0', String(plan.expect.rev));
  plan.groups.forEach((g, i) => {
    const G = String(i + 1);
    if (g.create) args.push('gn', G);
    for (const op of g.ops) args.push(...encodeOp(op, i + 1));
    if (g.create) {
      const c = g.create;
      args.push(
        'gc',
        G,
        String(c.groupEpoch),
        String(c.assignmentEpoch),
        String(c.metadataVersion),
        ms(c.at),
      );
    }
    if (g.delete) args.push('gX', G);
  });
  if (plan.stream === null) args.push('sX', '0');
  else if (plan.stream)
    args.push('sd', '0', JSON.stringify(plan.stream.doc), encodeStreamHead(plan.stream.head));
  if (plan.passAt !== undefined) args.push('sp', '0', ms(plan.passAt));
  if (plan.token !== undefined) args.push('ct', '0', plan.token, String(COMMIT_TOKEN_TTL_MS));
  if (due) {
    const d = dueIndexKeys(ns);
    keys.push(d.at, d.claims, d.late);
    args.push('dm', '0', plan.prefix, ms(due.at));
  }
  return { keys, args };
}

/** Decodes the commit script's reply. */
export function decodeCommitReply(reply: unknown, plan: StreamPlan): CommitOutcome {
  const groups = plan.groups.length;
  const a = Array.isArray(reply) ? reply : [];
  const code = Number(a[0]);
  if (code === -3) {
    const name = plan.groups[Number(a[1]) - 1]?.name ?? '?';
    throw groupDamaged(plan.prefix, name, a.slice(2).map(String));
  }
  if (code === 0) return { ok: false, failedCheck: Number(a[1]) };
  if (code === -1) return { ok: false, failedCheck: Number(a[1]), lockLost: true };
  if (code !== 1 && code !== 2)
    throw new CoordinatorError('INTERNAL_ERROR', 'unexpected reply from the commit script');
  const headers: Array<HeaderValues | null> = [];
  for (let i = 0; i < groups; i++) {
    const [ge, ae, mv] = [a[2 + i * 3], a[3 + i * 3], a[4 + i * 3]];
    headers.push(
      ge === null || ge === undefined
        ? null
        : { groupEpoch: Number(ge), assignmentEpoch: Number(ae), metadataVersion: Number(mv) },
    );
  }
  const streamRev = a[1] === null || a[1] === undefined ? null : Number(a[1]);
  return code === 2 ? { ok: true, streamRev, headers, replayed: true } : { ok: true, streamRev, headers };
}
