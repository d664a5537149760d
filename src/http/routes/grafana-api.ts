/**
 * The declared Grafana operations (PROTOCOL §2.10): all GET and READ, parameters in the query
 * (Grafana sends every variable, possibly blank), parsed by the routes in `grafana.ts`.
 */
import { apiRoute, type QueryParam, READ_ERRORS, REDIS_READ_ERRORS } from '../api-route.js';

const GRAFANA = '/coord/v1/monitoring/grafana';

const directionParam: QueryParam = {
  name: 'direction',
  description: 'BACKWARD (newest first, default) or FORWARD',
  schema: { type: 'string', enum: ['BACKWARD', 'FORWARD'], default: 'BACKWARD' },
};
const limitParam: QueryParam = {
  name: 'limit',
  description: 'page size, clamped to 1..1000',
  schema: { type: 'integer', default: 25 },
};
// The parameters must be present, may be empty.
const grafanaGroupRequired: readonly QueryParam[] = [
  { name: 'streamPrefix', required: true, description: 'stream prefix (blank → no rows)' },
  { name: 'consumerGroup', required: true, description: 'consumer group (blank → no rows)' },
];

/** Grafana operations, by handler. */
export const GRAFANA_ROUTES = {
  groups: apiRoute({
    method: 'get',
    path: `${GRAFANA}/groups`,
    operationId: 'grafanaGroups',
    tag: 'Grafana',
    access: 'READ',
    summary: 'One row per group with totals and rates',
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
    query: [{ name: 'streamPrefix', description: 'only groups of this stream' }],
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
    query: [
      { name: 'streamPrefix', required: true, description: 'stream prefix (blank → any)' },
      { name: 'consumerGroup', required: true, description: 'consumer group (blank → any)' },
    ],
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
    query: [
      ...grafanaGroupRequired,
      { name: 'shardIndex', description: 'a shard index, or all / .* / __all / $__all' },
      directionParam,
      {
        name: 'cursor',
        description:
          'page cursor (`all:<i>=<id>,…`, `__rsc_last__`, `__rsc_tail__:<n>`); a tail page whose window needs more than 10,000 records read from Redis in all answers 400',
      },
      { name: 'recordId', description: 'exact entry id to look up across all shards' },
      {
        ...limitParam,
        description:
          'page size, clamped to 1..1000; a merged page (all shards) reads limit+2 records from each shard and is clamped further to stay within 10,000 records (the rows report the limit used)',
      },
    ],
    success: { status: 200, description: 'Rows', body: { arrayOf: 'GrafanaMessageRow' } },
    errors: REDIS_READ_ERRORS,
  }),
};
