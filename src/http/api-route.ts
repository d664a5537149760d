/**
 * Route descriptors: each operation is declared once — method, path, parameters, body, success
 * schema, the role it needs, the error codes it may answer, its tag and its rate-limit scope —
 * as a `@hono/zod-openapi` route. Validation, the OpenAPI document, the role check and the
 * rate-limit key are all read from that one declaration.
 */
import { createRoute, type Hook, OpenAPIHono } from '@hono/zod-openapi';
import type { Context, Env, Handler, Hono } from 'hono';
import type { z } from 'zod';
import type { ErrorCode } from '../core/errors.js';
import type { Role } from './auth/roles.js';
import type { AppEnv } from './context.js';
import { describeIssues, invalidRequest } from './errors.js';
import { type BodyChecks, parseJsonBody } from './input.js';
import { COMPONENTS, type ComponentName } from './openapi-components.js';
import type { QueryParam } from './query-params.js';
import { consumerGroupSchema, streamPrefixSchema } from './schemas.js';

/** Groups of operations in the rendered reference. */
export const TAGS = [
  { name: 'Streams and groups', description: 'Create, read and delete streams and consumer groups.' },
  { name: 'Resharding', description: 'Scale a stream out or in, follow and roll back migrations.' },
  { name: 'Members', description: 'The member heartbeat protocol.' },
  { name: 'Routing', description: 'Producer routing metadata.' },
  { name: 'Monitoring', description: 'Pure reads of coordination state and Redis progress.' },
  { name: 'Grafana', description: 'Flat rows for Grafana JSON data sources.' },
  { name: 'Auth', description: 'Bearer tokens and the current session.' },
  { name: 'Operations', description: 'Liveness, metrics and this documentation.' },
] as const;

/** A tag name. */
type Tag = (typeof TAGS)[number]['name'];

/**
 * What a successful answer carries: a shared component, an array of one, a schema declared with
 * the route (documented as a component of that `name`: a new route needs no edit elsewhere), or a
 * non-JSON media type.
 */
export type SuccessBody =
  | { component: ComponentName }
  | { arrayOf: ComponentName }
  | { schema: z.ZodType; name: string }
  | { mediaType: 'application/json' | 'text/plain' | 'text/html'; description: string };

/**
 * Who may call an operation: a role, `PUBLIC` (nobody needs to authenticate), or `MEMBER_API`
 * (MEMBER while member-API authentication is on, anonymous otherwise: the heartbeat).
 */
export type Access = Role | 'PUBLIC' | 'MEMBER_API';

/** Which admin-mutation rate-limit window an operation counts in. */
type RateLimitScope = 'stream' | 'group';

/** The declaration of one operation. */
export interface ApiRouteSpec {
  method: 'get' | 'post' | 'delete';
  /** The full path in OpenAPI form, e.g. `/coord/v1/streams/{streamPrefix}`. */
  path: string;
  operationId: string;
  tag: Tag;
  summary: string;
  description?: string;
  access: Access;
  /** Path parameters validated before the handler runs (INVALID_REQUEST otherwise). */
  params?: z.ZodObject;
  /** Query parameters, each parsed by its declared schema when the handler reads it (`queryValue`). */
  query?: readonly QueryParam[];
  /** The JSON body, read and validated by the route with `validBody` under the body limit (413). */
  body?: { component: ComponentName; required: boolean };
  success: { status: number; description: string; body: SuccessBody };
  /** Error codes the operation answers with (401/403 are implied by `access`). */
  errors: readonly ErrorCode[];
  /** Counts in the admin-mutation rate limit, per stream (`*` group) or per group. */
  rateLimit?: RateLimitScope;
}

/** The zod schema of a JSON success body, when it has one. */
type SuccessSchema<B extends SuccessBody> = B extends { component: infer C extends ComponentName }
  ? (typeof COMPONENTS)[C]
  : B extends { arrayOf: infer C extends ComponentName }
    ? z.ZodArray<(typeof COMPONENTS)[C]>
    : B extends { schema: infer Z extends z.ZodType }
      ? Z
      : never;

/** The `@hono/zod-openapi` route of a spec: typed parameters and typed success body. */
type RouteOf<S extends ApiRouteSpec> = ReturnType<
  typeof createRoute<
    S['path'],
    {
      method: S['method'];
      path: S['path'];
      request: S['params'] extends z.ZodObject ? { params: S['params'] } : Record<never, never>;
      responses: {
        [K in S['success']['status']]: [SuccessSchema<S['success']['body']>] extends [never]
          ? { description: string }
          : {
              description: string;
              content: { 'application/json': { schema: SuccessSchema<S['success']['body']> } };
            };
      };
    }
  >
