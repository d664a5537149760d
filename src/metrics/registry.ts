/**
 * A tiny Prometheus registry: counters, gauges and histograms with labels, rendered in the text
 * exposition format 0.0.4. No dependencies and no globals, so it runs on Node and Workers alike.
 */
import { escapeHelp, formatSample } from './exposition.js';

/** Content type of the text exposition format. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Label values of one series, by label name. */
export type Labels<L extends string> = Readonly<Record<L, string>>;

/** What every metric is declared with. */
export interface MetricOptions<L extends string> {
  /** `[a-zA-Z_:][a-zA-Z0-9_:]*`; counters end in `_total` by convention. */
  name: string;
  help: string;
  /** @default [] */
  labelNames?: readonly L[];
}

/** Options of a histogram. */
export interface HistogramOptions<L extends string> extends MetricOptions<L> {
  /** Upper bounds, ascending and finite; `+Inf` is implied. */
  buckets: readonly number[];
}

/** Runs before each render so scrape-time gauges can be filled; must not throw. */
export type Collector = () => void | Promise<void>;

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** Common bookkeeping: label validation and one series per distinct label-value tuple. */
export abstract class Metric<L extends string, S> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly L[];
  protected readonly series = new Map<string, { values: string[]; state: S }>();

  constructor(opts: MetricOptions<L>, reserved: readonly string[] = []) {
    if (!METRIC_NAME.test(opts.name)) throw new Error(`invalid metric name: ${opts.name}`);
    this.name = opts.name;
    this.help = opts.help;
    this.labelNames = opts.labelNames ?? [];
    for (const l of this.labelNames) {
      if (!LABEL_NAME.test(l) || l.startsWith('__') || reserved.includes(l)) {
        throw new Error(`invalid label name ${l} on ${opts.name}`);
      }
    }
  }

  abstract readonly type: 'counter' | 'gauge' | 'histogram' | 'summary';

  /** Forgets every series (scrape-time gauges are rebuilt from scratch). */
  reset(): void {
    this.series.clear();
  }

  private values(labels: Labels<L> | undefined): string[] {
    return this.labelNames.map((n) => {
      const v = labels?.[n];
      if (v === undefined) throw new Error(`metric ${this.name} needs label ${n}`);
      return v;
    });
  }

  /** Forgets the series whose label values `match` says to (e.g. those of a deleted group). */
  drop(match: (labels: Readonly<Record<L, string>>) => boolean): void {
    for (const [key, e] of this.series) {
      const labels = Object.fromEntries(this.labelNames.map((n, i) => [n, e.values[i]!])) as Record<
        L,
        string
      >;
      if (match(labels)) this.series.delete(key);
    }
  }

  /** The series named by `labels`, without creating it. */
  protected peek(labels: Labels<L> | undefined): S | undefined {
    return this.series.get(this.values(labels).join('\u0000'))?.state;
  }

  protected state(labels: Labels<L> | undefined, init: () => S): S {
    const values = this.values(labels);
    const key = values.join('\u0000');
    let entry = this.series.get(key);
    if (!entry) {
      entry = { values, state: init() };
      this.series.set(key, entry);
    }
    return entry.state;
  }

  /** Series in a stable order (by label values), so scrapes diff cleanly. */
  protected sorted(): Array<{ labels: Array<[string, string]>; state: S }> {
    return [...this.series.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, e]) => ({ labels: this.labelNames.map((n, i) => [n, e.values[i]!]), state: e.state }));
  }

  /** The sample lines of this metric (without HELP/TYPE). */
  abstract samples(): string[];

  /** HELP, TYPE and samples. */
  render(): string {
    return [
      `# HELP ${this.name} ${escapeHelp(this.help)}`,
      `# TYPE ${this.name} ${this.type}`,
      ...this.samples(),
    ]
      .join('\n')
      .concat('\n');
  }
}

/** A monotonically increasing count. */
export class Counter<L extends string = never> extends Metric<L, { v: number }> {
  readonly type = 'counter';

  /** Adds `by` (>= 0) to the series named by `labels`. */
  inc(labels?: Labels<L>, by = 1): void {
    if (!(by >= 0)) throw new Error(`counter ${this.name} cannot decrease`);
    this.state(labels, () => ({ v: 0 })).v += by;
  }

  /** Current value of a series (0 when never touched). */
  get(labels?: Labels<L>): number {
    return this.peek(labels)?.v ?? 0;
  }

  samples(): string[] {
    // A label-less counter exists from the start, so rate() sees its first increment.
    if (this.labelNames.length === 0 && this.series.size === 0) return [formatSample(this.name, [], 0)];
    return this.sorted().map((s) => formatSample(this.name, s.labels, s.state.v));
  }
}

