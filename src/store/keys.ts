/**
 * Every Redis key name the coordinator uses, in one place (SPEC §4).
 *
 * `K` is the namespace (config `keyPrefix`, default `rsc`); `{P}` is the URL-encoded stream
 * prefix inside a hash tag, so all coordinator keys of one stream share a Cluster slot and one
 * Lua script can touch them atomically. Shard streams carry no hash tag so Cluster spreads them.
 */

/** Hash-tagged, URL-encoded stream prefix: `{orders}`. */
export function streamTag(prefix: string): string {
  return `{${encodeURIComponent(prefix)}}`;
}

/** Keys of one stream's coordinator state. */
export interface StreamKeys {
  /** HASH `rev` (storeRevision), `doc` (StreamDoc JSON). */
  stream: string;
  /** STRING per-stream mutex token. */
  lock: string;
}

/** Per-stream keys: `K:{P}:stream` and `K:{P}:lock`. */
export function streamKeys(ns: string, prefix: string): StreamKeys {
  const base = `${ns}:${streamTag(prefix)}`;
  return { stream: `${base}:stream`, lock: `${base}:lock` };
}

/** Keys of one consumer group, in the order the scripts take them. */
export interface GroupKeys {
  /** HASH `rev` (stream revision of the last write), `doc` (GroupDoc JSON), `until` (fast-path window end). */
  group: string;
  /** ZSET live member -> lease expiry (ms). */
  leases: string;
  /** HASH member -> `{"at":<lastHeartbeatAt>,"progress":[...]}` (progress optional). */
  live: string;
  /** HASH member -> `<groupRev>|<keyBytes>|<key>|<response>` (fast-path fingerprint and answer). */
  fast: string;
}

/** Per-group keys: `K:{P}:group:<G>`, `K:{P}:leases:<G>`, `K:{P}:live:<G>`, `K:{P}:fast:<G>`. */
export function groupKeys(ns: string, prefix: string, group: string): GroupKeys {
  const base = `${ns}:${streamTag(prefix)}`;
  const g = encodeURIComponent(group);
  return {
    group: `${base}:group:${g}`,
    leases: `${base}:leases:${g}`,
    live: `${base}:live:${g}`,
    fast: `${base}:fast:${g}`,
  };
}

/** The same four keys as a list, in script order. */
export function groupKeyList(k: GroupKeys): [string, string, string, string] {
  return [k.group, k.leases, k.live, k.fast];
}

/** SET of every stream prefix in the namespace: `K:streams` (its own slot). */
export function streamsIndexKey(ns: string): string {
  return `${ns}:streams`;
}

/** Shard stream `i` of a logical stream: `prefix:i` (no hash tag, SPEC §1). */
export function shardKey(prefix: string, i: number): string {
  return `${prefix}:${i}`;
}

/** STRING: the stream prefix the Worker's cron sweep resumes from: `K:sweep-cursor` (its own slot). */
export function sweepCursorKey(ns: string): string {
  return `${ns}:sweep-cursor`;
}
