/**
 * Relative times of the CLI's tables, as kubectl shows ages: `just now`, `2s ago`, `3m10s ago`,
 * `in 12s`. Events that happened (a heartbeat, a migration's creation) never read as future:
 * the coordinator's clock may run a little ahead of the operator's machine.
 */

/** What an instant is: an event that happened, or a deadline that may lie either side of now. */
export type TimeKind = 'past' | 'deadline';

/** Whole seconds as the largest two units: `45s`, `2m30s`, `10m`, `3h5m`, `2d1h`. */
function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const units: Array<[string, number]> = [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
    ['s', 1],
  ];
  const first = units.findIndex(([, size]) => s >= size);
  if (first === -1) return '0s';
  const [bigName, bigSize] = units[first]!;
  const big = Math.floor(s / bigSize);
  const next = units[first + 1];
  const rest = next ? Math.floor((s - big * bigSize) / next[1]) : 0;
  return rest > 0 && next ? `${big}${bigName}${rest}${next[0]}` : `${big}${bigName}`;
}

/**
 * An ISO instant relative to `now`: a past event reads `just now` within a second (or when it
 * seems to lie ahead) and `2s ago` after; a deadline reads `in 12s`, `now` or `3s ago`.
 */
export function relativeTime(iso: string | null, now: number, kind: TimeKind): string {
  if (!iso) return '-';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const s = Math.round((t - now) / 1000);
  if (kind === 'past') return s >= 0 ? 'just now' : `${duration(-s)} ago`;
  if (s === 0) return 'now';
  return s > 0 ? `in ${duration(s)}` : `${duration(-s)} ago`;
}
