/**
 * Well-formed Unicode for names. A string with an unpaired UTF-16 surrogate has no UTF-8
 * spelling: Redis would store a replacement character, so the key written and the name kept
 * would differ. Such names are refused before anything is written.
 */

/** An unpaired surrogate (with the `u` flag a valid pair matches as one astral code point, not `Cs`). */
const LONE_SURROGATE = /\p{Cs}/u;

/** True when `s` holds no unpaired surrogate (`String.prototype.isWellFormed`, typed for ES2022). */
export function isWellFormed(s: string): boolean {
  return !LONE_SURROGATE.test(s);
}

/** The message for a name that is not well-formed. */
export const NOT_WELL_FORMED = 'must be well-formed Unicode (no unpaired surrogate)';
