/**
 * Catalogue entries of the monitoring and Grafana routes (PROTOCOL §2.9–2.10), all GET and READ.
 */
import type { ErrorCode } from '../core/errors.js';
import type { OperationSpec, QueryParam } from './openapi-operations.js';

const BASE = '/coord/v1/monitoring';
const GROUP = `${BASE}/streams/:streamPrefix/groups/:consumerGroup`;
const GRAFANA = `${BASE}/grafana`;

const READ_ERRORS: readonly ErrorCode[] = [
  'INVALID_REQUEST',
  'METADATA_CORRUPT',
  'INTERNAL_ERROR',
  'REDIS_UNAVAILABLE',
];
/** Routes that read the shards themselves need the read-only Redis inspector. */
const REDIS_READ_ERRORS: readonly ErrorCode[] = [...READ_ERRORS, 'GROUP_NOT_FOUND', 'REDIS_NOT_CONFIGURED'];

const direction: QueryParam = {
  name: 'direction',
  description: 'BACKWARD (newest first, default) or FORWARD',
  schema: { type: 'string', enum: ['BACKWARD', 'FORWARD'], default: 'BACKWARD' },
};
const cursor: QueryParam = { name: 'cursor', description: 'nextCursor of the previous page' };
const limit: QueryParam = {
  name: 'limit',
  description: 'page size, clamped to 1..1000',
  schema: { type: 'integer', default: 25 },
};
// Grafana sends every variable, possibly blank: the parameters must be present, may be empty.
const grafanaGroupRequired: readonly QueryParam[] = [
  { name: 'streamPrefix', required: true, description: 'stream prefix (blank → no rows)' },
  { name: 'consumerGroup', required: true, description: 'consumer group (blank → no rows)' },
];

/** Monitoring and Grafana operations. */
export const MONITORING_OPERATIONS: readonly OperationSpec[] = [
  {
    method: 'GET',
    path: `${GROUP}/migrations`,
    operationId: 'listMigrations',
    tag: 'Resharding',
    summary: 'Migrations of the group’s stream, oldest first',
    success: { status: 200, description: 'Migrations', body: { component: 'MigrationsResponse' } },
    errors: [...READ_ERRORS, 'GROUP_NOT_FOUND'],
  },
  {
    method: 'GET',
    path: `${GROUP}/offsets`,
    operationId: 'getOffsets',
    tag: 'Monitoring',
    summary: 'Per-shard length, ids, pending, lag and memory (read from Redis)',
    success: { status: 200, description: 'Offsets', body: { component: 'StreamShardOffsetsResponse' } },
    errors: REDIS_READ_ERRORS,
  },
  {
    method: 'GET',
    path: `${GROUP}/shards/:shardIndex/messages`,
    operationId: 'getMessages',
    tag: 'Monitoring',
    summary: 'A page of one shard’s entries (XRANGE/XREVRANGE; never moves group state)',
    query: [direction, cursor, limit],
    success: { status: 200, description: 'Page', body: { component: 'StreamMessagesPageResponse' } },
    errors: REDIS_READ_ERRORS,
  },
  {
    method: 'GET',
    path: `${GRAFANA}/groups`,
    operationId: 'grafanaGroups',
    tag: 'Grafana',
    summary: 'One row per group with totals and rates',
    success: { status: 200, description: 'Rows', body: { arrayOf: 'GrafanaGroupRow' } },
    errors: REDIS_READ_ERRORS,
  },
  {
    method: 'GET',
    path: `${GRAFANA}/options/streams`,
    operationId: 'grafanaStreamOptions',
    tag: 'Grafana',
    summary: 'Stream prefixes as variable options',
    success: { status: 200, description: 'Options', body: { arrayOf: 'GrafanaOption' } },
    errors: READ_ERRORS,
  },
  {
    method: 'GET',
    path: `${GRAFANA}/options/consumer-groups`,
    operationId: 'grafanaGroupOptions',
    tag: 'Grafana',
    summary: 'Consumer groups as variable options',
    query: [{ name: 'streamPrefix', description: 'only groups of this stream' }],
    success: { status: 200, description: 'Options', body: { arrayOf: 'GrafanaOption' } },
    errors: READ_ERRORS,
  },
  {
    method: 'GET',
    path: `${GRAFANA}/options/shards`,
    operationId: 'grafanaShardOptions',
    tag: 'Grafana',
    summary: 'Consumable shards of a group as variable options',
    query: grafanaGroupRequired,
    success: { status: 200, description: 'Options', body: { arrayOf: 'GrafanaOption' } },
    errors: [...READ_ERRORS, 'GROUP_NOT_FOUND'],
  },
  {
    method: 'GET',
    path: `${GRAFANA}/members`,
    operationId: 'grafanaMembers',
    tag: 'Grafana',
    summary: 'Member rows of a group',
    query: grafanaGroupRequired,
    success: { status: 200, description: 'Rows', body: { arrayOf: 'GrafanaMemberRow' } },
    errors: [...READ_ERRORS, 'GROUP_NOT_FOUND'],
  },
  {
    method: 'GET',
    path: `${GRAFANA}/shards`,
    operationId: 'grafanaShards',
    tag: 'Grafana',
    summary: 'Shard rows (both parameters blank → every group; one blank → filter by the other)',
    query: [
      { name: 'streamPrefix', required: true, description: 'stream prefix (blank → any)' },
      { name: 'consumerGroup', required: true, description: 'consumer group (blank → any)' },
    ],
    success: { status: 200, description: 'Rows', body: { arrayOf: 'GrafanaShardRow' } },
    errors: REDIS_READ_ERRORS,
  },
  {
    method: 'GET',
    path: `${GRAFANA}/assignments`,
    operationId: 'grafanaAssignments',
    tag: 'Grafana',
    summary: 'Per-shard target, current and revoking owners of a group',
    query: grafanaGroupRequired,
    success: { status: 200, description: 'Rows', body: { arrayOf: 'GrafanaAssignmentRow' } },
    errors: [...READ_ERRORS, 'GROUP_NOT_FOUND'],
  },
  {
    method: 'GET',
    path: `${GRAFANA}/messages`,
    operationId: 'grafanaMessages',
    tag: 'Grafana',
    summary: 'Message rows of one shard or all shards, with merged paging',
    query: [
      ...grafanaGroupRequired,
      { name: 'shardIndex', description: 'a shard index, or all / .* / __all / $__all' },
      direction,
      {
        name: 'cursor',
        description:
          'page cursor (`all:<i>=<id>,…`, `__rsc_last__`, `__rsc_tail__:<n>`); a tail page whose window needs more than 10,000 records read from Redis in all answers 400',
      },
      { name: 'recordId', description: 'exact entry id to look up across all shards' },
      {
        ...limit,
        description:
          'page size, clamped to 1..1000; a merged page (all shards) reads limit+2 records from each shard and is clamped further to stay within 10,000 records (the rows report the limit used)',
      },
    ],
    success: { status: 200, description: 'Rows', body: { arrayOf: 'GrafanaMessageRow' } },
    errors: REDIS_READ_ERRORS,
  },
];
