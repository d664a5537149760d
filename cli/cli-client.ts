/**
 * The CLI's client of `/coord/v1`: the SDK's typed `AdminClient` (shared with the web console)
 * over `CoordinatorTransport`. Every failure becomes a `CliFailure` carrying the exit code
 * scripts rely on.
 */
import { AdminClient, type AdminSend } from '../src/client/admin-client.js';
import {
  CoordinatorHttpError,
  CoordinatorResponseError,
  CoordinatorUnreachableError,
} from '../src/client/errors.js';
import { API_BASE, CoordinatorTransport, type Credentials } from '../src/client/transport.js';
import type { GroupResponseJson, RepairGroupBody } from '../src/http/schemas.js';
import { asFlags } from './cli-api-names.js';
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

/** The CLI's client: the SDK's shared admin client over the transport, failures as `CliFailure`. */
export interface CliClient extends AdminClient {
  /** Where it sends, with which credentials. */
  readonly target: ApiTarget;
  /**
   * `POST /streams/{p}/groups/{g}/repair` (additive, ADMIN): the group afterwards. An operator's
   * command only, so the console's shared client does not carry it.
   */
  repairGroup(p: string, g: string, body: RepairGroupBody): Promise<GroupResponseJson>;
}

/** The admin client for `target`; login goes out anonymously, everything else with its credentials. */
export function cliClient(target: ApiTarget): CliClient {
  const transport = (credentials: Credentials | undefined) =>
    new CoordinatorTransport({ baseUrl: target.url, credentials, timeoutMs: target.timeoutMs });
  const signed = transport(target.credentials);
  const anonymous = transport(undefined);
  const send: AdminSend = async (method, path, body, options) => {
    try {
      return await (options?.anonymous ? anonymous : signed).request(method, API_BASE + path, body);
    } catch (err) {
      // Only login goes out anonymously: its 401 is about the pair it carried.
      if (options?.anonymous && err instanceof CoordinatorHttpError && err.status === 401) {
        throw new CliFailure(EXIT.AUTH, 'HTTP 401: credentials refused (wrong user name or password)', err);
      }
      throw toCliFailure(err, target);
    }
  };
  const repairGroup = (p: string, g: string, body: RepairGroupBody) =>
    send(
      'POST',
      `/streams/${encodeURIComponent(p)}/groups/${encodeURIComponent(g)}/repair`,
      body,
    ) as Promise<GroupResponseJson>;
  return Object.assign(new AdminClient(send), { target, repairGroup });
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
  if (status === 401) return new CliFailure(EXIT.AUTH, `HTTP 401 unauthorized: ${authHint(source)}`, err);
  if (status === 403)
    return new CliFailure(EXIT.AUTH, 'HTTP 403 forbidden: your role does not allow this request', err);
  const code = status >= 500 ? EXIT.SERVER_ERROR : EXIT.CLIENT_ERROR;
  if (errorCode !== undefined)
    return new CliFailure(code, `HTTP ${status} ${errorCode}: ${asFlags(detail)}`, err);
  return new CliFailure(code, `HTTP ${status}${detail ? `: ${asFlags(detail)}` : ''}`, err);
}
