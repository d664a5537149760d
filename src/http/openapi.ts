/**
 * The OpenAPI 3.1 document of the coordinator, generated from the declared operations
 * (`route-table.ts`) and their zod schemas (`z.toJSONSchema`), limited to the routes the app
 * actually serves.
 */
import { z } from 'zod';
import { ERROR_STATUS, type ErrorCode } from '../core/errors.js';
import { METRICS_PATH } from '../metrics/http-metrics.js';
import { REFERENCE_METRICS_PATH } from '../metrics/reference-metrics.js';
import { type ApiRoute, honoPath, routeComponents, type SuccessBody, TAGS } from './api-route.js';

export { honoPath } from './api-route.js';

import { roleOfAccess } from './auth/required-role.js';
import type { Role } from './auth/roles.js';
import { HTTP_STATUS_NAMES } from './errors.js';
import { OPERATION_EXAMPLES } from './generated/openapi-examples.js';
import { componentSchemas } from './openapi-components.js';
import type { OperationExample } from './openapi-example-types.js';
import { API_ROUTES } from './route-table.js';
import { MAX_SHARD_INDEX, type PathParamName, pathParamSchemas } from './schemas.js';

/** A route as `app.routes` lists it. */
export interface RouteRef {
  method: string;
  path: string;
}

/** Options of `buildOpenApiDocument`. */
export interface OpenApiOptions {
  /** `info.version`. */
  version: string;
  /** Routes the app serves (`app.routes`); declared operations not among them are left out. @default every one */
  served?: readonly RouteRef[];
  /** `/metrics` answers without credentials. @default false */
  metricsPublic?: boolean;
  /** `/actuator/prometheus` answers without credentials. @default false */
  prometheusPublic?: boolean;
}

/** An OpenAPI document as plain JSON. */
export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, unknown>> };

/** `GET /coord/v1/…`: the key declared operations and `app.routes` are compared by. */
function operationKey(method: string, path: string): string {
  return `${method.toUpperCase()} ${path}`;
}

/** The key of a declared operation, as `app.routes` would list it. */
export function routeKey(route: ApiRoute): string {
  return operationKey(route.method, honoPath(route.path));
}

/** `METHOD path` of every handler in `routes` (middleware is registered as `ALL` and skipped). */
export function servedKeys(routes: readonly RouteRef[]): Set<string> {
  return new Set(routes.filter((r) => r.method !== 'ALL').map((r) => operationKey(r.method, r.path)));
}

/** Hono `:name` segments → OpenAPI `{name}`; a trailing wildcard `/*` → `/{path}`. */
function toOpenApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\/\*$/, '/{path}');
}

/** Names of the path parameters of a Hono pattern (a trailing wildcard is `path`). */
function pathParamNames(path: string): string[] {
  const names = [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);
  return path.endsWith('/*') ? [...names, 'path'] : names;
}

const PARAM_DESCRIPTIONS: Record<string, string> = {
  streamPrefix: 'stream prefix; shard i is the Redis stream `<prefix>:<i>`; no `{` or `}`',
  consumerGroup: 'consumer group name',
  memberId: 'member id (a consumer with concurrency N runs N members)',
  shardIndex: 'shard index',
  reshardingId: 'migration id (`reshard-<uuid>`)',
  path: 'the rest of the path (may contain `/`)',
};

function plainSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
  return rest;
}

function pathParameter(name: string): Record<string, unknown> {
  let schema: Record<string, unknown>;
  if (name in pathParamSchemas) schema = plainSchema(pathParamSchemas[name as PathParamName]);
  else if (name === 'shardIndex') schema = { type: 'integer', minimum: 0, maximum: MAX_SHARD_INDEX };
  else schema = { type: 'string' };
  return { name, in: 'path', required: true, description: PARAM_DESCRIPTIONS[name] ?? name, schema };
}

/** Which scrape endpoints answer without credentials. */
type PublicMetrics = Pick<OpenApiOptions, 'metricsPublic' | 'prometheusPublic'>;

/** The role a route needs: `/coord/v1` follows its declared access; each scrape endpoint is READ unless public; the rest is open. */
function roleOf(op: ApiRoute, open: PublicMetrics): Role | null {
  if (op.path === METRICS_PATH) return open.metricsPublic ? null : 'READ';
  if (op.path === REFERENCE_METRICS_PATH) return open.prometheusPublic ? null : 'READ';
  if (!op.path.startsWith('/coord/v1/')) return null;
  return roleOfAccess(op.access, true);
}

/** `{example}` when there is one (OpenAPI media types and parameters both take it). */
function exampleOf(value: unknown): { example?: unknown } {
  return value === undefined ? {} : { example: value };
}

function successContent(body: SuccessBody, example: unknown): Record<string, unknown> {
  const ex = exampleOf(example);
  if ('component' in body) {
    return { 'application/json': { schema: { $ref: `#/components/schemas/${body.component}` }, ...ex } };
  }
  if ('arrayOf' in body) {
    return {
      'application/json': {
        schema: { type: 'array', items: { $ref: `#/components/schemas/${body.arrayOf}` } },
        ...ex,
      },
    };
  }
  if ('schema' in body) {
    return { 'application/json': { schema: { $ref: `#/components/schemas/${body.name}` }, ...ex } };
  }
  const schema = body.mediaType === 'application/json' ? { type: 'object' } : { type: 'string' };
  return { [body.mediaType]: { schema: { ...schema, description: body.description }, ...ex } };
}

