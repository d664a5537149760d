/**
 * The typed client of `/coord/v1`'s admin, monitoring and auth operations, shared by the CLI
 * (over the SDK's `CoordinatorTransport`) and the web console (over the browser's `fetch`):
 * every path is built here once, every answer is typed by the zod schema the server validates
 * and documents with (type-only imports, so none of the server reaches a bundle).
 *
 * The client carries no transport of its own: it is given a `send` function, which owns the
 * credentials, the timeout and how a failure is reported (`CliFailure`, the console's `ApiError`).
 */
import type { z } from 'zod';
import type { GrafanaMessageRowJson } from '../http/grafana-views.js';
import type { StreamMessagesPageJson, StreamShardOffsetsJson } from '../http/monitoring-views.js';
import type { OffsetsResetBody, OffsetsResetResponseJson } from '../http/offsets-reset-schemas.js';
import type { groupLagResponseSchema } from '../http/openapi-monitoring-responses.js';
import type { DeadLettersJson, PendingEntriesJson } from '../http/pending-schemas.js';
import type {
  AssignmentsResponseJson,
  CompatibilityResponseJson,
  CreateStreamBody,
  DeleteGroupBody,
  DeleteStreamBody,
  GroupResponseJson,
  GroupRowJson,
  GroupsResponseJson,
  HealthResponseJson,
  LoginResponseJson,
  MembersResponseJson,
  MigrationJson,
  MigrationsResponseJson,
  RollbackBody,
  ScaleBody,
  SessionResponseJson,
  StreamCreateResponseJson,
  StreamDeleteResponseJson,
  StreamScaleResponseJson,
} from '../http/schemas.js';

/** The HTTP methods the admin operations use. */
export type AdminMethod = 'GET' | 'POST' | 'DELETE';

/** How one request is to be sent. */
export interface AdminSendOptions {
  /** Send no `Authorization` (login: the pair travels in the body, a stale token must not). */
  anonymous?: boolean;
}

/**
 * Sends one request to `path` (below `/coord/v1`, segments already percent-encoded) and
 * resolves to the parsed JSON body of a 2xx answer; rejects however its owner reports failures.
 */
export type AdminSend = (
  method: AdminMethod,
  path: string,
  body?: unknown,
  options?: AdminSendOptions,
) => Promise<unknown>;

/** One page request of a shard's message browser. */
export interface MessagesQuery {
  direction: 'FORWARD' | 'BACKWARD';
  limit: number;
  /** The `nextCursor` of the previous page; absent or null for the first. */
  cursor?: string | null;
}

/** One page request of a shard's pending entries (`GET /monitoring/…/pending-entries`). */
export interface PendingEntriesQuery {
  shard: number;
  /** Entries per page, 1..500. @default 50 (the server's) */
  count?: number;
  /** The `nextCursor` of the previous page; absent or null for the first. */
  start?: string | null;
  /** Only the entries this consumer (member id) holds. */
  consumer?: string | null;
  /** Only the entries idle at least this many milliseconds. */
  minIdleMs?: number | null;
}

/** One page request of a group's dead letters (`GET /monitoring/…/dead-letters`). */
export interface DeadLettersQuery {
  /** Dead letters per page, 1..500. @default 50 (the server's) */
  count?: number;
  /** The `nextCursor` of the previous page; absent or null for the newest. */
  cursor?: string | null;
  /** Another dead-letter stream than `{p}:dlq`; it must start with `{p}:`. */
  deadLetterKey?: string | null;
}

export type { DeadLettersJson, PendingEntriesJson };

/** `?name=value…` of the parameters given (null and undefined left out), empty when none is. */
function queryOf(params: Record<string, string | number | null | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params))
    if (value !== null && value !== undefined && value !== '') query.set(name, String(value));
  const text = query.toString();
  return text ? `?${text}` : '';
}

/** `GET /monitoring/…/lag`: lag, pending and Redis counters per shard. */
export type GroupLagJson = z.output<typeof groupLagResponseSchema>;

/** One page request of `GET /monitoring/groups` (docs/protocol.md#listing-groups-in-pages). */
export interface GroupsQuery {
  /** Groups per page, 1..1000. @default 1000 (the server's) */
  limit?: number;
  /** The `nextCursor` of the previous page; absent or null for the first. */
  cursor?: string | null;
}

/** `?limit=…&cursor=…` of a page request, empty when both are absent. */
function pageQuery(q: GroupsQuery): string {
  const query = new URLSearchParams();
  if (q.limit !== undefined) query.set('limit', String(q.limit));
  if (q.cursor) query.set('cursor', q.cursor);
  const text = query.toString();
  return text ? `?${text}` : '';
}

