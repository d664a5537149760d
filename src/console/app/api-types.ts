/**
 * The bodies the console reads and sends, as the HTTP layer declares them: the one place the
 * browser sources name `src/http`, and type-only, so none of it reaches the bundle.
 */
import type { GrafanaMessageRowJson } from '../../http/grafana-views.js';
import type {
  StreamMessageRecordJson,
  StreamShardOffsetJson,
  StreamShardOffsetsJson,
} from '../../http/monitoring-views.js';
import type { OffsetsResetBody, OffsetsResetResponseJson } from '../../http/offsets-reset-schemas.js';
import type {
  AssignmentsResponseJson,
  ConsumerShardProgressJson,
  GroupResponseJson,
  GroupRowJson,
  GroupsResponseJson,
  HealthResponseJson,
  MemberJson,
  MembersResponseJson,
  MigrationJson,
  MigrationsResponseJson,
  SessionResponseJson,
} from '../../http/schemas.js';

export type {
  AssignmentsResponseJson,
  ConsumerShardProgressJson,
  GrafanaMessageRowJson,
  GroupResponseJson,
  GroupRowJson,
  GroupsResponseJson,
  HealthResponseJson,
  MemberJson,
  MembersResponseJson,
  MigrationJson,
  MigrationsResponseJson,
  OffsetsResetBody,
  OffsetsResetResponseJson,
  SessionResponseJson,
  StreamMessageRecordJson,
  StreamShardOffsetJson,
  StreamShardOffsetsJson,
};
