/**
 * Decoders of the group read scripts' replies (member-read, assignment-read, members-read,
 * due-read, stream-probe, group-records; the whole load is in load-replies.ts): everything is
 * validated on the way in and fails closed with METADATA_CORRUPT.
 */
import type { HolderStatus, OwnerEntry, RecordAt } from '../../core/commit-plan.js';
import type { HeartbeatOutput } from '../../core/heartbeat-types.js';
import type { GroupHeader } from '../../core/member-view.js';
import { corrupt, parseLiveEntry, parseRevision } from '../codec.js';
import { groupDamaged, headerLost } from '../damage.js';
import { encodedGroup, groupKeyList, groupKeys, streamKeys } from '../keys.js';
import {
  decodeHeader,
  decodeMember,
  decodeOwner,
  decodeStreamHead,
  decodeTarget,
  fieldsOf,
  type StreamHead,
} from '../records.js';
import type {
  AssignmentRead,
  DueRead,
  GroupRecords,
  MemberRead,
  MemberReadRequest,
  MembersRead,
  SteadyReadRequest,
  StreamProbe,
} from '../store.js';
import type { ScriptCall } from './commit-args.js';
import { damaged, derived, layout1Refused, list, merged, num, pairs, STATUSES, str } from './reply-parts.js';

/** One group's script call: the stream hash and the group's 12 keys, the encoded group name first in ARGV. */
export function groupCall(ns: string, prefix: string, group: string, args: string[]): ScriptCall {
  return {
    keys: [streamKeys(ns, prefix).stream, ...groupKeyList(groupKeys(ns, prefix, group))],
    args: [encodedGroup(group), ...args],
  };
}

/** The member-read call. */
export function encodeMemberRead(ns: string, req: MemberReadRequest): ScriptCall {
  return groupCall(ns, req.prefix, req.group, [
    req.memberId,
    String(Math.floor(req.now)),
    req.fastKey ?? '',
    String(Math.floor(req.leaseExpiresAt)),
    req.progressJson,
    String(req.maxDue),
    req.shards.join(','),
    String(Math.max(0, Math.floor(req.recoveryHoldMs ?? 0))),
  ]);
}

/** The steady-read call: now, the lease, then (member, key, progress) per member. */
export function encodeSteadyRead(ns: string, req: SteadyReadRequest): ScriptCall {
  const args = [String(Math.floor(req.now)), String(Math.floor(req.leaseExpiresAt))];
  for (const m of req.members) args.push(m.memberId, m.fastKey, m.progressJson);
  return groupCall(ns, req.prefix, req.group, args);
}

/** Decodes the steady-read reply: one answer or null per member (all null on an empty reply). */
export function decodeSteadyRead(req: SteadyReadRequest, reply: unknown): Array<HeartbeatOutput | null> {
  const a = list(reply);
  return req.members.map((m, i) => {
    const text = str(a[i] ?? null);
    if (text === null) return null;
    try {
      return JSON.parse(text) as HeartbeatOutput;
    } catch {
      throw corrupt(req.prefix, `the fast-path answer of member "${m.memberId}" is unreadable`);
    }
  });
}

/** Decodes the member-read reply. */
export function decodeMemberRead(req: MemberReadRequest, reply: unknown): MemberRead {
  const { prefix, group, memberId } = req;
  const a = list(reply);
  const code = Number(a[0]);
  if (code === 0) return { kind: 'no-stream' };
  if (code === -1) throw corrupt(prefix, `group "${group}" has a header but the stream document is missing`);
  if (code === -2) throw layout1Refused(prefix);
  if (code === -3) throw corrupt(prefix, 'the stream document differs from the one the coordinator wrote');
  if (code === -4) throw groupDamaged(prefix, group, ['t']);
  damaged(prefix, group, a);
  if (code === 3) {
    try {
      return { kind: 'fast', response: JSON.parse(str(a[1]) ?? '') as HeartbeatOutput };
    } catch {
      throw corrupt(prefix, `the fast-path answer of member "${memberId}" is unreadable`);
    }
  }
  const streamRev = parseRevision(prefix, str(a[1]));
  const head = decodeStreamHead(prefix, str(a[2]));
  if (code === 2) {
    if (head.groups.includes(group)) throw headerLost(prefix, group);
    return { kind: 'no-group', streamRev, head };
  }
  if (code !== 1) throw corrupt(prefix, 'unexpected reply from the member read');
  const header = decodeHeader(prefix, group, fieldsOf(a[3]));
  const recordText = str(a[4]);
  const member =
    recordText === null
      ? null
      : merged(decodeMember(prefix, group, memberId, recordText), num(a[6]), num(a[7]), num(a[8]));
  const shards = list(a[12]).map(Number);
  const entries = list(a[13]);
  const owners = new Map<number, OwnerEntry | null>();
  shards.forEach((s, i) => {
    owners.set(
      s,
      derived(prefix, group, 'o', () => decodeOwner(prefix, group, str(entries[i]))),
    );
  });
  const holderIds = list(a[14]).map((x) => str(x) ?? '');
  const statuses = list(a[15]);
  const holders = new Map<string, HolderStatus | null>();
  holderIds.forEach((id, i) => {
    const s = str(statuses[i]);
    if (s !== null && !STATUSES.has(s)) throw groupDamaged(prefix, group, ['st']);
    holders.set(id, s as HolderStatus | null);
  });
  const ids = (v: unknown) => list(v).map((x) => str(x) ?? '');
  return {
    kind: 'view',
    streamRev,
    head,
    header,
    member,
    target: derived(prefix, group, 't', () => decodeTarget(prefix, group, memberId, str(a[5]))),
    targetStored: str(a[5]) !== null,
    owners,
    holders,
    due: { expired: ids(a[9]), deadlines: ids(a[10]), timers: ids(a[11]) },
    acknowledged: Number(a[16]) === 1,
    acknowledgements: Number(a[17] ?? 0),
    liveMembers: Number(a[18] ?? 0),
  };
}

