/**
 * What the group view loads on every refresh, shared by its panels (shards, members, migration).
 */
import type { GroupLagJson } from '../../client/admin-client.js';
import type { Optional } from './api.js';
import type {
  AssignmentsResponseJson,
  GroupResponseJson,
  MembersResponseJson,
  MigrationsResponseJson,
  StreamShardOffsetsJson,
} from './api-types.js';

/** One refresh of a group: the group itself (required) and the optional detail reads. */
export interface GroupData {
  p: string;
  g: string;
  group: GroupResponseJson;
  members: Optional<MembersResponseJson | null>;
  assignments: Optional<AssignmentsResponseJson | null>;
  offsets: Optional<StreamShardOffsetsJson | null>;
  migrations: Optional<MigrationsResponseJson | null>;
  /** `GET …/lag`: also the age of each shard's oldest pending entry. */
  lag: Optional<GroupLagJson | null>;
  migrationBody: HTMLElement;
}

/** Member states whose shards count as owned. */
export const LIVE_OWNER: Readonly<Record<string, boolean>> = { ACTIVE: true, STARTING: true, LEAVING: true };
