/**
 * The bodies the console reads and sends, as the HTTP layer declares them: the one place the
 * browser sources name `src/http`, and type-only, so none of it reaches the bundle. The few
 * bodies the HTTP layer does not export a type for are declared below.
 */
import type {
  StreamMessageRecordJson,
  StreamMessagesPageJson,
  StreamShardOffsetJson,
  StreamShardOffsetsJson,
} from '../../http/monitoring-views.js';
import type {
  AssignmentsResponseJson,
  GroupResponseJson,
  HealthResponseJson,
  MemberJson,
  MigrationJson,
  MigrationsResponseJson,
  RollbackBody,
} from '../../http/schemas.js';

export type {
  AssignmentsResponseJson,
  GroupResponseJson,
  HealthResponseJson,
  MemberJson,
  MigrationJson,
  MigrationsResponseJson,
  RollbackBody,
  StreamMessageRecordJson,
  StreamMessagesPageJson,
  StreamShardOffsetJson,
  StreamShardOffsetsJson,
};

/** `GET /monitoring/session`. */
export interface SessionJson {
  authenticated: boolean;
  username: string | null;
  roles: string[];
}

/** `POST /auth/login` (`token` from coordinators before `accessToken`). */
export interface LoginJson {
  accessToken?: string;
  token?: string;
}

/** `GET /monitoring/groups`. */
export interface GroupsJson {
  groups: GroupResponseJson[];
}

/** `GET /monitoring/…/members`. */
export interface MembersJson {
  members: MemberJson[];
}

/** `POST /streams/…/migrations/{id}/rollback`. */
export interface RollbackJson {
  state?: string;
}