/** `/<segments…>` with every segment percent-encoded (as the reference's Python client does). */
function adminPath(...segments: Array<string | number>): string {
  return `/${segments.map((s) => encodeURIComponent(String(s))).join('/')}`;
}

const group = (p: string, g: string) => ['streams', p, 'groups', g];
const monitoring = (p: string, g: string) => ['monitoring', ...group(p, g)];

/** One typed method per operation; answers are the server's declared response bodies. */
export class AdminClient {
  constructor(private readonly send: AdminSend) {}

  private call<T>(method: AdminMethod, segments: Array<string | number>, body?: unknown): Promise<T> {
    return this.send(method, adminPath(...segments), body) as Promise<T>;
  }

  /** `POST /auth/login`: the pair travels in the body, so no `Authorization` is sent. */
  login(username: string, password: string): Promise<LoginResponseJson> {
    const body = { username, password };
    return this.send('POST', adminPath('auth', 'login'), body, {
      anonymous: true,
    }) as Promise<LoginResponseJson>;
  }

  /** `GET /monitoring/session`: who the credentials are. */
  session(): Promise<SessionResponseJson> {
    return this.call('GET', ['monitoring', 'session']);
  }

  /** `GET /monitoring/health`. */
  health(): Promise<HealthResponseJson> {
    return this.call('GET', ['monitoring', 'health']);
  }

  /** `GET /monitoring/compatibility`: protocol versions, timing defaults and the server's limits. */
  compatibility(): Promise<CompatibilityResponseJson> {
    return this.call('GET', ['monitoring', 'compatibility']);
  }

  /** `GET /monitoring/groups`: one page of groups in (stream, group) order, with `nextCursor`. */
  groups(q: GroupsQuery = {}): Promise<GroupsResponseJson> {
    return this.send('GET', adminPath('monitoring', 'groups') + pageQuery(q)) as Promise<GroupsResponseJson>;
  }

  /** Every group of every stream, page after page (one request per 1,000 groups). */
  async allGroups(): Promise<GroupResponseJson[]> {
    const out: GroupResponseJson[] = [];
    let cursor: string | null = null;
    do {
      const page: GroupsResponseJson = await this.groups({ cursor });
      out.push(...page.groups);
      // A server without paging answers no nextCursor: its one answer is the whole list.
      cursor = page.nextCursor ?? null;
    } while (cursor);
    return out;
  }

  /** `GET /monitoring/grafana/groups`: one row per group with its lag, pending and rates (one page of groups when `q` names one). */
  groupRows(q: GroupsQuery = {}): Promise<GroupRowJson[]> {
    const path = adminPath('monitoring', 'grafana', 'groups') + pageQuery(q);
    return this.send('GET', path) as Promise<GroupRowJson[]>;
  }

  /** `POST /streams/{p}`. */
  createStream(p: string, body: CreateStreamBody): Promise<StreamCreateResponseJson> {
    return this.call('POST', ['streams', p], body);
  }

  /** `DELETE /streams/{p}` (additive, ADMIN): the stream, its groups' metadata, its shard keys. */
  deleteStream(p: string, body: DeleteStreamBody): Promise<StreamDeleteResponseJson> {
    return this.call('DELETE', ['streams', p], body);
  }

  /** `GET /streams/{p}/groups/{g}`. */
  group(p: string, g: string): Promise<GroupResponseJson> {
    return this.call('GET', group(p, g));
  }

  /** `GET /monitoring/streams/{p}/groups/{g}`: the same view, a pure read for READ roles. */
  monitoringGroup(p: string, g: string): Promise<GroupResponseJson> {
    return this.call('GET', monitoring(p, g));
  }

  /** `DELETE /streams/{p}/groups/{g}`: the group as it was. */
  deleteGroup(p: string, g: string, body: DeleteGroupBody): Promise<GroupResponseJson> {
    return this.call('DELETE', group(p, g), body);
  }

  /** `POST /streams/{p}/scale`: every group of the stream. */
  scaleStream(p: string, body: ScaleBody): Promise<StreamScaleResponseJson> {
    return this.call('POST', ['streams', p, 'scale'], body);
  }

  /** `POST /streams/{p}/groups/{g}/scale`. */
  scaleGroup(p: string, g: string, body: ScaleBody): Promise<MigrationJson> {
    return this.call('POST', [...group(p, g), 'scale'], body);
  }

