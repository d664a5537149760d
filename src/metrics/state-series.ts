/**
 * The scrape-time series of `GET /metrics` (docs/metrics.md#metrics): counts by state from the
 * stored metadata, and lag and pending per shard of every group from the cached lag readings —
 * the same snapshot, lag cache and label slots as `/actuator/prometheus`, so scraping both
 * endpoints reads the shards once per refresh, and only groups that exist take a slot.
 */
import type { GroupSnapshot } from '../coordinator-api.js';
import { GROUP_STATES, groupGauges, MEMBER_STATES, MIGRATION_STATES } from './group-gauges.js';
import type { GroupLag } from './group-lag.js';
import { type LabelBudget, OTHER_LABEL } from './label-budget.js';
import type { MetricsRegistry } from './registry.js';

/** Declares the scrape-time gauges of `/metrics` on `registry`. */
export function declareStateSeries(registry: MetricsRegistry) {
  return {
    streams: registry.gauge({ name: 'rsc_streams', help: 'Streams in the namespace.' }),
    shards: registry.gauge({ name: 'rsc_shards', help: 'Sum of the streams shard counts.' }),
    groups: registry.gauge({ name: 'rsc_groups', help: 'Consumer groups by state.', labelNames: ['state'] }),
    members: registry.gauge({
      name: 'rsc_members',
      help: 'Members of every group by state.',
      labelNames: ['state'],
    }),
    migrations: registry.gauge({
      name: 'rsc_migrations',
      help: 'Migrations kept in the streams histories, by state.',
      labelNames: ['state'],
    }),
    activeMigrations: registry.gauge({
      name: 'rsc_active_migrations',
      help: 'Streams with an active migration.',
    }),
    metadataUp: registry.gauge({
      name: 'rsc_metadata_read_up',
      help: '1 when the scrape-time read of the stored metadata succeeded, else 0 (the state gauges then read 0).',
    }),
    shardLag: registry.gauge({
      name: 'rsc_shard_lag',
      help: 'Entries of the shard not yet delivered to the group (XINFO GROUPS lag, cached); absent when Redis cannot tell.',
      labelNames: ['stream', 'group', 'shard'],
    }),
    shardPending: registry.gauge({
      name: 'rsc_shard_pending',
      help: 'Entries of the shard delivered to the group and not acknowledged (XINFO GROUPS pending, cached).',
      labelNames: ['stream', 'group', 'shard'],
    }),
    lagReadAge: registry.gauge({
      name: 'rsc_lag_read_age_seconds',
      help: 'Age of the cached lag readings behind rsc_shard_lag and rsc_shard_pending.',
    }),
  };
}

/** The gauges `declareStateSeries` declares. */
type StateSeries = ReturnType<typeof declareStateSeries>;

/** What one scrape read: the snapshot (null when the read failed) and the lag of its groups. */
export interface StateReading {
  snaps: readonly GroupSnapshot[] | null;
  lags: readonly GroupLag[];
  /** Label slots, already given from `snaps`; null: no per-shard series (a public `/metrics`). */
  budget: LabelBudget | null;
  /** Age of the lag readings, seconds (0 without any). */
  lagAgeSeconds: number;
}

/** Resets every scrape-time gauge and fills it from `r`. */
export function fillStateSeries(s: StateSeries, r: StateReading): void {
  for (const g of [s.streams, s.shards, s.groups, s.members, s.migrations, s.activeMigrations]) g.reset();
  s.shardLag.reset();
  s.shardPending.reset();
  if (r.snaps === null) {
    // Redis trouble shows as rsc_metadata_read_up 0 (and in the request metrics), not as a failed scrape.
    s.metadataUp.set(undefined, 0);
    return;
  }
  const g = groupGauges(r.snaps);
  s.metadataUp.set(undefined, 1);
  s.streams.set(undefined, g.streams);
  s.shards.set(undefined, g.shards);
  s.activeMigrations.set(undefined, g.activeMigrations);
  for (const st of GROUP_STATES) s.groups.set({ state: st }, g.groupsByState[st]);
  for (const st of MEMBER_STATES) s.members.set({ state: st }, g.membersByState[st]);
  for (const st of MIGRATION_STATES) s.migrations.set({ state: st }, g.migrationsByState[st]);
  s.lagReadAge.set(undefined, r.lagAgeSeconds);
  const budget = r.budget;
  if (budget === null) return;
  // Pairs without a slot are summed under `_other` (shard `_other` too), as on /actuator/prometheus.
  for (const lag of r.lags) {
    const pair = budget.lookup(lag.streamPrefix, lag.consumerGroup);
    const other = pair.stream === OTHER_LABEL;
    for (const shard of lag.shards) {
      const labels = { ...pair, shard: other ? OTHER_LABEL : String(shard.shardIndex) };
      if (shard.lag !== null) s.shardLag.inc(labels, shard.lag);
      s.shardPending.inc(labels, shard.pending);
    }
  }
}