const ERROR_CONTENT = { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } };

/** What a refused password check answers (429). */
const LOGIN_REFUSALS: readonly ErrorCode[] = ['LOGIN_THROTTLED', 'AUTHENTICATION_BUSY'];

function errorResponses(codes: readonly ErrorCode[]): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, unknown> = {};
  for (const [status, list] of [...byStatus.entries()].sort(([a], [b]) => a - b)) {
    const name = HTTP_STATUS_NAMES[status] ?? String(status);
    out[String(status)] = {
      description: `${name}: errorCode ${list.map((c) => `\`${c}\``).join(', ')}`,
      content: ERROR_CONTENT,
    };
  }
  return out;
}

function operationObject(op: ApiRoute, open: PublicMetrics): Record<string, unknown> {
  const role = roleOf(op, open);
  // The heartbeat is anonymous while member-API authentication is off.
  const memberRoute = op.access === 'MEMBER_API';
  // Captured from a real run (scripts/capture-api-examples.ts): what the try-it forms start from.
  const example: OperationExample = OPERATION_EXAMPLES[op.operationId] ?? {};
  const params: Array<Record<string, unknown>> = pathParamNames(honoPath(op.path)).map((name) => ({
    ...pathParameter(name),
    ...exampleOf(example.params?.[name]),
  }));
  for (const q of op.query ?? []) {
    params.push({
      name: q.name,
      in: 'query',
      required: q.required ?? false,
      description: q.description,
      schema: q.schema ?? { type: 'string' },
      ...exampleOf(example.query?.[q.name]),
    });
  }
  const responses: Record<string, unknown> = {
    [String(op.success.status)]: {
      description: op.success.description,
      content: successContent(op.success.body, example.response),
    },
    // Any password check (Basic on a protected route, or a login) may be throttled.
    ...errorResponses(
      role !== null || op.path.endsWith('/auth/login') ? [...op.errors, ...LOGIN_REFUSALS] : op.errors,
    ),
  };
  if (role !== null) {
    responses['401'] ??= {
      description: 'UNAUTHORIZED: missing or invalid credentials (empty body, `WWW-Authenticate: Basic`)',
    };
    responses['403'] = { description: `FORBIDDEN: authenticated without the ${role} role (empty body)` };
  }
  let security: Array<Record<string, string[]>>;
  if (role === null) security = [];
  else if (memberRoute) security = [{ basicAuth: [] }, { bearerAuth: [] }, {}];
  else security = [{ basicAuth: [] }, { bearerAuth: [] }];
  const notes = [op.description];
  if (memberRoute) {
    notes.push(
      'Needs MEMBER when member-API authentication is on (the default once credentials are configured); anonymous otherwise.',
    );
  }
  const out: Record<string, unknown> = {
    operationId: op.operationId,
    tags: [op.tag],
    summary: op.summary,
    description: notes.filter(Boolean).join('\n\n') || undefined,
    parameters: params.length > 0 ? params : undefined,
    requestBody: op.body
      ? {
          required: op.body.required,
          content: {
            'application/json': {
              schema: { $ref: `#/components/schemas/${op.body.component}` },
              ...exampleOf(example.request),
            },
          },
        }
      : undefined,
    responses,
    security,
    'x-required-role': role ?? 'NONE',
  };
  // Keep the JSON free of undefined-valued keys (JSON.stringify drops them anyway; tests compare objects).
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined));
}

const DESCRIPTION = [
  'Control plane for sharded Redis Streams, speaking the reference coordinator’s `/coord/v1` protocol.',
  '',
  '**Authentication.** `Authorization: Basic …` or `Bearer <token>` from `POST /coord/v1/auth/login`. Roles: ADMIN (everything), WRITE (mutations and reads), READ and MONITOR (reads), MEMBER (heartbeats). Missing or bad credentials answer 401 with an empty body; a missing role answers 403. Without configured credentials the coordinator runs in open mode and every route is anonymous.',
  '',
  '**Errors** carry `{status, errorCode, message}`; `errorCode` is stable. Responses may gain fields: clients ignore fields they do not know.',
].join('\n');

/** The document for the given served routes. */
export function buildOpenApiDocument(opts: OpenApiOptions): OpenApiDocument {
  const served = opts.served ? servedKeys(opts.served) : null;
  // Deployments differ (the Worker has no /metrics), so only what this app serves is described.
  const ops = served ? API_ROUTES.filter((op) => served.has(routeKey(op))) : API_ROUTES;
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of ops) {
    const p = toOpenApiPath(honoPath(op.path));
    paths[p] ??= {};
    paths[p][op.method] = operationObject(op, opts);
  }
  const usedTags = new Set(ops.map((o) => o.tag));
  return {
    openapi: '3.1.0',
    info: {
      title: 'redis-stream-coordinator (edge)',
      version: opts.version,
      description: DESCRIPTION,
    },
    tags: TAGS.filter((t) => usedTags.has(t.name)).map((t) => ({ ...t })),
    paths,
    components: {
      schemas: componentSchemas(routeComponents(ops)),
      securitySchemes: {
        basicAuth: { type: 'http', scheme: 'basic' },
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'token from POST /coord/v1/auth/login' },
      },
    },
  };
}
