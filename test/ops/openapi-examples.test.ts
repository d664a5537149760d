/**
 * The document's examples (captured from a real run by `npm run build:examples`): every
 * operation has one, and every one still is what its operation accepts and answers — request
 * bodies and parameters parse with the schemas the routes validate with, JSON answers parse
 * with the documented success schema and name no undocumented field.
 */
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { OPERATION_EXAMPLES } from '../../src/http/generated/openapi-examples.js';
import { buildOpenApiDocument } from '../../src/http/openapi.js';
import { COMPONENTS } from '../../src/http/openapi-components.js';
import { API_ROUTES } from '../../src/http/route-table.js';
import type { JsonObject } from './openapi-checks.js';
import { schemaOf } from './openapi-checks.js';

/** Every operation object of the document, by operationId. */
function operations(doc: JsonObject): Map<string, JsonObject> {
  const out = new Map<string, JsonObject>();
  for (const item of Object.values(doc.paths as Record<string, Record<string, JsonObject>>)) {
    for (const op of Object.values(item)) out.set(op.operationId as string, op);
  }
  return out;
}

describe('openapi > examples', () => {
  const doc = buildOpenApiDocument({ version: 'test' }) as JsonObject;
  const ops = operations(doc);

  it('shows an example answer for every operation, and an example for every parameter and body', () => {
    expect(ops.size).toBe(API_ROUTES.length);
    const missing: string[] = [];
    for (const [id, op] of ops) {
      const success = Object.entries(op.responses as Record<string, JsonObject>).find(([s]) => /^2/.test(s))!;
      const media = Object.values(success[1].content as Record<string, JsonObject>)[0]!;
      if (media.example === undefined) missing.push(`${id}: answer`);
      for (const p of (op.parameters as JsonObject[] | undefined) ?? []) {
        // Optional query parameters may go without; what a path needs never does.
        if (p.example === undefined && p.required) missing.push(`${id}: parameter ${String(p.name)}`);
      }
      const body = op.requestBody as { content: Record<string, JsonObject> } | undefined;
      if (body && body.content['application/json']!.example === undefined) missing.push(`${id}: body`);
    }
    expect(missing).toEqual([]);
  });

  it('has no example for an operation that does not exist', () => {
    const ids = new Set(API_ROUTES.map((r) => r.operationId));
    expect(Object.keys(OPERATION_EXAMPLES).filter((id) => !ids.has(id))).toEqual([]);
  });

  it('gives examples the routes accept and answers the document describes', () => {
    const problems: string[] = [];
    for (const route of API_ROUTES) {
      const ex = OPERATION_EXAMPLES[route.operationId];
      if (!ex) continue;
      if (route.params && ex.params) {
        const r = route.params.safeParse(ex.params);
        if (!r.success) problems.push(`${route.operationId} params: ${r.error.message}`);
      }
      if (route.body) {
        const r = COMPONENTS[route.body.component].safeParse(ex.request);
        if (!r.success) problems.push(`${route.operationId} body: ${r.error.message}`);
      }
      if ('mediaType' in route.success.body) {
        if (typeof ex.response !== 'string' && route.success.body.mediaType !== 'application/json')
          problems.push(`${route.operationId}: a textual answer's example is text`);
        continue;
      }
      const r = schemaOf(route).safeParse(ex.response);
      if (!r.success) problems.push(`${route.operationId} answer: ${r.error.message.slice(0, 400)}`);
      // Parsing strips unknown keys: equality proves the example names only documented fields.
      else if (!isDeepStrictEqual(r.data, ex.response))
        problems.push(`${route.operationId}: undocumented fields`);
    }
    expect(problems).toEqual([]);
  });

  it('shows no credential of the capture run (the token is a placeholder)', () => {
    const text = JSON.stringify(OPERATION_EXAMPLES);
    expect(text).not.toMatch(/Basic [A-Za-z0-9+/=]{8,}/);
    expect((OPERATION_EXAMPLES.login!.response as { accessToken: string }).accessToken).toBe(
      'rsc1.eyJzdWIiOiJhZG1pbiJ9.c2lnbmF0dXJl',
    );
  });
});
