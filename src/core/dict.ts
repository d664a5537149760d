/**
 * Records keyed by user-chosen names (groups, member ids). A name such as `constructor`,
 * `valueOf` or `__proto__` must read and write like any other key, so these records have no
 * prototype and lookups only ever see own properties.
 */

/** A prototype-free record holding `entries` (none by default). */
export function dict<V>(entries?: Iterable<readonly [string, V]>): Record<string, V> {
  const out = Object.create(null) as Record<string, V>;
  if (entries) for (const [k, v] of entries) out[k] = v;
  return out;
}

/** `rec[key]` when it is an own property of `rec`; never an inherited one such as `Object.prototype.constructor`. */
export function own<V>(rec: Readonly<Record<string, V>>, key: string): V | undefined {
  return Object.hasOwn(rec, key) ? rec[key] : undefined;
}

/** A prototype-free copy of `rec` with `key` set to `value`. */
export function withEntry<V>(rec: Readonly<Record<string, V>>, key: string, value: V): Record<string, V> {
  const out = dict(Object.entries(rec));
  out[key] = value;
  return out;
}
