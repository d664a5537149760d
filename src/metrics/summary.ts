/**
 * A Prometheus summary with client-side quantiles over a sliding time window, plus the window's
 * maximum as a separate `<name>_max` gauge — the shape Micrometer timers with published
 * percentiles have, which the reference dashboards read (`{quantile="0.95"}`, `_max`, `_count`).
 *
 * Each series keeps at most `maxSamples` recent observations younger than `windowMs`; quantiles
 * and max are computed from them at render time (0 when the window is empty, as Micrometer
 * reports after decay). `_count` and `_sum` are cumulative.
 */
import { formatSample } from './exposition.js';
import { type Labels, Metric, type MetricOptions } from './registry.js';

/** Options of a summary. */
export interface SummaryOptions<L extends string> extends MetricOptions<L> {
  /** Quantiles published, each in (0, 1). */
  quantiles: readonly number[];
  /** @default 120000 (two minutes) */
  windowMs?: number;
  /** Observations kept per series for the quantiles. @default 128 */
  maxSamples?: number;
  /** Monotonic clock, ms. @default performance.now */
  clock?: () => number;
}

interface SummaryState {
  /** Recent observations and when each was made (parallel arrays, oldest first). */
  values: number[];
  at: number[];
  sum: number;
  count: number;
}

/** Observations summarised as windowed quantiles, cumulative count and sum. */
export class Summary<L extends string = never> extends Metric<L, SummaryState> {
  readonly type = 'summary';
  readonly quantiles: readonly number[];
  private readonly windowMs: number;
  private readonly maxSamples: number;
  private readonly clock: () => number;

  constructor(opts: SummaryOptions<L>) {
    super(opts, ['quantile']);
    if (opts.quantiles.some((q) => !(q > 0 && q < 1))) throw new Error(`summary ${opts.name}: bad quantile`);
    this.quantiles = [...opts.quantiles];
    this.windowMs = opts.windowMs ?? 120_000;
    this.maxSamples = Math.max(1, opts.maxSamples ?? 128);
    this.clock = opts.clock ?? (() => performance.now());
  }

  /** Records one observation. */
  observe(labels: Labels<L> | undefined, value: number): void {
    const s = this.state(labels, () => ({ values: [], at: [], sum: 0, count: 0 }));
    s.values.push(value);
    s.at.push(this.clock());
    if (s.values.length > this.maxSamples) {
      s.values.shift();
      s.at.shift();
    }
    s.sum += value;
    s.count++;
  }

  /** Count and sum of a series. */
  get(labels?: Labels<L>): { count: number; sum: number } {
    const s = this.peek(labels);
    return { count: s?.count ?? 0, sum: s?.sum ?? 0 };
  }

  /** The observations of a series still inside the window, sorted ascending. */
  private recent(s: SummaryState): number[] {
    const cutoff = this.clock() - this.windowMs;
    while (s.at.length > 0 && s.at[0]! < cutoff) {
      s.at.shift();
      s.values.shift();
    }
    return [...s.values].sort((a, b) => a - b);
  }

  samples(): string[] {
    const out: string[] = [];
    for (const { labels, state } of this.sorted()) {
      const recent = this.recent(state);
      for (const q of this.quantiles) {
        out.push(formatSample(this.name, [...labels, ['quantile', String(q)]], nearestRank(recent, q)));
      }
      out.push(formatSample(`${this.name}_sum`, labels, state.sum));
      out.push(formatSample(`${this.name}_count`, labels, state.count));
    }
    return out;
  }

  /** The `<name>_max` gauge family: the largest observation inside the window, per series. */
  maxFamily(help: string): Metric<L, SummaryState> {
    return new SummaryMax<L>(this, help);
  }

  /** Max per series (for `SummaryMax`). */
  maxSamplesOf(name: string): string[] {
    return this.sorted().map(({ labels, state }) => {
      const recent = this.recent(state);
      return formatSample(name, labels, recent.length === 0 ? 0 : recent[recent.length - 1]!);
    });
  }
}

/** Nearest-rank quantile of sorted `xs` (0 when empty). */
export function nearestRank(xs: readonly number[], q: number): number {
  if (xs.length === 0) return 0;
  const rank = Math.max(1, Math.ceil(q * xs.length));
  return xs[rank - 1]!;
}

class SummaryMax<L extends string> extends Metric<L, SummaryState> {
  readonly type = 'gauge';
  constructor(
    private readonly source: Summary<L>,
    help: string,
  ) {
    super({ name: `${source.name}_max`, help, labelNames: source.labelNames });
  }

  samples(): string[] {
    return this.source.maxSamplesOf(this.name);
  }
}
