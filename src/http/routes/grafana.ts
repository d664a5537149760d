/**
 * Grafana routes under `/monitoring/grafana` (docs/protocol.md#grafana): flat JSON arrays for dashboard
 * variables and tables. Blank name parameters answer `[]` (or widen `/shards` to every group);
 * rates come from this instance's in-memory observations.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { GroupSnapshot } from '../../coordinator-api.js';
import { apiRouter } from '../api-route.js';
import type { AppEnv, ResolvedDeps } from '../context.js';
import {
  consumerGroupOptions,
  grafanaAssignmentRows,
  grafanaGroupRow,
  grafanaMemberRows,
  grafanaShardRows,
  shardOptions,
  streamOptions,
} from '../grafana-views.js';
import { listGroupPage } from '../group-list.js';
import { requireInspector } from '../monitoring-query.js';
import { groupCursorParam, groupLimitParam, queryValue } from '../query-params.js';
import { ShardRateObserver } from '../shard-rates.js';
import { GRAFANA_ROUTES, GRAFANA_PARAMS as P } from './grafana-api.js';
import { grafanaMessages } from './grafana-messages.js';
import { readGroupOffsets } from './offsets.js';

/** Groups whose shards are read at the same time (each read is already pipelined per shard). */
const GROUP_CONCURRENCY = 8;

/** `fn` over `items` in batches of `GROUP_CONCURRENCY`, results in input order. */
async function inBatches<T, R>(items: readonly T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += GROUP_CONCURRENCY) {
    out.push(...(await Promise.all(items.slice(i, i + GROUP_CONCURRENCY).map(fn))));
  }
  return out;
}

/** Routes under `/coord/v1/monitoring/grafana`. */
export function grafanaRoutes(deps: ResolvedDeps): OpenAPIHono<AppEnv> {
  const { coordinator } = deps;
  const rates = new ShardRateObserver();
  const r = GRAFANA_ROUTES;
  const app = apiRouter();

  /** The group named by both query parameters, or null when either is blank. */
  const namedGroup = async (c: Context<AppEnv>): Promise<GroupSnapshot | null> => {
    const prefix = queryValue(c, P.prefix);
    const group = queryValue(c, P.group);
    if (prefix === null || group === null) return null;
    return coordinator.getGroup(prefix, group);
  };

  /** Offsets of `snap` and its shards' rates, recorded as one observation at the request time. */
  const observe = async (c: Context<AppEnv>, snap: GroupSnapshot) => {
    const { offsets, samples } = await readGroupOffsets(requireInspector(deps.inspector), snap);
    const shardRates = rates.observe(
      snap.group.streamPrefix,
      snap.group.consumerGroup,
      c.get('now'),
      samples,
    );
    return { offsets, shardRates };
  };

  app.openapi(r.groups.route, async (c) => {
    requireInspector(deps.inspector);
    const paged = c.req.query('limit') !== undefined || c.req.query('cursor') !== undefined;
    let snaps: GroupSnapshot[];
    if (paged) {
      // One page (the console's): only its groups are read; other groups' rates are kept.
      const limit = queryValue(c, groupLimitParam);
      const after = queryValue(c, groupCursorParam);
      snaps = (await listGroupPage(coordinator, { limit, after })).groups;
    } else {
      snaps = await coordinator.listGroups();
      rates.retain(snaps.map((s) => [s.group.streamPrefix, s.group.consumerGroup] as const));
    }
    const rows = await inBatches(snaps, async (snap) => {
      const { offsets, shardRates } = await observe(c, snap);
      return grafanaGroupRow(snap, offsets, shardRates);
    });
    return c.json(rows, 200);
  });

  app.openapi(r.streamOptions.route, async (c) => c.json(streamOptions(await coordinator.listGroups()), 200));

  app.openapi(r.groupOptions.route, async (c) => {
    const prefix = queryValue(c, P.optionalPrefix);
    return c.json(consumerGroupOptions(await coordinator.listGroups(), prefix), 200);
  });

  app.openapi(r.shardOptions.route, async (c) => {
    const snap = await namedGroup(c);
    return c.json(snap === null ? [] : shardOptions(snap.stream), 200);
  });

  app.openapi(r.members.route, async (c) => {
    const snap = await namedGroup(c);
    return c.json(snap === null ? [] : grafanaMemberRows(snap.group), 200);
  });

  app.openapi(r.shards.route, async (c) => {
    const prefix = queryValue(c, P.anyPrefix);
    const group = queryValue(c, P.anyGroup);
    requireInspector(deps.inspector);
    const snaps =
      prefix !== null && group !== null
        ? [await coordinator.getGroup(prefix, group)]
        : (await coordinator.listGroups()).filter(
            (s) =>
              (prefix === null || s.group.streamPrefix === prefix) &&
              (group === null || s.group.consumerGroup === group),
          );
    const rows = await inBatches(snaps, async (snap) => {
      const { offsets, shardRates } = await observe(c, snap);
      return grafanaShardRows(snap, offsets, shardRates);
    });
    return c.json(rows.flat(), 200);
  });

  app.openapi(r.assignments.route, async (c) => {
    const snap = await namedGroup(c);
    return c.json(snap === null ? [] : grafanaAssignmentRows(snap), 200);
  });

  app.openapi(r.messages.route, async (c) => c.json(await grafanaMessages(c, deps), 200));

  return app;
}