  /** `GET …/migrations/{id}`. */
  migration(p: string, g: string, id: string): Promise<MigrationJson> {
    return this.call('GET', [...group(p, g), 'migrations', id]);
  }

  /** `POST …/migrations/{id}/rollback`. */
  rollback(p: string, g: string, id: string, body: RollbackBody): Promise<MigrationJson> {
    return this.call('POST', [...group(p, g), 'migrations', id, 'rollback'], body);
  }

  /** `GET /monitoring/…/members`. */
  members(p: string, g: string): Promise<MembersResponseJson> {
    return this.call('GET', [...monitoring(p, g), 'members']);
  }

  /** `GET /monitoring/…/assignments`. */
  assignments(p: string, g: string): Promise<AssignmentsResponseJson> {
    return this.call('GET', [...monitoring(p, g), 'assignments']);
  }

  /** `GET /monitoring/…/offsets` (503 on a coordinator without Redis-backed monitoring). */
  offsets(p: string, g: string): Promise<StreamShardOffsetsJson> {
    return this.call('GET', [...monitoring(p, g), 'offsets']);
  }

  /**
   * `POST /admin/streams/{p}/groups/{g}/offsets/reset` (additive, WRITE): moves the group's
   * position per shard to replay or skip records; a dry run unless `dryRun` is false.
   */
  resetOffsets(p: string, g: string, body: OffsetsResetBody): Promise<OffsetsResetResponseJson> {
    return this.call('POST', ['admin', ...group(p, g), 'offsets', 'reset'], body);
  }

  /** `GET /monitoring/…/migrations`. */
  migrations(p: string, g: string): Promise<MigrationsResponseJson> {
    return this.call('GET', [...monitoring(p, g), 'migrations']);
  }

  /** `GET /monitoring/…/shards/{shard}/messages`: one page. */
  messages(p: string, g: string, shard: number, q: MessagesQuery): Promise<StreamMessagesPageJson> {
    const query = new URLSearchParams({ direction: q.direction, limit: String(q.limit) });
    if (q.cursor) query.set('cursor', q.cursor);
    const path = `${adminPath(...monitoring(p, g), 'shards', shard, 'messages')}?${query}`;
    return this.send('GET', path) as Promise<StreamMessagesPageJson>;
  }

  /** `GET /monitoring/…/lag`: lag, pending and `entriesRead` per consumable shard, read from Redis. */
  lag(p: string, g: string): Promise<GroupLagJson> {
    return this.call('GET', [...monitoring(p, g), 'lag']);
  }

  /**
   * `GET /monitoring/…/pending-entries?shard=i` (additive): one page of a shard's pending entries,
   * each with the member holding it, its idle time and delivery count (the detailed `XPENDING`).
   */
  pendingEntries(p: string, g: string, q: PendingEntriesQuery): Promise<PendingEntriesJson> {
    const query = queryOf({
      shard: q.shard,
      count: q.count,
      start: q.start,
      consumer: q.consumer,
      minIdleMs: q.minIdleMs,
    });
    return this.send(
      'GET',
      adminPath(...monitoring(p, g), 'pending-entries') + query,
    ) as Promise<PendingEntriesJson>;
  }

  /**
   * `GET /monitoring/…/dead-letters` (additive): one page of the group's dead letters, newest
   * first, from the stream's dead-letter stream; `stoppedEarly` when the bounded scan ended it.
   */
  deadLetters(p: string, g: string, q: DeadLettersQuery = {}): Promise<DeadLettersJson> {
    const query = queryOf({ count: q.count, cursor: q.cursor, deadLetterKey: q.deadLetterKey });
    return this.send(
      'GET',
      adminPath(...monitoring(p, g), 'dead-letters') + query,
    ) as Promise<DeadLettersJson>;
  }

  /**
   * `GET /monitoring/grafana/messages?shardIndex=all`: one page of every consumable shard's
   * records merged by id; `nextCursor` is the last row's `pageNextCursor`.
   */
  allShardMessages(p: string, g: string, q: MessagesQuery): Promise<GrafanaMessageRowJson[]> {
    const query = new URLSearchParams({
      streamPrefix: p,
      consumerGroup: g,
      shardIndex: 'all',
      direction: q.direction,
      limit: String(q.limit),
    });
    if (q.cursor) query.set('cursor', q.cursor);
    const path = `${adminPath('monitoring', 'grafana', 'messages')}?${query}`;
    return this.send('GET', path) as Promise<GrafanaMessageRowJson[]>;
  }
}
