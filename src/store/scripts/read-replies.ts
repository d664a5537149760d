/**
 * Decoders of the read scripts' replies (member-read, load, assignment-read, members-read,
 * stream-probe): everything is validated on the way in and fails closed with METADATA_CORRUPT.
 */

import type { HolderStatus, OwnerEntry, RecordAt } from '../../core/commit-plan.js';
import { dict } from '../../core/dict.js';
import type { CoordinatorError } from '../../core/errors.js';
import { groupStateOf } from '../../core/group.js';
import type { HeartbeatOutput } from '../../core/heartbeat-types.js';
import type { GroupHeader } from '../../core/member-view.js';
import type { GroupDoc, MemberRecord } from '../../core/model.js';
import { corrupt, parseLiveEntry, parseRevision, parseStreamDoc } from '../codec.js';
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
  StreamProbe,
  StreamSnapshot,
} from '../store.js';
import type { ScriptCall } from './commit-args.js';

/**
 * The answer to a stream whose hash lacks the layout-2 marker (the read scripts' {-2}): layout 1,
 * one JSON document per group, was only ever written by unreleased development builds and is
 * not read, so the stream is refused like any other unreadable metadata, and nothing is written.
 */
function layout1Refused(prefix: string): CoordinatorError {
  return corrupt(
    prefix,
    "it is in layout 1 (one JSON document per group), written only by unreleased development builds; this coordinator reads layout 2 only: delete the stream's coordinator keys (or the whole key namespace) and create the stream again",
  );
}

/**
 * `read()`, or — when a derived index holds an entry that does not decode — the damage as a lost
 * `part`, which the coordinator rebuilds from the member records like a missing key.
 */
function derived<T>(prefix: string, group: string, part: string, read: () => T): T {
  try {
    return read();
  } catch {
    throw groupDamaged(prefix, group, [part]);
  }
}

/** Throws when a group read answered that the group lost part of its state ({-6, parts} or {-7}). */
function damaged(prefix: string, group: string, a: unknown[]): void {
  const code = Number(a[0]);
  if (code === -6)
    throw groupDamaged(
      prefix,
      group,
      list(a[1]).map((x) => str(x) ?? '?'),
    );
  if (code === -7) throw headerLost(prefix, group);
}

function str(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (v instanceof Uint8Array) return new TextDecoder().decode(v);
  if (typeof v === 'number') return String(v);
  return null;
}

function num(v: unknown): number | null {
  const s = str(v);
  if (s === null) return null;
  const n = Number(s);
  return Number.isFinite(n) ? n : null;
}

function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function pairs(v: unknown): Array<[string, string]> {
  const a = list(v);
  const out: Array<[string, string]> = [];
  for (let i = 0; i + 1 < a.length; i += 2) out.push([str(a[i]) ?? '', str(a[i + 1]) ?? '']);
  return out;
}

const STATUSES = new Set(['A', 'L', 'B', 'X']);

/** One group's script call: the stream hash and the group's 12 keys, the encoded group name first in ARGV. */
export function groupCall(ns: string, prefix: string, group: string, args: string[]): ScriptCall {
  return {
    keys: [streamKeys(ns, prefix).stream, ...groupKeyList(groupKeys(ns, prefix, group))],
    args: [encodedGroup(group), ...args],
  };
}