/** Decodes the assignment-read reply (null when the stream or group is gone). */
export function decodeAssignmentRead(
  prefix: string,
  group: string,
  reply: unknown,
): AssignmentRead | 'busy' | null {
  const a = list(reply);
  if (Number(a[0]) === -2) throw layout1Refused(prefix);
  damaged(prefix, group, a);
  if (Number(a[0]) === -5) return 'busy';
  if (Number(a[0]) !== 1) return null;
  const targets = new Map<string, number[]>();
  for (const [id, text] of pairs(a[5])) {
    targets.set(
      id,
      derived(prefix, group, 't', () => decodeTarget(prefix, group, id, text)),
    );
  }
  const leases = pairs(a[4]);
  const owners = new Map<number, OwnerEntry>();
  for (const [s, text] of pairs(a[6])) {
    const e = derived(prefix, group, 'o', () => decodeOwner(prefix, group, text));
    if (e) owners.set(Number(s), e);
  }
  return {
    streamRev: parseRevision(prefix, str(a[1])),
    head: decodeStreamHead(prefix, str(a[2])),
    header: decodeHeader(prefix, group, fieldsOf(a[3])),
    live: leases.map(([m]) => m),
    leaseOf: new Map(leases.map(([m, s]) => [m, Number(s)])),
    targets,
    owners,
    deadlines: new Map(pairs(a[7]).map(([m, s]) => [m, Number(s)])),
  };
}

/** Decodes the members-read reply for `ids` (null when the stream or group is gone). */
export function decodeMembersRead(
  prefix: string,
  group: string,
  ids: readonly string[],
  reply: unknown,
): MembersRead | null {
  const a = list(reply);
  if (Number(a[0]) === -2) throw layout1Refused(prefix);
  damaged(prefix, group, a);
  if (Number(a[0]) !== 1) return null;
  const members: MembersRead['members'] = new Map();
  ids.forEach((id, i) => {
    const p = list(a[4 + i]);
    const text = str(p[0]);
    members.set(id, {
      stored:
        text === null ? null : merged(decodeMember(prefix, group, id, text), num(p[2]), num(p[3]), num(p[4])),
      target: derived(prefix, group, 't', () => decodeTarget(prefix, group, id, str(p[1]))),
    });
  });
  return {
    streamRev: parseRevision(prefix, str(a[1])),
    head: decodeStreamHead(prefix, str(a[2])),
    header: decodeHeader(prefix, group, fieldsOf(a[3])),
    members,
  };
}

/** Decodes the due-read reply (null when the stream or group is gone). */
export function decodeDue(prefix: string, group: string, reply: unknown): DueRead | null {
  const a = list(reply);
  if (Number(a[0]) === -2) throw layout1Refused(prefix);
  damaged(prefix, group, a);
  if (Number(a[0]) !== 1) return null;
  const ids = (v: unknown) => list(v).map((x) => str(x) ?? '');
  return {
    expired: ids(a[1]),
    deadlines: ids(a[2]),
    timers: ids(a[3]),
    assignmentDue: Number(a[5]) < Number(a[4]),
  };
}

/** Decodes the stream-probe reply (null when the stream does not exist). */
export function decodeProbe(prefix: string, reply: unknown): StreamProbe | null {
  const a = list(reply);
  const code = Number(a[0]);
  if (code === -2) throw layout1Refused(prefix);
  if (code !== 1) return null;
  const head: StreamHead = decodeStreamHead(prefix, str(a[2]));
  return {
    streamRev: parseRevision(prefix, str(a[1])),
    head,
    groups: a.slice(3).map((g) => {
      const p = list(g);
      const flag = (i: number) => Number(p[i]) === 1;
      return {
        name: str(p[0]) ?? '',
        exists: flag(1),
        assignmentDue: flag(2),
        leaseDue: flag(3),
        deadlineDue: flag(4),
        timerDue: flag(5),
        roundOpen: flag(6),
        nextAt: p[7] === null || p[7] === undefined || p[7] === false ? null : Number(p[7]),
      };
    }),
  };
}

/**
 * Decodes the group-records reply (null when the stream or every key of the group is gone). It
 * reads what it can: a lost or unreadable header is null, and records that do not decode are
 * listed by id, for the caller to decide whether that can be trusted.
 */
export function decodeGroupRecords(prefix: string, group: string, reply: unknown): GroupRecords | null {
  const a = list(reply);
  if (Number(a[0]) === -2) throw layout1Refused(prefix);
  if (Number(a[0]) !== 1) return null;
  const members = new Map<string, RecordAt>();
  const unreadable: string[] = [];
  for (const [id, text] of pairs(a[2])) {
    try {
      members.set(id, decodeMember(prefix, group, id, text));
    } catch {
      unreadable.push(id);
    }
  }
  const heartbeats = new Map<string, number>();
  for (const [id, text] of pairs(a[3])) {
    try {
      heartbeats.set(id, parseLiveEntry(prefix, group, text).at);
    } catch {
      // A lost heartbeat time only makes a rebuilt lease no longer than the record's.
    }
  }
  let header: GroupHeader | null = null;
  try {
    header = pairs(a[1]).length === 0 ? null : decodeHeader(prefix, group, fieldsOf(a[1]));
  } catch {
    header = null;
  }
  return {
    header,
    members,
    unreadable,
    leases: new Map(pairs(a[4]).map(([m, v]) => [m, Number(v)])),
    heartbeats,
    highestEpoch: num(a[5]) ?? 0,
    recordedMembers: num(fieldsOf(a[1]).nm),
  };
}
