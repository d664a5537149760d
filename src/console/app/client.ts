/**
 * Every API call the console makes, one function per endpoint: its path and its response type
 * are stated here once (types from the HTTP layer, type-only), so views never build API paths.
 */
import { api } from './api.js';
import type {
  AssignmentsResponseJson,
  GroupResponseJson,
  GroupsJson,
  HealthResponseJson,
  LoginJson,
  MembersJson,
  MigrationsResponseJson,
  RollbackBody,
  RollbackJson,
  SessionJson,
  StreamMessagesPageJson,
  StreamShardOffsetsJson,
} from './api-types.js';
import { enc, groupPath } from './format.js';

const monitoring = (p: string, g: string) => '/monitoring' + groupPath(p, g);

/** One page request of the message browser. */
export interface MessagesQuery {
  direction: 'FORWARD' | 'BACKWARD';
  limit: number;
  cursor: string | null;
}

/** `GET /monitoring/session`; `asToken` asks about that token instead of the session's. */
export function fetchSession(asToken?: string): Promise<SessionJson | null> {
  return api('GET', '/monitoring/session', undefined, asToken);
}

/** `POST /auth/login`. */
export function postLogin(username: string, password: string): Promise<LoginJson | null> {
  return api('POST', '/auth/login', { username, password });
}

/** `GET /monitoring/groups`. */
export function fetchGroups(): Promise<GroupsJson | null> {
  return api('GET', '/monitoring/groups');
}

/** `GET /monitoring/health`. */
export function fetchHealth(): Promise<HealthResponseJson | null> {
  return api('GET', '/monitoring/health');
}

/** `GET /monitoring/streams/{p}/groups/{g}`. */
export function fetchGroup(p: string, g: string): Promise<GroupResponseJson> {
  return api('GET', monitoring(p, g));
}

/** `GET /monitoring/streams/{p}/groups/{g}/members`. */
export function fetchMembers(p: string, g: string): Promise<MembersJson | null> {
  return api('GET', monitoring(p, g) + '/members');
}

/** `GET /monitoring/streams/{p}/groups/{g}/assignments`. */
export function fetchAssignments(p: string, g: string): Promise<AssignmentsResponseJson | null> {
  return api('GET', monitoring(p, g) + '/assignments');
}

/** `GET /monitoring/streams/{p}/groups/{g}/offsets`. */
export function fetchOffsets(p: string, g: string): Promise<StreamShardOffsetsJson | null> {
  return api('GET', monitoring(p, g) + '/offsets');
}

/** `GET /monitoring/streams/{p}/groups/{g}/migrations`. */
export function fetchMigrations(p: string, g: string): Promise<MigrationsResponseJson | null> {
  return api('GET', monitoring(p, g) + '/migrations');
}

/** `GET /monitoring/streams/{p}/groups/{g}/shards/{shard}/messages`: one page. */
export function fetchMessages(
  p: string,
  g: string,
  shard: number,
  q: MessagesQuery,
): Promise<StreamMessagesPageJson> {
  const query =
    '?direction=' + q.direction + '&limit=' + q.limit + (q.cursor ? '&cursor=' + enc(q.cursor) : '');
  return api('GET', monitoring(p, g) + '/shards/' + shard + '/messages' + query);
}

/** `POST /streams/{p}/groups/{g}/migrations/{id}/rollback`. */
export function postRollback(
  p: string,
  g: string,
  reshardingId: string,
  body: RollbackBody,
): Promise<RollbackJson | null> {
  return api('POST', groupPath(p, g) + '/migrations/' + enc(reshardingId) + '/rollback', body);
}