/** A record merged with what lives beside it: lease and heartbeat time by maximum, the deadline. */
function merged(
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

/**
 * The whole-read call: `names` are the groups to read; with `all`, they must be every group the
 * stream lists, in its order (else the script answers the list: see `listedInstead`).
 */
export function encodeLoad(
  ns: string,
  prefix: string,
  mode: 'all' | 'named',
  names: readonly string[],
): ScriptCall {
  const unique = [...new Set(names)];
  const keys = [streamKeys(ns, prefix).stream];
  for (const name of unique) keys.push(...groupKeyList(groupKeys(ns, prefix, name)));
  return { keys, args: [mode, ...unique] };
}

/** The groups the stream lists when an `all` read named others ({-8, names}); null otherwise. */
export function listedInstead(reply: unknown): string[] | null {
  const a = list(reply);
  return Number(a[0]) === -8 ? list(a[1]).map((x) => str(x) ?? '') : null;
}

/** Members decoded between two yields to the event loop while a whole group is assembled. */
const MEMBERS_PER_SLICE = 128;

/**
 * Lets other requests run: a whole group of thousands of members takes tens of milliseconds to
 * decode, which heartbeats on the same instance must not wait behind.
 */
const yieldToLoop: () => Promise<void> =
  typeof setImmediate === 'function'
    ? () => new Promise((resolve) => setImmediate(resolve))
    : () => new Promise((resolve) => setTimeout(resolve, 0));

/** Assembles one group document from its stored parts, yielding between slices of members. */
async function assembleGroup(prefix: string, name: string, parts: unknown[]): Promise<GroupDoc> {
  const header = decodeHeader(prefix, name, fieldsOf(parts[2]));
  const leases = new Map(pairs(parts[5]).map(([m, s]) => [m, Number(s)]));
  const deadlines = new Map(pairs(parts[7]).map(([m, s]) => [m, Number(s)]));
  const members: GroupDoc['members'] = dict();
  const live = new Map(
    pairs(parts[6]).map(([m, text]) => [
      m,
      derived(prefix, name, 'live', () => parseLiveEntry(prefix, name, text)),
    ]),
  );
  let decoded = 0;
  for (const [id, text] of pairs(parts[3])) {
    if (++decoded % MEMBERS_PER_SLICE === 0) await yieldToLoop();
    const entry = live.get(id);
    const m = merged(
      decodeMember(prefix, name, id, text),
      leases.get(id) ?? null,
      entry?.at ?? null,
      deadlines.get(id) ?? null,
    ).record;
    members[id] = { ...m, shardProgress: entry?.progress ?? [] };
  }
  const targetAssignments = dict<number[]>();
  for (const [id, text] of pairs(parts[4])) {
    targetAssignments[id] = derived(prefix, name, 't', () => decodeTarget(prefix, name, id, text));
  }
  const acks = list(parts[8])
    .map((x) => str(x) ?? '')
    .sort();
  const doc: GroupDoc = {
    streamPrefix: prefix,
    consumerGroup: name,
    groupEpoch: header.groupEpoch,
    assignmentEpoch: header.assignmentEpoch,
    metadataVersion: header.metadataVersion,
    state: 'EMPTY',
    targetAssignments,
    members,
    metadataCorrection: header.correction && { ...header.correction, acknowledgedMembers: acks },
    createdAt: header.createdAt,
    updatedAt: header.updatedAt,
  };
  doc.state = groupStateOf(doc);
  return doc;
}

/** Turns the load script's reply into a snapshot (null when the stream does not exist). */
export async function decodeLoadReply(
  prefix: string,
  reply: unknown,
  requested: string[] | 'all',
): Promise<StreamSnapshot | null> {
  const a = list(reply);
  const code = Number(a[0]);
  if (code === -1)
    throw corrupt(prefix, `group "${str(a[1]) ?? ''}" has a header but the stream document is missing`);
  if (code === -2) throw layout1Refused(prefix);
  if (code !== 1) return null;
  const revision = parseRevision(prefix, str(a[1]));
  const docText = str(a[2]);
  if (docText === null || num(a[4]) !== new TextEncoder().encode(docText).length) {
    throw corrupt(prefix, 'the stream document differs from the one the coordinator wrote');
  }
  const stream = parseStreamDoc(prefix, docText);
  decodeStreamHead(prefix, str(a[3]));
  const groups = dict<GroupDoc>();
  for (const entry of a.slice(5)) {
    const parts = list(entry);
    const name = str(parts[0]) ?? '';
    if (Number(parts[1]) === 2)
      throw groupDamaged(
        prefix,
        name,
        list(parts[2]).map((x) => str(x) ?? '?'),
      );
    if (Number(parts[1]) === 3) throw headerLost(prefix, name);
    if (Number(parts[1]) !== 1) {
      // A group the stream document lists must exist (its metadata was deleted behind our back:
      // fail closed); a group it does not list is simply absent.
      if (requested === 'all' || stream.groups.includes(name)) throw headerLost(prefix, name);
      continue;
    }
    if (!stream.groups.includes(name)) continue;
    groups[name] = await assembleGroup(prefix, name, parts);
  }
  return { revision, stream, groups };
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
  const owners = new Map<number, OwnerEntry>();
  for (const [s, text] of pairs(a[6])) {
    const e = derived(prefix, group, 'o', () => decodeOwner(prefix, group, text));
    if (e) owners.set(Number(s), e);
  }
  return {
    streamRev: parseRevision(prefix, str(a[1])),
    head: decodeStreamHead(prefix, str(a[2])),
    header: decodeHeader(prefix, group, fieldsOf(a[3])),
    live: list(a[4]).map((x) => str(x) ?? ''),
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
