/**
 * Formatting numbers, durations and times, and reading shard lists in any of their wire forms.
 * Pure functions (the clock is passed in).
 */

/** True for a finite number. */
export function isNum(n: unknown): n is number {
  return typeof n === 'number' && Number.isFinite(n);
}

/** `1,234`, or `—` for anything that is not a number. */
export function fmtNum(n: unknown): string {
  return isNum(n) ? n.toLocaleString('en-US') : '—';
}

/** `4.2 s`, `3 m 5 s`, `2 h 10 m`, `1 d 3 h` (negative with a leading `-`). */
export function fmtDuration(ms: unknown): string {
  if (!isNum(ms)) return '—';
  const s = Math.abs(ms) / 1000;
  let out: string;
  if (s < 60) out = s.toFixed(1) + ' s';
  else if (s < 3600) out = Math.floor(s / 60) + ' m ' + Math.floor(s % 60) + ' s';
  else if (s < 86400) out = Math.floor(s / 3600) + ' h ' + Math.floor((s % 3600) / 60) + ' m';
  else out = Math.floor(s / 86400) + ' d ' + Math.floor((s % 86400) / 3600) + ' h';
  return ms < 0 ? '-' + out : out;
}

/** Epoch ms of an ISO-8601 string, or null. */
export function parseTime(iso: unknown): number | null {
  const t = typeof iso === 'string' ? Date.parse(iso) : Number.NaN;
  return Number.isNaN(t) ? null : t;
}

/** UTC, to the second unless millis are asked for (record times within one second differ). */
export function fmtTime(iso: string | null | undefined, millis?: boolean): string {
  const t = parseTime(iso);
  if (t === null) return iso ? String(iso) : '—';
  const s = new Date(t).toISOString().replace('T', ' ');
  return millis ? s : s.replace(/\.\d+Z$/, 'Z');
}

/** `HH:MM:SSZ` of `d`. */
export function clockTime(d: Date): string {
  return d.toISOString().slice(11, 19) + 'Z';
}

/** The index of a shard in any of its wire forms, or null. */
export function shardIndexOf(s: unknown): number | null {
  if (typeof s === 'number') return s;
  if (!s || typeof s !== 'object') return null;
  const o = s as { shardIndex?: unknown; shard?: unknown };
  if (typeof o.shardIndex === 'number') return o.shardIndex;
  const inner = o.shard as { shardIndex?: unknown } | number | null | undefined;
  if (inner && typeof inner === 'object' && typeof inner.shardIndex === 'number') return inner.shardIndex;
  if (typeof inner === 'number') return inner;
  return null;
}

/** Shard lists arrive as `[{shardIndex}]` (or, in additive fields, plain numbers): sorted indexes. */
export function shardList(list: unknown): number[] {
  return (Array.isArray(list) ? list : [])
    .map(shardIndexOf)
    .filter((n): n is number => n !== null)
    .sort((a, b) => a - b);
}

/** `[from, …, to - 1]`. */
export function range(from: number, to: number): number[] {
  const out: number[] = [];
  for (let i = from; i < to; i++) out.push(i);
  return out;
}

/** `encodeURIComponent`, short. */
export function enc(s: string): string {
  return encodeURIComponent(s);
}

/** API path of a consumer group (below `/coord/v1` and `/coord/v1/monitoring`). */
export function groupPath(p: string, g: string): string {
  return '/streams/' + enc(p) + '/groups/' + enc(g);
}
