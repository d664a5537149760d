/**
 * The OpenAPI document: it describes every route the app serves and nothing else, it is a
 * well-formed OpenAPI 3.1 document, it is public, and real responses match its schemas.
 */
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import type { CoordinatorApi } from '../../src/coordinator-api.js';
import { createApp } from '../../src/http/app.js';
import { requiredRole } from '../../src/http/auth/required-role.js';
import { buildOpenApiDocument, routeKey, servedKeys } from '../../src/http/openapi.js';
import { API_ROUTES } from '../../src/http/route-table.js';
import { CoordinatorMetrics } from '../../src/metrics/coordinator-metrics.js';
import { backends, uniquePrefix } from '../support/redis.js';
import { heartbeatBody, makeStack, type Stack } from '../support/stack.js';
import { checkDocument, conformanceCases, type JsonObject, schemaOf } from './openapi-checks.js';

/** Route registration never calls the coordinator, so a bare object is enough here. */
const noCoordinator = {} as CoordinatorApi;

function fullApp(env: Record<string, string> = {}, metricsPublic = false) {
  return createApp({
    coordinator: noCoordinator,
    config: parseConfig(env),
    // As on Node: our /metrics and the reference-named /actuator/prometheus.
    metrics: new CoordinatorMetrics({ reference: { coordinatorId: 'openapi', maxGroups: 10 } }),
    metricsPublic,
  });
}

async function fetchDoc(app: ReturnType<typeof fullApp>): Promise<JsonObject> {
  const res = await app.request('/coord/v1/openapi.json');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return (await res.json()) as JsonObject;
}

