/**
 * The CLI's client of `/coord/v1`: one typed method per operation the commands use, over the
 * SDK's `CoordinatorTransport` and the HTTP layer's response types. Every failure becomes a
 * `CliFailure` carrying the exit code scripts rely on.
 */
import {
  CoordinatorHttpError,
  CoordinatorResponseError,
  CoordinatorUnreachableError,
} from '../src/client/errors.js';
import { API_BASE, CoordinatorTransport, type Credentials } from '../src/client/transport.js';
import type { StreamShardOffsetsJson } from '../src/http/monitoring-views.js';
import type {
  AssignmentsResponseJson,
  CreateStreamBody,
  DeleteGroupBody,
  GroupResponseJson,
  MemberJson,
  MigrationJson,
  MigrationsResponseJson,
  RollbackBody,
  ScaleBody,
  StreamCreateResponseJson,
  StreamScaleResponseJson,
} from '../src/http/schemas.js';
import { CliFailure, EXIT } from './cli-errors.js';

/** Where the credentials came from: what a 401 advises depends on it. */
export type CredentialSource = 'none' | 'option' | 'env' | 'file';

/** Where and how to talk to the coordinator. */
export interface ApiTarget {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:8080`. */
  url: string;
  /** Basic credentials or a bearer token; undefined sends no `Authorization`. */
  credentials: Credentials | undefined;
  credentialSource: CredentialSource;
  /** Per-request timeout, ms. */
  timeoutMs: number;
}

/** `POST /auth/login`'s answer (built inline by src/http/auth/routes.ts, no exported type). */
export interface LoginResponseJson {
  accessToken: string;
  tokenType: 'Bearer';
  expiresAt: string;
  expiresInSeconds: number;
  roles: string[];
}

/** `GET …/members`'s answer (the return type of `membersView`, not exported by name). */
export interface MembersResponseJson {
  members: MemberJson[];
}

/** `/coord/v1/<segments…>` with every segment percent-encoded (as the Python client does). */
export function apiPath(...segments: Array<string | number>): string {
  return `${API_BASE}/${segments.map((s) => encodeURIComponent(String(s))).join('/')}`;
}

/** The operations of `/coord/v1` the CLI sends, typed by their answers. */
export class CliClient {
  private readonly transport: CoordinatorTransport;

  constructor(private readonly target: ApiTarget) {
    this.transport = new CoordinatorTransport({
      baseUrl: target.url,
      credentials: target.credentials,
      timeoutMs: target.timeoutMs,
    });
  }

  /** `POST /streams/{p}`. */
  createStream(p: string, body: CreateStreamBody): Promise<StreamCreateResponseJson> {
    return this.send('POST', ['streams', p], body);
  }

  /** `GET /streams/{p}/groups/{g}`. */
  group(p: string, g: string): Promise<GroupResponseJson> {
    return this.send('GET', ['streams', p, 'groups', g]);
  }

  /** `DELETE /streams/{p}/groups/{g}`: the group as it was. */
  deleteGroup(p: string, g: string, body: DeleteGroupBody): Promise<GroupResponseJson> {
    return this.send('DELETE', ['streams', p, 'groups', g], body);
  }

  /** `POST /streams/{p}/scale`: every group of the stream. */
  scaleStream(p: string, body: ScaleBody): Promise<StreamScaleResponseJson> {
    return this.send('POST', ['streams', p, 'scale'], body);
  }

  /** `POST /streams/{p}/groups/{g}/scale`. */
  scaleGroup(p: string, g: string, body: ScaleBody): Promise<MigrationJson> {
    return this.send('POST', ['streams', p, 'groups', g, 'scale'], body);
  }

  /** `GET …/migrations/{id}`. */
  migration(p: string, g: string, id: string): Promise<MigrationJson> {
    return this.send('GET', ['streams', p, 'groups', g, 'migrations', id]);
  }

  /** `POST …/migrations/{id}/rollback`. */
  rollback(p: string, g: string, id: string, body: RollbackBody): Promise<MigrationJson> {
    return this.send('POST', ['streams', p, 'groups', g, 'migrations', id, 'rollback'], body);
  }

  /** `GET /monitoring/streams/{p}/groups/{g}/members`. */
  members(p: string, g: string): Promise<MembersResponseJson> {
    return this.send('GET', monitoring(p, g, 'members'));
  }

  /** `GET /monitoring/…/assignments`. */
  assignments(p: string, g: string): Promise<AssignmentsResponseJson> {
    return this.send('GET', monitoring(p, g, 'assignments'));
  }

  /** `GET /monitoring/…/offsets` (503 on a coordinator without Redis-backed monitoring). */
  offsets(p: string, g: string): Promise<StreamShardOffsetsJson> {
    return this.send('GET', monitoring(p, g, 'offsets'));
  }

  /** `GET /monitoring/…/migrations`. */
  migrations(p: string, g: string): Promise<MigrationsResponseJson> {
    return this.send('GET', monitoring(p, g, 'migrations'));
  }

  /** `POST /auth/login`: the pair travels in the body, so no `Authorization` is sent. */
  login(username: string, password: string): Promise<LoginResponseJson> {
    const anonymous = new CliClient({ ...this.target, credentials: undefined, credentialSource: 'none' });
    return anonymous.send('POST', ['auth', 'login'], { username, password });
  }

  private async send<T>(method: string, segments: string[], body?: unknown): Promise<T> {
    try {
      return await this.transport.request<T>(method, apiPath(...segments), body);
    } catch (err) {
      throw toCliFailure(err, this.target);
    }
  }
}

function monitoring(p: string, g: string, view: string): string[] {
  return ['monitoring', 'streams', p, 'groups', g, view];
}

/** The transport's typed error as the CLI reports it; anything else is rethrown unchanged. */
function toCliFailure(err: unknown, target: ApiTarget): unknown {
  if (err instanceof CoordinatorUnreachableError) {
    const why = err.timedOut ? 'timed out' : describeUnreachable(err.cause);
    return new CliFailure(EXIT.SERVER_ERROR, `cannot reach ${target.url}: ${why}`);
  }
  if (err instanceof CoordinatorHttpError) return httpFailure(err, target.credentialSource);
  if (err instanceof CoordinatorResponseError) return new CliFailure(EXIT.SERVER_ERROR, err.message);
  return err;
}

/** `ECONNREFUSED` and the like: what fetch's error says underneath. */
function describeUnreachable(err: unknown): string {
  if (err instanceof Error && err.name === 'TimeoutError') return 'timed out';
  const cause =
    err instanceof Error ? (err.cause as { code?: string; message?: string } | undefined) : undefined;
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}

function authHint(source: CredentialSource): string {
  if (source === 'none') return 'no credentials given: use --user/--password, --token, or run `login`';
  if (source === 'file') return 'the stored token was refused: run `login` again';
  return 'check the credentials';
}

/** The failure for a non-2xx answer. */
function httpFailure(err: CoordinatorHttpError, source: CredentialSource): CliFailure {
  const { status, errorCode, detail } = err;
  if (status === 401) return new CliFailure(EXIT.AUTH, `HTTP 401 unauthorized: ${authHint(source)}`);
  if (status === 403)
    return new CliFailure(EXIT.AUTH, 'HTTP 403 forbidden: your role does not allow this request');
  const code = status >= 500 ? EXIT.SERVER_ERROR : EXIT.CLIENT_ERROR;
  if (errorCode !== undefined) return new CliFailure(code, `HTTP ${status} ${errorCode}: ${detail}`);
  return new CliFailure(code, `HTTP ${status}${detail ? `: ${detail}` : ''}`);
}
