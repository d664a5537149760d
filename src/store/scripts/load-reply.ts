/**
 * Encodes the load script call and turns its reply into a StreamSnapshot: documents are
 * validated (METADATA_CORRUPT on anything unreadable) and leases, heartbeat times and progress
 * from the lease structures are merged in by maximum.
 */
import type { GroupDoc } from '../../core/model.js';
import {
  corrupt,
  type LiveEntry,
  parseGroupDoc,
  parseLiveEntry,
  parseRevision,
  parseStreamDoc,
} from '../codec.js';
import { groupKeyList, groupKeys, streamKeys } from '../keys.js';
import type { StreamSnapshot } from '../store.js';
import type { ScriptCall } from './commit-args.js';

/** Builds the load script call for `prefix` and `groups` in namespace `ns`. */
export function encodeLoad(ns: string, prefix: string, groups: string[] | 'all'): ScriptCall {
  const keys = [streamKeys(ns, prefix).stream];
  if (groups === 'all') return { keys, args: ['all'] };
  const names = [...new Set(groups)];
  for (const g of names) keys.push(...groupKeyList(groupKeys(ns, prefix, g)));
  return { keys, args: ['named', ...names] };
}

function str(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (v instanceof Uint8Array) return new TextDecoder().decode(v);
  return undefined;
}

function pairs(v: unknown): Array<[string, string]> {
  const a = Array.isArray(v) ? v : [];
  const out: Array<[string, string]> = [];
  for (let i = 0; i + 1 < a.length; i += 2)
    out.push([String(str(a[i]) ?? a[i]), String(str(a[i + 1]) ?? a[i + 1])]);
  return out;
}

/** Applies the lease index and live entries to a group document (maximum wins). */
function mergeLeases(doc: GroupDoc, leases: Map<string, number>, live: Map<string, LiveEntry>): GroupDoc {
  const members: GroupDoc['members'] = {};
  for (const [id, m] of Object.entries(doc.members)) {
    const lease = leases.get(id);
    const entry = live.get(id);
    members[id] = {
      ...m,
      memberLeaseExpiresAt: Math.max(m.memberLeaseExpiresAt, lease ?? m.memberLeaseExpiresAt),
      lastHeartbeatAt: Math.max(m.lastHeartbeatAt, entry?.at ?? m.lastHeartbeatAt),
      shardProgress:
        entry?.progress !== undefined && entry.at >= m.lastHeartbeatAt ? entry.progress : m.shardProgress,
    };
  }
  return { ...doc, members };
}

/** Turns the load script's reply into a snapshot (null when the stream does not exist). */
export function decodeLoadReply(
  prefix: string,
  reply: unknown,
  requested: string[] | 'all',
): StreamSnapshot | null {
  if (Array.isArray(reply) && Number(reply[0]) === -1) {
    throw corrupt(prefix, `group "${str(reply[1]) ?? ''}" has a document but the stream document is missing`);
  }
  if (!Array.isArray(reply) || Number(reply[0]) !== 1) return null;
  const revision = parseRevision(prefix, str(reply[1]) ?? reply[1]);
  const stream = parseStreamDoc(prefix, str(reply[2]));
  const groups: Record<string, GroupDoc> = {};
  for (const entry of reply.slice(3) as unknown[][]) {
    const name = str(entry[0]) ?? '';
    if (Number(entry[1]) !== 1) {
      // A group the stream document lists must exist (its metadata was deleted behind our back:
      // fail closed); a group it does not list is simply absent.
      if (requested === 'all' || stream.groups.includes(name)) {
        throw corrupt(prefix, `group "${name}" is listed but has no document`);
      }
      continue;
    }
    const doc = parseGroupDoc(prefix, name, str(entry[3]));
    const leases = new Map<string, number>();
    for (const [m, score] of pairs(entry[4])) leases.set(m, Number(score));
    const live = new Map<string, LiveEntry>();
    for (const [m, text] of pairs(entry[5])) live.set(m, parseLiveEntry(prefix, name, text));
    groups[name] = mergeLeases(doc, leases, live);
  }
  return { revision, stream, groups };
}
