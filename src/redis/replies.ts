/**
 * What every Redis port reads the same way: Redis's own error texts and the producer's XADD
 * arguments. No runtime imports.
 */
import type { XaddSpec } from './port.js';

/** The first line of an error text (Redis's own sentence; anything a client appends follows it). */
export function firstLine(text: string): string {
  return text.split('\n')[0] ?? '';
}

/**
 * Error replies Redis answers while it cannot serve for a moment (failover, loading, a busy
 * script, slot migration, memory pressure): the same command can succeed later.
 */
export const TRANSIENT_REPLY = /^(LOADING|READONLY|CLUSTERDOWN|TRYAGAIN|MASTERDOWN|BUSY|MOVED|ASK|OOM)\b/;

/** Arguments after the key of a producer XADD: `NOMKSTREAM MAXLEN ~|= maxLen * field value …`. */
export function xaddArguments(w: Omit<XaddSpec, 'key'>): string[] {
  const args = ['NOMKSTREAM', 'MAXLEN', w.approx ? '~' : '=', String(w.maxLen), '*'];
  // for…in over own keys visits them in the same order as Object.entries, without its arrays.
  for (const f in w.fields) if (Object.hasOwn(w.fields, f)) args.push(f, w.fields[f]!);
  return args;
}
