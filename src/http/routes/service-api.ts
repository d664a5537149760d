/**
 * The declared operations around the protocol: login and session, this documentation, metrics,
 * the web console and the actuator. Login, session, docs and the actuator `serve()` their
 * handlers on these declarations; the console (`console.ts`) and `/metrics`
 * (`metrics/http-metrics.ts`) still register their own paths, and the OpenAPI suite checks
 * that what is declared here is exactly what the app serves.
 */
import { apiRoute } from '../api-route.js';

const BASE = '/coord/v1';

const READINESS =
  'UP (200) when Redis answers a PING with the configured credentials (result cached 250 ms), its ' +
  '`maxmemory-policy` cannot evict coordinator keys (no `allkeys-*` policy unless ' +
  'COORDINATOR_ALLOW_EVICTION=true; read from `INFO memory` at most every 30 s) and the ' +
  'instance is not terminating (Node: after SIGTERM, while draining). Otherwise **503** with the same ' +
  'body and `status` `DOWN`; the component that is DOWN says why, e.g. ' +
  '`{"status":"DOWN","components":{"redis":{"status":"DOWN","details":{"error":"credentials refused"}},' +
  '"lifecycle":{"status":"UP"}}}`. Never carries secrets.';

/** Login, session, docs, metrics, console and actuator. */
export const SERVICE_ROUTES = {
  login: apiRoute({
    method: 'post',
    path: `${BASE}/auth/login`,
    operationId: 'login',
    tag: 'Auth',
    summary: 'Exchange credentials for a bearer token',
    description:
      'Checks `username`/`password` from the body, or else the request’s own Authorization header. A failure answers 401 with an ErrorResponse.',
    access: 'PUBLIC',
    body: { component: 'LoginRequest', required: false },
    success: { status: 200, description: 'Token issued', body: { component: 'LoginResponse' } },
    errors: ['INVALID_REQUEST', 'UNAUTHORIZED', 'PAYLOAD_TOO_LARGE'],
  }),
  session: apiRoute({
    method: 'get',
    path: `${BASE}/monitoring/session`,
    operationId: 'getSession',
    tag: 'Auth',
    summary: 'Who the request is authenticated as',
    access: 'READ',
    success: { status: 200, description: 'The session', body: { component: 'SessionResponse' } },
    errors: [],
  }),
  openApi: apiRoute({
    method: 'get',
    path: `${BASE}/openapi.json`,
    operationId: 'getOpenApi',
    tag: 'Operations',
    summary: 'This OpenAPI 3.1 document (public)',
    access: 'PUBLIC',
    success: {
      status: 200,
      description: 'OpenAPI document',
      body: { mediaType: 'application/json', description: 'an OpenAPI 3.1 document' },
    },
    errors: [],
  }),
  docs: apiRoute({
    method: 'get',
    path: `${BASE}/docs`,
    operationId: 'getDocs',
    tag: 'Operations',
    summary: 'Rendered API reference (public, self-contained HTML)',
    access: 'PUBLIC',
    success: {
      status: 200,
      description: 'HTML page',
      body: { mediaType: 'text/html', description: 'renders /coord/v1/openapi.json' },
    },
    errors: [],
  }),
  metrics: apiRoute({
    method: 'get',
    path: '/metrics',
    operationId: 'getMetrics',
    tag: 'Operations',
    summary: 'Prometheus metrics (Node only; READ unless configured public)',
    access: 'READ',
    success: {
      status: 200,
      description: 'Prometheus text exposition format 0.0.4',
      body: { mediaType: 'text/plain', description: 'Prometheus text format' },
    },
    errors: [],
  }),
  referenceMetrics: apiRoute({
    method: 'get',
    path: '/actuator/prometheus',
    operationId: 'getReferenceMetrics',
    tag: 'Operations',
    summary:
      'Prometheus metrics under the reference coordinator’s names (Node only; READ unless configured public)',
    description:
      'The `redis_stream_coord_*` series the reference coordinator’s Grafana dashboards and console read, ' +
      'labelled by coordinator, stream, group, shard, member and route, plus process and runtime metrics. ' +
      'Stream/group pairs past `COORDINATOR_METRICS_MAX_GROUPS` are summed under `stream="_other",group="_other"`.',
    access: 'READ',
    success: {
      status: 200,
      description: 'Prometheus text exposition format 0.0.4',
      body: { mediaType: 'text/plain', description: 'Prometheus text format' },
    },
    errors: [],
  }),
  console: apiRoute({
    method: 'get',
    path: '/console',
    operationId: 'getConsole',
    tag: 'Operations',
    summary: 'Web console (public static page; its data comes from the authenticated API)',
    access: 'PUBLIC',
    success: {
      status: 200,
      description: 'HTML page',
      body: { mediaType: 'text/html', description: 'the console' },
    },
    errors: [],
  }),
  consoleAsset: apiRoute({
    method: 'get',
    path: '/console/*',
    operationId: 'getConsoleAsset',
    tag: 'Operations',
    summary: 'Web console pages and static assets (public)',
    access: 'PUBLIC',
    success: {
      status: 200,
      description: 'A console page (HTML) or asset (script, stylesheet)',
      body: { mediaType: 'text/html', description: 'page or asset' },
    },
    errors: ['NOT_FOUND'],
  }),
  actuatorHealth: apiRoute({
    method: 'get',
    path: '/actuator/health',
    operationId: 'getActuatorHealth',
    tag: 'Operations',
    summary: 'Health: readiness with its components (public)',
    description: READINESS,
    access: 'PUBLIC',
    success: { status: 200, description: 'UP: ready for traffic', body: { component: 'ActuatorHealth' } },
    errors: [],
  }),
  actuatorReadiness: apiRoute({
    method: 'get',
    path: '/actuator/health/readiness',
    operationId: 'getActuatorReadiness',
    tag: 'Operations',
    summary: 'Readiness probe (public)',
    description: READINESS,
    access: 'PUBLIC',
    success: { status: 200, description: 'UP: ready for traffic', body: { component: 'ActuatorHealth' } },
    errors: [],
  }),
  actuatorLiveness: apiRoute({
    method: 'get',
    path: '/actuator/health/liveness',
    operationId: 'getActuatorLiveness',
    tag: 'Operations',
    summary: 'Liveness probe (public)',
    description:
      'Always `{"status":"UP"}` while the process serves HTTP; it does not depend on Redis (a Redis outage must not restart the instance).',
    access: 'PUBLIC',
    success: { status: 200, description: 'The process serves', body: { component: 'ActuatorHealth' } },
    errors: [],
  }),
  actuatorInfo: apiRoute({
    method: 'get',
    path: '/actuator/info',
    operationId: 'getActuatorInfo',
    tag: 'Operations',
    summary: 'Build info (public)',
    access: 'PUBLIC',
    success: { status: 200, description: 'Build info', body: { component: 'ActuatorInfo' } },
    errors: [],
  }),
};
