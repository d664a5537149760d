/**
 * Admin SDK entry (`redis-stream-coordinator-edge/admin`): the typed client of the coordinator's
 * admin, monitoring and auth operations that the CLI and the console use, over the SDK's
 * transport (credentials, a timeout on every request, typed errors). Runs on Node and at the edge.
 */
import { AdminClient, type AdminSend } from './admin-client.js';
import { API_BASE, CoordinatorTransport, type TransportOptions } from './transport.js';

export type { GroupsQuery, MessagesQuery } from './admin-client.js';
export { AdminClient } from './admin-client.js';
export {
  ClientError,
  CoordinatorHttpError,
  CoordinatorResponseError,
  CoordinatorUnreachableError,
  InvalidOptionsError,
} from './errors.js';
export type { Credentials, FetchLike } from './transport.js';

/** Options of `createAdminClient`. */
export interface AdminClientOptions {
  /** Coordinator base URL, e.g. `http://127.0.0.1:8080`. */
  coordinatorUrl: string;
  /** Basic `{username, password}` or `{token}`; each operation needs its role (READ, WRITE, ADMIN). @default none */
  credentials?: TransportOptions['credentials'];
  /** @default globalThis.fetch */
  fetch?: TransportOptions['fetch'];
  /** Longest wait for one request, ms. @default 5000 */
  requestTimeoutMs?: number | undefined;
}

/**
 * A typed admin client: `await admin.groups()`, `admin.scaleStream('orders', { targetShardCount:
 * 8, requestedBy: 'me', reason: '…' })`. Failures reject with the SDK's typed errors
 * (`CoordinatorHttpError` carries the status and the coordinator's `errorCode`).
 */
export function createAdminClient(options: AdminClientOptions): AdminClient {
  const transport = (credentials: TransportOptions['credentials']) =>
    new CoordinatorTransport({
      baseUrl: options.coordinatorUrl,
      credentials,
      fetch: options.fetch,
      timeoutMs: options.requestTimeoutMs,
    });
  const signed = transport(options.credentials);
  const anonymous = transport(undefined);
  const send: AdminSend = (method, path, body, opts) =>
    (opts?.anonymous ? anonymous : signed).request(method, API_BASE + path, body);
  return new AdminClient(send);
}
