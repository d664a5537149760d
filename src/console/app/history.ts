/**
 * The group page's in-page history of lag and throughput: one sample per successful `/lag` read
 * (`readAtMs`, per shard `entriesRead` and `lag`), kept for a bounded window, and the series the
 * charts draw from it. Pure functions and plain data: nothing here reads the clock or the page.
 *
 * Records/s come from counters Redis keeps per consumer group, not from stream lengths, so a
 * producer's `MAXLEN` trimming does not look like consumption: consumed = growth of
 * `entries-read`; produced = growth of `entries-read + lag` (the entries ever added).
 */

/** How far back the history reaches (docs/console.md#pages). */
export const HISTORY_WINDOW_MS = 15 * 60 * 1000;

/** At most this many samples per group, whatever the refresh rate. */
const HISTORY_MAX_SAMPLES = 1000;

/** What one `/lag` read says about one shard. */
interface ShardCounters {
  entriesRead: number | null;
  lag: number | null;
}

/** One read of a group: when Redis was read (epoch ms), the totals and each shard's counters. */
export interface LagSample {
  at: number;
  totalLag: number;
  totalPending: number;
  shards: ReadonlyMap<number, ShardCounters>;
}

/** The `/lag` answer fields a sample is made of. */
export interface LagReading {
  readAtMs: number;
  totalLag: number;
  totalPending: number;
  shards: ReadonlyArray<{ shardIndex: number; entriesRead: number | null; lag: number | null }>;
}

/** A `/lag` answer as a sample. */
export function sampleOf(r: LagReading): LagSample {
  const shards = new Map<number, ShardCounters>();
  for (const s of r.shards) shards.set(s.shardIndex, { entriesRead: s.entriesRead, lag: s.lag });
  return { at: r.readAtMs, totalLag: r.totalLag, totalPending: r.totalPending, shards };
}

/**
 * `history` with `sample` appended (a sample not newer than the last is dropped) and whatever
 * lies more than `HISTORY_WINDOW_MS` before it removed; at most `HISTORY_MAX_SAMPLES` kept.
 */
export function appendSample(history: readonly LagSample[], sample: LagSample): LagSample[] {
  const last = history[history.length - 1];
  if (last && sample.at <= last.at) return history.slice();
  const from = sample.at - HISTORY_WINDOW_MS;
  const kept = history.filter((s) => s.at >= from);
  kept.push(sample);
  return kept.length > HISTORY_MAX_SAMPLES ? kept.slice(kept.length - HISTORY_MAX_SAMPLES) : kept;
}

/** Records/s between two samples: null when no shard of both samples has the counters needed. */
export interface Rates {
  producedPerSecond: number | null;
  consumedPerSecond: number | null;
}

/** Rates from `prev` to `cur`, over the shards both know (a new or retired shard is left out). */
export function ratesBetween(prev: LagSample, cur: LagSample): Rates {
  const seconds = (cur.at - prev.at) / 1000;
  if (!(seconds > 0)) return { producedPerSecond: null, consumedPerSecond: null };
  let read: number | null = null;
  let added: number | null = null;
  for (const [shard, now] of cur.shards) {
    const before = prev.shards.get(shard);
    if (!before || now.entriesRead === null || before.entriesRead === null) continue;
    // Counters only grow; a smaller one means the key was recreated: no rate for that shard.
    const dRead = now.entriesRead - before.entriesRead;
    if (dRead < 0) continue;
    read = (read ?? 0) + dRead;
    if (now.lag !== null && before.lag !== null) {
      const dAdded = now.entriesRead + now.lag - (before.entriesRead + before.lag);
      if (dAdded >= 0) added = (added ?? 0) + dAdded;
    }
  }
  const per = (n: number | null) => (n === null ? null : Math.round((n / seconds) * 100) / 100);
  return { producedPerSecond: per(added), consumedPerSecond: per(read) };
}

/** Columns as uPlot takes them: x in seconds, then one array per series (null: a gap). */
export interface ChartColumns {
  lag: [number[], Array<number | null>, Array<number | null>];
  rate: [number[], Array<number | null>, Array<number | null>];
}

/**
 * The charts' data: total lag and pending at each sample; produced and consumed records/s over
 * each interval, drawn at its end (the first sample has none). Across refreshes that were
 * skipped (paused, hidden tab) the rate is the average over the whole interval.
 */
export function chartColumns(history: readonly LagSample[]): ChartColumns {
  const xs = history.map((s) => s.at / 1000);
  const produced: Array<number | null> = [];
  const consumed: Array<number | null> = [];
  history.forEach((s, i) => {
    const prev = history[i - 1];
    const r = prev ? ratesBetween(prev, s) : { producedPerSecond: null, consumedPerSecond: null };
    produced.push(r.producedPerSecond);
    consumed.push(r.consumedPerSecond);
  });
  return {
    lag: [xs, history.map((s) => s.totalLag), history.map((s) => s.totalPending)],
    rate: [xs, produced, consumed],
  };
}

/** Most shards the per-shard chart draws: a line per shard stays readable up to about this many. */
export const SHARD_LINES_MAX = 8;

/** The per-shard lag chart's data: the shards drawn, in index order, and uPlot's columns. */
export interface ShardLagColumns {
  shards: number[];
  /** x in seconds, then each drawn shard's lag at every sample (null: unknown or not a shard then). */
  data: Array<Array<number | null>>;
}

/**
 * Lag per shard over the history, for the shards of the newest sample: all of them up to `max`,
 * else the `max` with the most lag now (ties: lower index), so a backlog building on one shard
 * stays in sight whatever the shard count.
 */
export function shardLagColumns(history: readonly LagSample[], max = SHARD_LINES_MAX): ShardLagColumns {
  const last = history[history.length - 1];
  if (!last) return { shards: [], data: [[]] };
  const lagNow = (i: number) => last.shards.get(i)?.lag ?? -1;
  const shards = [...last.shards.keys()]
    .sort((a, b) => lagNow(b) - lagNow(a) || a - b)
    .slice(0, max)
    .sort((a, b) => a - b);
  return {
    shards,
    data: [
      history.map((s) => s.at / 1000),
      ...shards.map((i) => history.map((s) => s.shards.get(i)?.lag ?? null)),
    ],
  };
}
