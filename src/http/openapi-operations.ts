/**
 * What the OpenAPI document says about each route: the catalogue of operations, keyed by the
 * Hono method and pattern the app serves. `test/ops/openapi.test.ts` checks it against
 * `app.routes` both ways, so a new route without an entry here fails the build.
 */
import type { ErrorCode } from '../core/errors.js';
import type { ApiRoute, QueryParam, SuccessBody, Tag } from './api-route.js';
import type { ComponentName } from './openapi-components.js';
import { MONITORING_OPERATIONS } from './openapi-monitoring-operations.js';
import { SERVICE_OPERATIONS } from './openapi-service-operations.js';
import { API_ROUTES } from './route-table.js';

export type { QueryParam, SuccessBody, Tag } from './api-route.js';
export { TAGS } from './api-route.js';

/** One served route. */
export interface OperationSpec {
  method: 'GET' | 'POST' | 'DELETE';
  /** The Hono pattern, e.g. `/coord/v1/streams/:streamPrefix`. */
  path: string;
  operationId: string;
  tag: Tag;
  summary: string;
  description?: string;
  query?: readonly QueryParam[];
  body?: { component: ComponentName; required: boolean };
  success: { status: number; description: string; body: SuccessBody };
  /** Error codes this route answers with (401/403 are added for routes that need a role). */
  errors: readonly ErrorCode[];
}

const BASE = '/coord/v1';
const GROUP = `${BASE}/streams/:streamPrefix/groups/:consumerGroup`;

/** Failures any route that reads stored metadata can answer. */
const READ_ERRORS: readonly ErrorCode[] = [
  'INVALID_REQUEST',
  'METADATA_CORRUPT',
  'INTERNAL_ERROR',
  'REDIS_UNAVAILABLE',
];
/** Failures of every critical section (mutex, CAS retries, shutdown). */
const MUTATION_ERRORS: readonly ErrorCode[] = [
  ...READ_ERRORS,
  'PAYLOAD_TOO_LARGE',
  'STATE_VERSION_CONFLICT',
  'COORDINATOR_STATE_MUTEX_UNAVAILABLE',
  'COORDINATOR_TERMINATING',
];
/** Admin mutations also count against the optional rate limit. */
const ADMIN_ERRORS: readonly ErrorCode[] = [...MUTATION_ERRORS, 'RATE_LIMIT_EXCEEDED'];

