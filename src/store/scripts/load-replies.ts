import { dict } from '../../core/dict.js';
import { groupStateOf } from '../../core/group.js';
import type { GroupDoc } from '../../core/model.js';
import { corrupt, parseLiveEntry, parseRevision, parseStreamDoc } from '../codec.js';
import { groupDamaged, headerLost } from '../damage.js';
import { groupKeyList, groupKeys, streamKeys } from '../keys.js';
import { decodeHeader, decodeMember, decodeStreamHead, decodeTarget, fieldsOf } from '../records.js';
import type { StreamSnapshot } from '../store.js';
import type { ScriptCall } from './commit-args.js';
import { derived, layout1Refused, list, merged, num, pairs, str } from './reply-parts.js';

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