/** A value that goes up and down. */
export class Gauge<L extends string = never> extends Metric<L, { v: number }> {
  readonly type = 'gauge';

  /** Sets the series named by `labels` to `value`. */
  set(labels: Labels<L> | undefined, value: number): void {
    this.state(labels, () => ({ v: 0 })).v = value;
  }

  /** Adds `by` (may be negative). */
  inc(labels?: Labels<L>, by = 1): void {
    this.state(labels, () => ({ v: 0 })).v += by;
  }

  /** Current value of a series (0 when never touched). */
  get(labels?: Labels<L>): number {
    return this.peek(labels)?.v ?? 0;
  }

  samples(): string[] {
    if (this.labelNames.length === 0 && this.series.size === 0) return [formatSample(this.name, [], 0)];
    return this.sorted().map((s) => formatSample(this.name, s.labels, s.state.v));
  }
}

interface HistogramState {
  /** Non-cumulative count per bucket; the last slot is `+Inf`. */
  counts: number[];
  sum: number;
  count: number;
}

/** Observations counted into cumulative buckets, with their sum and count. */
export class Histogram<L extends string = never> extends Metric<L, HistogramState> {
  readonly type = 'histogram';
  readonly buckets: readonly number[];

  constructor(opts: HistogramOptions<L>) {
    super(opts, ['le']);
    const b = opts.buckets;
    if (b.length === 0 || b.some((x, i) => !Number.isFinite(x) || (i > 0 && x <= b[i - 1]!))) {
      throw new Error(`histogram ${opts.name} needs ascending finite buckets`);
    }
    this.buckets = [...b];
  }

  /** Records one observation of `value`. */
  observe(labels: Labels<L> | undefined, value: number): void {
    const s = this.state(labels, () => ({
      counts: new Array(this.buckets.length + 1).fill(0),
      sum: 0,
      count: 0,
    }));
    let i = this.buckets.findIndex((le) => value <= le);
    if (i < 0) i = this.buckets.length;
    s.counts[i]!++;
    s.sum += value;
    s.count++;
  }

  /** Count and sum of a series (zeros when never observed). */
  get(labels?: Labels<L>): { count: number; sum: number } {
    const s = this.peek(labels);
    return { count: s?.count ?? 0, sum: s?.sum ?? 0 };
  }

  samples(): string[] {
    const out: string[] = [];
    const series = this.sorted();
    if (this.labelNames.length === 0 && series.length === 0) {
      series.push({
        labels: [],
        state: { counts: new Array(this.buckets.length + 1).fill(0), sum: 0, count: 0 },
      });
    }
    for (const { labels, state } of series) {
      let cumulative = 0;
      this.buckets.forEach((le, i) => {
        cumulative += state.counts[i]!;
        out.push(formatSample(`${this.name}_bucket`, [...labels, ['le', String(le)]], cumulative));
      });
      out.push(formatSample(`${this.name}_bucket`, [...labels, ['le', '+Inf']], state.count));
      out.push(formatSample(`${this.name}_sum`, labels, state.sum));
      out.push(formatSample(`${this.name}_count`, labels, state.count));
    }
    return out;
  }
}

/** Holds metrics in registration order and renders them all. */
export class MetricsRegistry {
  private readonly metrics: Array<Metric<string, unknown>> = [];
  private readonly collectors: Collector[] = [];

  /** Declares a counter. */
  counter<L extends string = never>(opts: MetricOptions<L>): Counter<L> {
    return this.add(new Counter<L>(opts));
  }

  /** Declares a gauge. */
  gauge<L extends string = never>(opts: MetricOptions<L>): Gauge<L> {
    return this.add(new Gauge<L>(opts));
  }

  /** Declares a histogram. */
  histogram<L extends string = never>(opts: HistogramOptions<L>): Histogram<L> {
    return this.add(new Histogram<L>(opts));
  }

  /** Adds a function run before every render (scrape-time gauges). */
  onCollect(collector: Collector): void {
    this.collectors.push(collector);
  }

  /** Runs the collectors, then renders every metric in the text format. */
  async render(): Promise<string> {
    // A failing collector must not cost the scrape the other metrics; collectors report their own trouble.
    await Promise.all(
      this.collectors.map((c) =>
        Promise.resolve()
          .then(c)
          .catch(() => undefined),
      ),
    );
    return this.metrics.map((m) => m.render()).join('');
  }

  /** Adds a metric built elsewhere (e.g. a `Summary`). */
  register<M extends Metric<string, unknown>>(m: M): M {
    return this.add(m);
  }

  private add<M extends Metric<string, unknown>>(m: M): M {
    if (this.metrics.some((x) => x.name === m.name)) throw new Error(`metric ${m.name} declared twice`);
    this.metrics.push(m);
    return m;
  }
}