const ADMIN_OPERATIONS: readonly OperationSpec[] = [
  {
    method: 'POST',
    path: `${BASE}/streams/:streamPrefix`,
    operationId: 'createStream',
    tag: 'Streams and groups',
    summary: 'Create a stream and its first consumer group',
    description:
      'Creates `initialShardCount` shards (default from configuration) and the group `consumerGroup` (default: the prefix), provisioning the Redis consumer group on every shard. Beyond `COORDINATOR_MAX_STREAMS` streams it answers 409 `STREAM_LIMIT_REACHED` and writes nothing.',
    body: { component: 'CreateStreamRequest', required: true },
    success: { status: 201, description: 'Created', body: { component: 'StreamCreateResponse' } },
    errors: [
      ...ADMIN_ERRORS,
      'STREAM_PREFIX_ALREADY_EXISTS',
      'STREAM_LIMIT_REACHED',
      'REDIS_STREAM_PROVISIONING_FAILED',
    ],
  },
  {
    method: 'POST',
    path: GROUP,
    operationId: 'createGroup',
    tag: 'Streams and groups',
    summary: 'Add a consumer group to a stream (or create the stream with it)',
    description:
      'Beyond `COORDINATOR_MAX_GROUPS_PER_STREAM` groups on the stream it answers 409 `GROUP_LIMIT_REACHED` before the group is provisioned on any shard; creating the stream beyond `COORDINATOR_MAX_STREAMS` answers 409 `STREAM_LIMIT_REACHED`.',
    body: { component: 'CreateGroupRequest', required: true },
    success: { status: 201, description: 'Created', body: { component: 'GroupResponse' } },
    errors: [
      ...ADMIN_ERRORS,
      'GROUP_ALREADY_EXISTS',
      'STREAM_PREFIX_ALREADY_EXISTS',
      'SHARD_COUNT_MISMATCH',
      'GROUP_LIMIT_REACHED',
      'STREAM_LIMIT_REACHED',
      'STREAM_NOT_FOUND',
      'REDIS_STREAM_PROVISIONING_FAILED',
    ],
  },
  {
    method: 'GET',
    path: GROUP,
    operationId: 'getGroup',
    tag: 'Streams and groups',
    summary: 'Read a consumer group',
    success: { status: 200, description: 'The group', body: { component: 'GroupResponse' } },
    errors: [...READ_ERRORS, 'GROUP_NOT_FOUND'],
  },
  {
    method: 'DELETE',
    path: GROUP,
    operationId: 'deleteGroup',
    tag: 'Streams and groups',
    summary: 'Delete a consumer group’s coordination metadata',
    description:
      'Redis streams and consumer groups are left alone. Refused while members are active unless `force` is true. Answers the group as it was before deletion.',
    body: { component: 'DeleteGroupRequest', required: true },
    success: { status: 200, description: 'The deleted group', body: { component: 'GroupResponse' } },
    errors: [...ADMIN_ERRORS, 'GROUP_NOT_FOUND', 'GROUP_HAS_ACTIVE_MEMBERS'],
  },
  {
    method: 'GET',
    path: `${GROUP}/producer-routing`,
    operationId: 'getProducerRouting',
    tag: 'Routing',
    summary: 'Shard count and stream keys producers route to (routeV1)',
    success: { status: 200, description: 'Routing', body: { component: 'ProducerRoutingResponse' } },
    errors: [...READ_ERRORS, 'GROUP_NOT_FOUND'],
  },
  {
    method: 'POST',
    path: `${GROUP}/members/:memberId/heartbeat`,
    operationId: 'heartbeat',
    tag: 'Members',
    summary: 'Member heartbeat',
    description:
      'Always 200 for protocol outcomes: the `status` field carries them (OK, SYNC_METADATA, REVOKE_PENDING, FENCED_MEMBER_EPOCH, UNKNOWN_MEMBER_ID, UNSUPPORTED_PROTOCOL, INVALID_REQUEST). Two exceptions, where nothing is written: for requests carrying the additive `memberInstanceId`, a member id still held by another instance (live, or fenced with blocking holdings) answers 409 `MEMBER_ID_IN_USE` (reference clients never send the field and are never refused for it); and a join (or rejoin) into a group that already has `COORDINATOR_MAX_MEMBERS_PER_GROUP` live members answers 409 `MEMBER_LIMIT_REACHED` (live members are never refused by it).',
    body: { component: 'HeartbeatRequest', required: true },
    success: { status: 200, description: 'Heartbeat outcome', body: { component: 'HeartbeatResponse' } },
    errors: [...MUTATION_ERRORS, 'MEMBER_ID_IN_USE', 'MEMBER_LIMIT_REACHED'],
  },
  {
    method: 'POST',
    path: `${BASE}/streams/:streamPrefix/scale`,
    operationId: 'scaleStream',
    tag: 'Resharding',
    summary: 'Scale every group of a stream to a new shard count',
    description:
      'A scale-out never adopts a Redis key the coordinator did not create: a new shard whose key already exists (other than a removed shard of this stream not yet retired) answers 409 `SHARD_KEY_EXISTS` naming the key, before anything is written.',
    body: { component: 'ScaleRequest', required: true },
    success: { status: 202, description: 'Migrations started', body: { component: 'StreamScaleResponse' } },
    errors: [
      ...ADMIN_ERRORS,
      'STREAM_NOT_FOUND',
      'ACTIVE_MIGRATION_EXISTS',
      'METADATA_SYNC_IN_PROGRESS',
      'SHARD_KEY_EXISTS',
    ],
  },
  {
    method: 'POST',
    path: `${GROUP}/scale`,
    operationId: 'scaleGroup',
    tag: 'Resharding',
    summary: 'Scale through one group (compatibility route)',
    body: { component: 'ScaleRequest', required: true },
    success: { status: 202, description: 'Migration started', body: { component: 'Migration' } },
    errors: [
      ...ADMIN_ERRORS,
      'GROUP_NOT_FOUND',
      'ACTIVE_MIGRATION_EXISTS',
      'METADATA_SYNC_IN_PROGRESS',
      'SHARD_KEY_EXISTS',
    ],
  },
  {
    method: 'GET',
    path: `${GROUP}/migrations/:reshardingId`,
    operationId: 'getMigration',
    tag: 'Resharding',
    summary: 'Read a migration',
    success: { status: 200, description: 'The migration', body: { component: 'Migration' } },
    errors: [...READ_ERRORS, 'GROUP_NOT_FOUND', 'MIGRATION_NOT_FOUND'],
  },
  {
    method: 'POST',
    path: `${GROUP}/migrations/:reshardingId/rollback`,
    operationId: 'rollbackMigration',
    tag: 'Resharding',
    summary: 'Roll back the active migration',
    body: { component: 'RollbackMigrationRequest', required: true },
    success: { status: 202, description: 'Rollback started', body: { component: 'Migration' } },
    errors: [
      ...ADMIN_ERRORS,
      'GROUP_NOT_FOUND',
      'MIGRATION_NOT_FOUND',
      'ROLLBACK_NOT_ALLOWED',
      'METADATA_SYNC_IN_PROGRESS',
    ],
  },
];

/** A declared operation in catalogue form (Hono pattern, upper-case method). */
export function operationSpec(route: ApiRoute): OperationSpec {
  const { method, path, route: _route, access: _access, params: _params, rateLimit: _limit, ...rest } = route;
  return {
    ...rest,
    method: method.toUpperCase() as OperationSpec['method'],
    path: path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1'),
  };
}

/** Every operation the coordinator can serve. */
export const OPERATIONS: readonly OperationSpec[] = [
  ...ADMIN_OPERATIONS,
  ...API_ROUTES.map(operationSpec),
  ...MONITORING_OPERATIONS,
  ...SERVICE_OPERATIONS,
];

/** `GET /coord/v1/…` — the key both the catalogue and `app.routes` are compared by. */
export function operationKey(method: string, path: string): string {
  return `${method.toUpperCase()} ${path}`;
}