describe('openapi > completeness', () => {
  it('has a catalogue entry for every route the app serves', () => {
    const served = [...servedKeys(fullApp().routes)];
    const catalogue = new Set(API_ROUTES.map(routeKey));
    const undescribed = served.filter((k) => !catalogue.has(k));
    // A failure here names routes to declare with apiRoute() and list in src/http/route-table.ts.
    expect(undescribed).toEqual([]);
    expect(served.length).toBeGreaterThan(25);
  });

  it('serves every catalogue entry (nothing is described that does not exist)', () => {
    const served = servedKeys(fullApp().routes);
    const missing = API_ROUTES.filter((o) => !served.has(routeKey(o)));
    expect(missing.map(routeKey)).toEqual([]);
  });

  it('documents exactly the routes the app serves, method by method', async () => {
    const app = fullApp();
    const doc = await fetchDoc(app);
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(
      ([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`),
    );
    const served = [...servedKeys(app.routes)].map((k) =>
      k.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\/\*$/, '/{path}'),
    );
    expect(documented.sort()).toEqual(served.sort());
  });

  it('leaves out /metrics where the app has no metrics (the Worker)', () => {
    const app = createApp({ coordinator: noCoordinator, config: parseConfig({}) });
    const doc = buildOpenApiDocument({ version: 'x', served: app.routes });
    expect(doc.paths['/metrics']).toBeUndefined();
    expect(doc.paths['/actuator/prometheus']).toBeUndefined();
    expect(doc.paths['/coord/v1/openapi.json']).toBeDefined();
  });
});

describe('openapi > document', () => {
  it('is a well-formed OpenAPI 3.1 document: refs resolve, path parameters declared, ids unique', async () => {
    const doc = await fetchDoc(fullApp());
    expect(checkDocument(doc)).toEqual([]);
  });

  it('describes request bodies from the zod schemas the routes validate with', async () => {
    const doc = await fetchDoc(fullApp());
    const schemas = (doc.components as JsonObject).schemas as Record<string, JsonObject>;
    const heartbeat = schemas.HeartbeatRequest!;
    expect(heartbeat.required).toEqual(
      expect.arrayContaining(['protocolVersion', 'requestId', 'memberId', 'memberEpoch', 'metadataVersion']),
    );
    const create = schemas.CreateStreamRequest!;
    expect(Object.keys(create.properties as object)).toEqual(
      expect.arrayContaining(['initialShardCount', 'consumerGroup', 'requestedBy', 'reason']),
    );
    expect(create.required).toEqual(['requestedBy']);
    const op = (doc.paths as JsonObject)['/coord/v1/streams/{streamPrefix}'] as JsonObject;
    expect(op.post).toMatchObject({
      requestBody: {
        content: { 'application/json': { schema: { $ref: '#/components/schemas/CreateStreamRequest' } } },
      },
      responses: { '201': expect.anything(), '409': expect.anything(), '401': expect.anything() },
    });
  });

  it('declares Basic and bearer security, the role each route needs, and which routes are public', async () => {
    const doc = await fetchDoc(fullApp());
    const paths = doc.paths as Record<string, Record<string, JsonObject>>;
    expect((doc.components as JsonObject).securitySchemes).toMatchObject({
      basicAuth: { type: 'http', scheme: 'basic' },
      bearerAuth: { type: 'http', scheme: 'bearer' },
    });
    expect(paths['/coord/v1/streams/{streamPrefix}']!.post!['x-required-role']).toBe('WRITE');
    expect(paths['/coord/v1/monitoring/groups']!.get!['x-required-role']).toBe('READ');
    expect(paths['/metrics']!.get!['x-required-role']).toBe('READ');
    expect(paths['/actuator/prometheus']!.get!['x-required-role']).toBe('READ');
    for (const open of [
      '/coord/v1/openapi.json',
      '/coord/v1/docs',
      '/coord/v1/auth/login',
      '/actuator/health',
      '/actuator/health/readiness',
      '/actuator/health/liveness',
    ]) {
      const op = Object.values(paths[open]!)[0]!;
      expect(op.security, open).toEqual([]);
    }
    const hb =
      paths['/coord/v1/streams/{streamPrefix}/groups/{consumerGroup}/members/{memberId}/heartbeat']!.post!;
    expect(hb.security).toEqual([{ basicAuth: [] }, { bearerAuth: [] }, {}]);
    const publicMetrics = await fetchDoc(fullApp({}, true));
    expect(
      (publicMetrics.paths as Record<string, Record<string, JsonObject>>)['/metrics']!.get!.security,
    ).toEqual([]);
    // The reference-named endpoint names streams, groups and members: public only by its own switch.
    expect(
      (publicMetrics.paths as Record<string, Record<string, JsonObject>>)['/actuator/prometheus']!.get![
        'x-required-role'
      ],
    ).toBe('READ');
  });
});

describe('openapi > route table entries', () => {
  it.each([
    ['GET', '/coord/v1/openapi.json', null],
    ['GET', '/coord/v1/docs', null],
    ['POST', '/coord/v1/openapi.json', 'WRITE'],
    ['GET', '/metrics', 'READ'],
    ['GET', '/actuator/prometheus', 'READ'],
    ['GET', '/coord/v1/monitoring/streams/s/groups/g/lag', 'READ'],
  ] as const)('%s %s needs %s', (method, path, role) => {
    expect(requiredRole(method, path, true)).toBe(role);
  });
});

describe('openapi > public access', () => {
  const env = { COORDINATOR_ADMIN_PASSWORD: 'docs-test-secret' };

  it('serves the document and the reference page without credentials when credentials are configured', async () => {
    const app = fullApp(env);
    expect((await app.request('/coord/v1/monitoring/groups')).status).toBe(401);
    expect((await app.request('/metrics')).status).toBe(401);
    expect((await app.request('/actuator/prometheus')).status).toBe(401);
    expect((await app.request('/coord/v1/openapi.json')).status).toBe(200);
    const page = await app.request('/coord/v1/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toContain("fetch('openapi.json'");
    // Self-contained: nothing is loaded from anywhere else.
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|https?:\/\//);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
  });

  it('lets the inline script run under its own CSP (the hash matches the served script)', async () => {
    const page = await fullApp(env).request('/coord/v1/docs');
    const html = await page.text();
    const script = /<script>([\s\S]*)<\/script>/.exec(html)![1]!;
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(script)));
    const hash = Buffer.from(digest).toString('base64');
    expect(page.headers.get('content-security-policy')).toContain(`'sha256-${hash}'`);
  });
});

describe('openapi > real responses match the documented schemas', () => {
  let stack: Stack;
  const prefix = uniquePrefix('doc');
  const results: Array<{ route: string; status: number; body: unknown }> = [];
  let reshardingId = '';

  beforeAll(async () => {
    stack = makeStack(backends[0]!);
    const created = await stack.call('POST', `/coord/v1/streams/${prefix}`, {
      initialShardCount: 3,
      requestedBy: 't',
    });
    results.push({ route: 'POST /coord/v1/streams/:streamPrefix', ...created });
    const hb = await stack.call(
      'POST',
      `/coord/v1/streams/${prefix}/groups/${prefix}/members/m1/heartbeat`,
      heartbeatBody('m1', prefix, { epoch: 0, mv: 0 }),
    );
    results.push({
      route: 'POST /coord/v1/streams/:streamPrefix/groups/:consumerGroup/members/:memberId/heartbeat',
      ...hb,
    });
    await stack.redis.xadd(`${prefix}:0`, '*', 'payload', 'hello', 'k', 'v');
    const scaled = await stack.call('POST', `/coord/v1/streams/${prefix}/scale`, {
      targetShardCount: 4,
      requestedBy: 't',
      reason: 'conformance',
    });
    results.push({ route: 'POST /coord/v1/streams/:streamPrefix/scale', ...scaled });
    reshardingId = scaled.body?.migrations?.[0]?.reshardingId ?? 'missing';
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('every served GET route with a JSON body, and the mutations above, answer what the document says', async () => {
    const cases = conformanceCases(prefix, { reshardingId });
    expect(cases.length).toBeGreaterThan(15);
    for (const c of cases) {
      const res = await stack.call('GET', c.url);
      results.push({ route: c.route, ...res });
    }
    const problems: string[] = [];
    for (const r of results) {
      const op = API_ROUTES.find((o) => routeKey(o) === r.route)!;
      if (r.status !== op.success.status) {
        problems.push(`${r.route}: status ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
        continue;
      }
      const schema = schemaOf(op);
      const parsed = schema.safeParse(r.body);
      if (!parsed.success) problems.push(`${r.route}: ${parsed.error.message.slice(0, 500)}`);
      // Parsing strips unknown keys: equality proves the document names every field served.
      else if (!isDeepStrictEqual(parsed.data, r.body)) problems.push(`${r.route}: undocumented fields`);
    }
    expect(problems).toEqual([]);
  });
});
