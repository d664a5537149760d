/**
 * The declared Grafana operations (docs/protocol.md#grafana): all GET and READ, parameters in the query
 * (Grafana sends every variable, possibly blank), parsed by the routes in `grafana.ts`.
 */
import { apiRoute, READ_ERRORS, REDIS_READ_ERRORS } from '../api-route.js';
import {
  directionParam,
  grafanaNameParam,
  groupCursorParam,
  groupLimitParam,
  limitParam,
  streamIdParam,
  textParam,
} from '../query-params.js';

const GRAFANA = '/coord/v1/monitoring/grafana';

/** The query parameters of the Grafana routes, which read them with `queryValue`. */
export const GRAFANA_PARAMS = {
  // The names must be present, may be blank.
  prefix: grafanaNameParam('streamPrefix', true, 'stream prefix (blank → no rows)'),
  group: grafanaNameParam('consumerGroup', true, 'consumer group (blank → no rows)'),
  anyPrefix: grafanaNameParam('streamPrefix', true, 'stream prefix (blank → any)'),
  anyGroup: grafanaNameParam('consumerGroup', true, 'consumer group (blank → any)'),
  optionalPrefix: grafanaNameParam('streamPrefix', false, 'only groups of this stream'),
  shardIndex: textParam('shardIndex', 'a shard index, or all / .* / __all / $__all'),
  cursor: textParam(
    'cursor',
    'page cursor (`all:<i>=<id>,…`, `__rsc_last__`, `__rsc_tail__:<n>`); a tail page whose window needs more than 10,000 records read from Redis in all answers 400',
  ),
  recordId: streamIdParam('recordId', 'exact entry id to look up across all shards'),
  direction: directionParam,
  limit: {
    ...limitParam,
    description:
      'page size, clamped to 1..1000; a merged page (all shards) reads limit+2 records from each shard and is clamped further to stay within 10,000 records (the rows report the limit used)',
  },
} as const;
const P = GRAFANA_PARAMS;
const grafanaGroupRequired = [P.prefix, P.group];

/** Grafana operations, by handler. */
export const GRAFANA_ROUTES = {
  groups: apiRoute({
    method: 'get',
    path: `${GRAFANA}/groups`,
    operationId: 'grafanaGroups',
    tag: 'Grafana',
    access: 'READ',
    summary: 'One row per group with totals and rates',
    description:
      'Every group without `limit` and `cursor` (what dashboards send); with either, only the groups of that page of GET /monitoring/groups (docs/protocol.md#listing-groups-in-pages).',
    query: [
      { ...groupLimitParam, description: 'groups per page, 1..1000 (absent, with no cursor: every group)' },
      groupCursorParam,
    ],
    success: { status: 200, description: 'Rows', body: { arrayOf: 'GrafanaGroupRow' } },
    errors: REDIS_READ_ERRORS,
  }),
  streamOptions: apiRoute({
    method: 'get',
    path: `${GRAFANA}/options/streams`,
    operationId: 'grafanaStreamOptions',
    tag: 'Grafana',
    access: 'READ',
    summary: 'Stream prefixes as variable options',
    success: { status: 200, description: 'Options', body: { arrayOf: 'GrafanaOption' } },
    errors: READ_ERRORS,
  }),
  groupOptions: apiRoute({
    method: 'get',
    path: `${GRAFANA}/options/consumer-groups`,
    operationId: 'grafanaGroupOptions',
    tag: 'Grafana',
    access: 'READ',
    summary: 'Consumer groups as variable options',
    query: [P.optionalPrefix],
    success: { status: 200, description: 'Options', body: { arrayOf: 'GrafanaOption' } },
    errors: READ_ERRORS,
  }),
  shardOptions: apiRoute({
    method: 'get',
    path: `${GRAFANA}/options/shards`,
    operationId: 'grafanaShardOptions',
    tag: 'Grafana',
    access: 'READ',
    summary: 'Consumable shards of a group as variable options',
    query: grafanaGroupRequired,
    success: { status: 200, description: 'Options', body: { arrayOf: 'GrafanaOption' } },
    errors: [...READ_ERRORS, 'GROUP_NOT_FOUND'],
  }),
  members: apiRoute({
    method: 'get',
    path: `${GRAFANA}/members`,
    operationId: 'grafanaMembers',
    tag: 'Grafana',
    access: 'READ',
    summary: 'Member rows of a group',
    query: grafanaGroupRequired,
    success: { status: 200, description: 'Rows', body: { arrayOf: 'GrafanaMemberRow' } },
    errors: [...READ_ERRORS, 'GROUP_NOT_FOUND'],
  }),
  shards: apiRoute({
    method: 'get',
    path: `${GRAFANA}/shards`,
    operationId: 'grafanaShards',
    tag: 'Grafana',
    access: 'READ',
    summary: 'Shard rows (both parameters blank → every group; one blank → filter by the other)',
    query: [P.anyPrefix, P.anyGroup],
    success: { status: 200, description: 'Rows', body: { arrayOf: 'GrafanaShardRow' } },
    errors: REDIS_READ_ERRORS,
  }),
  assignments: apiRoute({
    method: 'get',
    path: `${GRAFANA}/assignments`,
    operationId: 'grafanaAssignments',
    tag: 'Grafana',
    access: 'READ',
    summary: 'Per-shard target, current and revoking owners of a group',
    query: grafanaGroupRequired,
    success: { status: 200, description: 'Rows', body: { arrayOf: 'GrafanaAssignmentRow' } },
    errors: [...READ_ERRORS, 'GROUP_NOT_FOUND'],
  }),
  messages: apiRoute({
    method: 'get',
    path: `${GRAFANA}/messages`,
    operationId: 'grafanaMessages',
    tag: 'Grafana',
    access: 'READ',
    summary: 'Message rows of one shard or all shards, with merged paging',
    query: [...grafanaGroupRequired, P.shardIndex, P.direction, P.cursor, P.recordId, P.limit],
    success: { status: 200, description: 'Rows', body: { arrayOf: 'GrafanaMessageRow' } },
    errors: REDIS_READ_ERRORS,
  }),
};
