/**
 * Checks for the OpenAPI suite: structural validation of the document (refs, parameters, ids,
 * responses) and the GET requests that exercise every documented JSON response.
 */
import { z } from 'zod';
import { parseConfig } from '../../src/config.js';
import type { CoordinatorApi } from '../../src/coordinator-api.js';
import type { ApiRoute } from '../../src/http/api-route.js';
import { createApp } from '../../src/http/app.js';
import { honoPath, routeKey, servedKeys } from '../../src/http/openapi.js';
import { COMPONENTS } from '../../src/http/openapi-components.js';
import { API_ROUTES } from '../../src/http/route-table.js';

/** A JSON object as the tests read it. */
export type JsonObject = Record<string, unknown>;

/** Every `$ref` string anywhere inside `node`. */
function refs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const n of node) refs(n, out);
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refs(v, out);
    }
  }
  return out;
}

/** Problems with the document (empty when it is well-formed). */
export function checkDocument(doc: JsonObject): string[] {
  const problems: string[] = [];
  if (doc.openapi !== '3.1.0') problems.push(`openapi is ${String(doc.openapi)}`);
  const info = doc.info as JsonObject | undefined;
  if (!info?.title || !info.version) problems.push('info.title and info.version are required');
  const components = doc.components as { schemas: JsonObject; securitySchemes: JsonObject };
  for (const ref of refs(doc)) {
    const m = /^#\/components\/schemas\/(.+)$/.exec(ref);
    if (!m || !(m[1]! in components.schemas)) problems.push(`unresolved $ref ${ref}`);
  }
  const tags = new Set(((doc.tags as JsonObject[]) ?? []).map((t) => t.name));
  const ids = new Set<string>();
  for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, JsonObject>>)) {
    const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!).sort();
    for (const [method, op] of Object.entries(ops)) {
      const where = `${method.toUpperCase()} ${path}`;
      const params = (op.parameters as JsonObject[] | undefined) ?? [];
      const declared = params.filter((p) => p.in === 'path').map((p) => String(p.name));
      if (JSON.stringify(declared.sort()) !== JSON.stringify(templated)) {
        problems.push(`${where}: path parameters ${declared} vs template ${templated}`);
      }
      if (params.some((p) => p.in === 'path' && p.required !== true))
        problems.push(`${where}: optional path parameter`);
      const id = String(op.operationId);
      if (ids.has(id)) problems.push(`${where}: duplicate operationId ${id}`);
      ids.add(id);
      for (const t of (op.tags as string[]) ?? [])
        if (!tags.has(t)) problems.push(`${where}: undeclared tag ${t}`);
      const responses = Object.keys((op.responses as JsonObject) ?? {});
      if (!responses.some((s) => /^2\d\d$/.test(s))) problems.push(`${where}: no success response`);
      if (responses.some((s) => !/^[1-5]\d\d$/.test(s))) problems.push(`${where}: bad status key`);
      for (const req of (op.security as JsonObject[]) ?? []) {
        for (const scheme of Object.keys(req)) {
          if (!(scheme in components.securitySchemes))
            problems.push(`${where}: unknown security scheme ${scheme}`);
        }
      }
    }
  }
  return problems;
}

/** The zod schema of an operation's JSON success body. */
export function schemaOf(op: ApiRoute): z.ZodType {
  const body = op.success.body;
  if ('component' in body) return COMPONENTS[body.component];
  if ('arrayOf' in body) return z.array(COMPONENTS[body.arrayOf]);
  if ('schema' in body) return body.schema;
  throw new Error(`${op.operationId} has no JSON body`);
}

const SAMPLE_PARAMS = (prefix: string): Record<string, string> => ({
  streamPrefix: prefix,
  consumerGroup: prefix,
  memberId: 'm1',
  shardIndex: '0',
  shard: '0',
});

/** One GET per served operation with a JSON body, path parameters filled from `extra` too. */
export function conformanceCases(
  prefix: string,
  extra: Record<string, string> = {},
): Array<{ route: string; url: string }> {
  const served = servedKeys(createApp({ coordinator: {} as CoordinatorApi, config: parseConfig({}) }).routes);
  const params = { ...SAMPLE_PARAMS(prefix), ...extra };
  const out: Array<{ route: string; url: string }> = [];
  for (const op of API_ROUTES) {
    const route = routeKey(op);
    if (op.method !== 'get' || !served.has(route) || 'mediaType' in op.success.body) continue;
    const pattern = honoPath(op.path);
    const names = [...pattern.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);
    if (names.some((n) => !(n in params))) throw new Error(`no sample value for a parameter of ${route}`);
    const path = pattern.replace(/:([A-Za-z0-9_]+)/g, (_, n: string) => encodeURIComponent(params[n]!));
    const query = new URLSearchParams();
    for (const q of op.query ?? []) if (q.name in params && q.required) query.set(q.name, params[q.name]!);
    if (op.operationId === 'grafanaMessages') query.set('shardIndex', '0');
    out.push({ route, url: query.size > 0 ? `${path}?${query}` : path });
  }
  return out;
}
