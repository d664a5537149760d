/**
 * Escaping and number formatting of the Prometheus text exposition format 0.0.4.
 */

/** `\` and newline escaped, as HELP text requires. */
export function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

/** `\`, `"` and newline escaped, as label values require. */
function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** A sample value: `+Inf`, `-Inf`, `NaN` or a plain JS number (Go's ParseFloat reads `1e-7`). */
function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Number.POSITIVE_INFINITY) return '+Inf';
  if (v === Number.NEGATIVE_INFINITY) return '-Inf';
  return String(v);
}

/** One sample line: `name{a="x",b="y"} value`. */
export function formatSample(
  name: string,
  labels: ReadonlyArray<readonly [string, string]>,
  v: number,
): string {
  if (labels.length === 0) return `${name} ${formatValue(v)}`;
  const body = labels.map(([k, val]) => `${k}="${escapeLabelValue(val)}"`).join(',');
  return `${name}{${body}} ${formatValue(v)}`;
}
