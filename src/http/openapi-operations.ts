/**
 * The declared operations (`route-table.ts`) in the form the OpenAPI document is built from,
 * keyed by the Hono method and pattern the app serves. `test/ops/openapi.test.ts` checks them
 * against `app.routes` both ways, so a route served without a declaration fails the build.
 */
import type { ErrorCode } from '../core/errors.js';
import type { ApiRoute, QueryParam, SuccessBody, Tag } from './api-route.js';
import type { ComponentName } from './openapi-components.js';
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
export const OPERATIONS: readonly OperationSpec[] = API_ROUTES.map(operationSpec);

/** `GET /coord/v1/…` — the key both the catalogue and `app.routes` are compared by. */
export function operationKey(method: string, path: string): string {
  return `${method.toUpperCase()} ${path}`;
}
