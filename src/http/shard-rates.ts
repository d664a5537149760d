/**
 * Produced/consumed rates for Grafana (docs/protocol.md#grafana), from successive observations kept in
 * this process's memory, per group. The first observation of a group has no rates (null).
 *
 * produced = growth of `entries-added` (falls back to stream length when the server does not
 *            report it), so trimming and XDEL do not look like negative production;
 * consumed = produced − growth of lag, known only when both observations have a lag.
 * Both are per second, clamped at 0 and rounded to 2 decimals.
 */

/** What one shard looked like at one observation. */
export interface ShardSample {
  shard: number;
  streamLength: number;
  entriesAdded: number | null;
  lag: number | null;
}

/** Rates of one shard; null until two observations exist (consumed: also when lag is unknown). */
export interface ShardRate {
  producedPerSecond: number | null;
  consumedPerSecond: number | null;
}

/** Rounds to 2 decimals. */
function roundRate(v: number): number {
  return Math.round(v * 100) / 100;
}

/** Sum of the known values (rounded), or null when none is known. */
export function sumKnown(values: Iterable<number | null>): number | null {
  let sum = 0;
  let found = false;
  for (const v of values) {
    if (v === null) continue;
    sum += v;
    found = true;
  }
  return found ? roundRate(sum) : null;
}

const NO_RATE: ShardRate = { producedPerSecond: null, consumedPerSecond: null };

function rateBetween(prev: ShardSample, cur: ShardSample, seconds: number): ShardRate {
  const produced =
    prev.entriesAdded !== null && cur.entriesAdded !== null
      ? cur.entriesAdded - prev.entriesAdded
      : cur.streamLength - prev.streamLength;
  const producedDelta = Math.max(0, produced);
  const lagDelta = prev.lag !== null && cur.lag !== null ? cur.lag - prev.lag : null;
  return {
    producedPerSecond: roundRate(producedDelta / seconds),
    consumedPerSecond: lagDelta === null ? null : roundRate(Math.max(0, producedDelta - lagDelta) / seconds),
  };
}

/** One observation of a group. */
interface Observation {
  at: number;
  shards: Map<number, ShardSample>;
}

/**
 * Observations closer together than this are not used as a rate baseline: a dashboard that
 * asks `/groups` and `/shards` in the same refresh would otherwise divide by a few ms.
 */
export const MIN_RATE_INTERVAL_MS = 1000;

/** Per-process memory of the last two usable observations of every group. */
export class ShardRateObserver {
  private readonly seen = new Map<string, { older: Observation | null; newer: Observation }>();

  /** Records `samples` of group (`prefix`, `group`) at `at` (epoch ms) and returns each shard's rate. */
  observe(
    prefix: string,
    group: string,
    at: number,
    samples: readonly ShardSample[],
  ): Map<number, ShardRate> {
    const key = JSON.stringify([prefix, group]);
    const now: Observation = { at, shards: new Map(samples.map((s) => [s.shard, s])) };
    const state = this.seen.get(key);
    let base: Observation | null = null;
    if (state === undefined) {
      this.seen.set(key, { older: null, newer: now });
    } else if (at - state.newer.at >= MIN_RATE_INTERVAL_MS) {
      base = state.newer;
      this.seen.set(key, { older: state.newer, newer: now });
    } else {
      // Too soon after the last one: measure against the one before it, keep the stored pair.
      base = state.older;
    }
    const out = new Map<number, ShardRate>();
    for (const s of samples) {
      const before = base?.shards.get(s.shard);
      const seconds = base === null ? 0 : (at - base.at) / 1000;
      out.set(s.shard, before === undefined || seconds <= 0 ? NO_RATE : rateBetween(before, s, seconds));
    }
    return out;
  }

  /** Forgets groups not in `live` (deleted groups). */
  retain(live: ReadonlyArray<readonly [prefix: string, group: string]>): void {
    const keep = new Set(live.map(([p, g]) => JSON.stringify([p, g])));
    for (const key of this.seen.keys()) if (!keep.has(key)) this.seen.delete(key);
  }
}
