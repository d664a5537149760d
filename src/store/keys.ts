/**
 * Every Redis key name the coordinator uses, in one place (docs/protocol.md#redis-key-layout).
 *
 * `K` is the namespace (config `keyPrefix`, default `rsc`); `{P}` is the URL-encoded stream
 * prefix inside a hash tag, so all coordinator keys of one stream share a Cluster slot and one
 * Lua script can touch them atomically. Shard streams carry no hash tag so Cluster spreads them.
 */

/** Hash-tagged, URL-encoded stream prefix: `{orders}`. */
function streamTag(prefix: string): string {
  return `{${encodeURIComponent(prefix)}}`;
}

/** Keys of one stream's coordinator state. */
export interface StreamKeys {
  /** HASH `rev` (storeRevision), `doc` (StreamDoc JSON), `len` (its length), `hb` (what heartbeats read), `layout` (2), `pass` (last resharding pass). */
  stream: string;
  /** STRING per-stream mutex token. */
  lock: string;
  /** STRING one-time token of the last stream-wide commit (short TTL): recognises a resent commit. */
  commit: string;
}

/** Per-stream keys: `K:{P}:stream`, `K:{P}:lock` and `K:{P}:commit`. */
export function streamKeys(ns: string, prefix: string): StreamKeys {
  const base = `${ns}:${streamTag(prefix)}`;
  return { stream: `${base}:stream`, lock: `${base}:lock`, commit: `${base}:commit` };
}

/** Keys of one consumer group (layout 2), in the order the scripts take them. */
export interface GroupKeys {
  /** HASH group header: `ge` groupEpoch, `ae` assignmentEpoch, `mv` metadataVersion, `cr` open correction round (JSON), `ca`/`ua` created/updated, `pa` when the oldest change not yet assigned was made. */
  header: string;
  /** HASH member → `<rev>|<record JSON>`. */
  members: string;
  /** HASH member → holder status `A` live, `L` leaving, `B` blocking fence, `X` neither. */
  status: string;
  /** HASH member → target shards (ranges, e.g. `0-3,7`). */
  targets: string;
  /** HASH shard → `<member>|<c|g|r>`: the member holding it (current, granted or revoking). */
  owners: string;
  /** ZSET live member → lease expiry (ms). */
  leases: string;
  /** HASH member → `{"at":<lastHeartbeatAt>,"progress":[...]}` (progress optional). */
  live: string;
  /** HASH member → fast-path fingerprint and answer. */
  fast: string;
  /** ZSET member → rebalance deadline (ms). */
  deadlines: string;
  /** ZSET member → next time-driven change (blocking-fence lapse, prune). */
  timers: string;
  /** SET members that acknowledged the open correction round. */
  acks: string;
  /** STRING token of the assignment round in progress. */
  assignLock: string;
}

/** The group keys' name parts, in script order (`K:{P}:<part>:<G>`). */
export const GROUP_KEY_PARTS = [
  'g',
  'm',
  'st',
  't',
  'o',
  'leases',
  'live',
  'fast',
  'dl',
  'tm',
  'ack',
  'alock',
] as const;

/** Per-group keys `K:{P}:<part>:<G>` (G URL-encoded). */
export function groupKeys(ns: string, prefix: string, group: string): GroupKeys {
  const base = `${ns}:${streamTag(prefix)}`;
  const [header, members, status, targets, owners, leases, live, fast, deadlines, timers, acks, assignLock] =
    GROUP_KEY_PARTS.map((part) => `${base}:${part}:${encodeURIComponent(group)}`) as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
  return {
    header,
    members,
    status,
    targets,
    owners,
    leases,
    live,
    fast,
    deadlines,
    timers,
    acks,
    assignLock,
  };
}

/** The group name as its keys spell it (what scripts that build group keys take as an argument). */
export function encodedGroup(group: string): string {
  return encodeURIComponent(group);
}

/** The group keys as a list, in script order. */
export function groupKeyList(k: GroupKeys): string[] {
  return [
    k.header,
    k.members,
    k.status,
    k.targets,
    k.owners,
    k.leases,
    k.live,
    k.fast,
    k.deadlines,
    k.timers,
    k.acks,
    k.assignLock,
  ];
}

/** SET of every stream prefix in the namespace: `K:streams` (its own slot). */
export function streamsIndexKey(ns: string): string {
  return `${ns}:streams`;
}

/**
 * STRING: the deployment's bearer-token secret when COORDINATOR_TOKEN_SECRET is not set, generated
 * once (SET NX) and shared by every instance: `K:auth:token-secret` (its own slot).
 */
export function tokenSecretKey(ns: string): string {
  return `${ns}:auth:token-secret`;
}

/** Shard stream `i` of a logical stream: `prefix:i` (no hash tag, docs/protocol.md#conventions). */
export function shardKey(prefix: string, i: number): string {
  return `${prefix}:${i}`;
}

/** Keys of the namespace's due index (`store/scripts/due-index.ts`), in one slot of their own. */
export interface DueIndexKeys {
  /** ZSET stream prefix → earliest time it may have work due; `''` at -inf marks it complete. */
  at: string;
  /** HASH stream prefix → until when a sweep has claimed it. */
  claims: string;
  /** HASH stream prefix → the earliest due time a commit recorded while it was claimed. */
  late: string;
}

/** `K:{#due}:at`, `K:{#due}:claims`, `K:{#due}:late` (no stream's tag encodes to `{#due}`). */
export function dueIndexKeys(ns: string): DueIndexKeys {
  const base = `${ns}:{#due}`;
  return { at: `${base}:at`, claims: `${base}:claims`, late: `${base}:late` };
}
