/**
 * "Did you mean": the known name closest to a mistyped one, as git, kubectl and gh suggest, by
 * Damerau-Levenshtein distance (optimal string alignment: a swap of neighbours is one edit).
 */

/** The most edits a suggestion may be away from what was typed. */
const MAX_DISTANCE = 2;

/** Edits (insert, delete, replace, swap two neighbours) turning `a` into `b`. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      }
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/** The name of `names` closest to `typed` (case aside) within two edits; the first of equals. */
export function closest(typed: string, names: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = MAX_DISTANCE + 1;
  for (const name of names) {
    const distance = editDistance(typed.toLowerCase(), name.toLowerCase());
    if (distance < bestDistance) {
      best = name;
      bestDistance = distance;
    }
  }
  return best;
}

/** `; did you mean 'x'?` for the closest of `names`, or nothing when none is close. */
export function didYouMean(typed: string, names: Iterable<string>, prefix = ''): string {
  const name = closest(typed, names);
  return name === undefined ? '' : `; did you mean '${prefix}${name}'?`;
}