>;

/** A declared operation: its spec and the route `app.openapi` mounts. */
export type ApiRoute<S extends ApiRouteSpec = ApiRouteSpec> = S & { route: RouteOf<S> };

/** Declares an operation (the one place it is described). */
export function apiRoute<const S extends ApiRouteSpec>(spec: S): ApiRoute<S> {
  const schema = successSchema(spec.success.body);
  const route = createRoute({
    method: spec.method,
    path: spec.path,
    // The document is generated from the specs (openapi.ts), not from this registry.
    hide: true,
    request: spec.params ? { params: spec.params } : {},
    responses: {
      [spec.success.status]: {
        description: spec.success.description,
        ...(schema ? { content: { 'application/json': { schema } } } : {}),
      },
    },
  });
  return { ...spec, route } as unknown as ApiRoute<S>;
}

/** The zod schema of a JSON success body; undefined for other media types. */
export function successSchema(body: SuccessBody): z.ZodType | undefined {
  if ('component' in body) return COMPONENTS[body.component];
  if ('arrayOf' in body) return COMPONENTS[body.arrayOf].array();
  if ('schema' in body) return body.schema;
  return undefined;
}

/** Response schemas declared with their routes, by component name (they join the document's components). */
export function routeComponents(routes: readonly ApiRouteSpec[]): Record<string, z.ZodType> {
  const out: Record<string, z.ZodType> = {};
  for (const r of routes) if ('schema' in r.success.body) out[r.success.body.name] = r.success.body.schema;
  return out;
}

/**
 * The declared JSON body, read under the body limit (413) and validated (400 INVALID_REQUEST).
 * Our reader, not the zod-openapi validator: it counts the bytes received and words its errors
 * as the protocol does (a wrong Content-Type is a 400, not a 415).
 */
export function validBody<C extends ComponentName>(
  c: Context,
  spec: { operationId: string; body?: { component: C } },
  maxBytes: number,
  checks: BodyChecks = {},
): Promise<z.output<(typeof COMPONENTS)[C]>> {
  if (!spec.body) throw new Error(`${spec.operationId} declares no body`);
  return parseJsonBody(c, COMPONENTS[spec.body.component], maxBytes, checks) as Promise<
    z.output<(typeof COMPONENTS)[C]>
  >;
}

/** `{streamPrefix}/{consumerGroup}`, the parameters of every group route. */
export const groupParams = {
  streamPrefix: streamPrefixSchema,
  consumerGroup: consumerGroupSchema,
} as const;

/** Failures any route that reads stored metadata can answer. */
export const READ_ERRORS: readonly ErrorCode[] = [
  'INVALID_REQUEST',
  'METADATA_CORRUPT',
  'INTERNAL_ERROR',
  'REDIS_UNAVAILABLE',
];
/** Failures of every critical section (mutex, CAS retries, shutdown). */
export const MUTATION_ERRORS: readonly ErrorCode[] = [
  ...READ_ERRORS,
  'PAYLOAD_TOO_LARGE',
  'STATE_VERSION_CONFLICT',
  'COORDINATOR_STATE_MUTEX_UNAVAILABLE',
  'COORDINATOR_TERMINATING',
];
/** Admin mutations also count against the optional rate limit. */
export const ADMIN_ERRORS: readonly ErrorCode[] = [...MUTATION_ERRORS, 'RATE_LIMIT_EXCEEDED'];
/** Routes that read the shards themselves need the read-only Redis inspector. */
export const REDIS_READ_ERRORS: readonly ErrorCode[] = [
  ...READ_ERRORS,
  'GROUP_NOT_FOUND',
  'REDIS_NOT_CONFIGURED',
];

/** Failed validation answers our 400 INVALID_REQUEST body (`field: reason; …`), never zod's. */
const validationHook: Hook<unknown, AppEnv, string, undefined> = (result) => {
  if (!result.success) throw invalidRequest(describeIssues(result.error.issues));
};

/** OpenAPI `{name}` segments → the Hono pattern's `:name`. */
export function honoPath(path: string): string {
  return path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}

/**
 * Serves a declared operation with a plain handler, for answers a typed route cannot state
 * (HTML, the actuator's 503 with the same body, login's optional body read by its own rules).
 */
export function serve<E extends Env>(app: Hono<E>, spec: ApiRouteSpec, handler: Handler<E>): void {
  app.on(spec.method.toUpperCase(), honoPath(spec.path), handler);
}

/** A router whose declared operations validate with `validationHook`. */
export function apiRouter(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
}
