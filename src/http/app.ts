/**
 * The HTTP app: `/coord/v1` routes and the actuator, built from injected dependencies only.
 */
import { type Context, Hono } from 'hono';
import { methodNotAllowed } from 'hono/method-not-allowed';
import { requestId } from 'hono/request-id';
import { METRICS_PATH, metricsRoutes, requestMetrics } from '../metrics/http-metrics.js';
import { REFERENCE_METRICS_PATH, type RequestInfo } from '../metrics/reference-metrics.js';
import { createAuth } from './auth/mount.js';
import { type AppDeps, type AppEnv, resolveDeps } from './context.js';
import { createErrorHandler, methodNotAllowedResponse, notFoundHandler, withRequestId } from './errors.js';
import { openModeGuard } from './open-mode-guard.js';
import { matchRoute } from './route-table.js';
import { actuatorRoutes } from './routes/actuator.js';
import { adminRoutes } from './routes/admin.js';
import { consoleRoutes } from './routes/console.js';
import { deadLetterRoutes } from './routes/dead-letters.js';
import { docsRoutes } from './routes/docs.js';
import { grafanaRoutes } from './routes/grafana.js';
import { lagRoutes } from './routes/lag.js';
import { memberRoutes } from './routes/members.js';
import { messagesRoutes } from './routes/messages.js';
import { migrationRoutes } from './routes/migrations.js';
import { monitoringRoutes } from './routes/monitoring.js';
import { offsetsRoutes } from './routes/offsets.js';
import { offsetsResetRoutes } from './routes/offsets-reset.js';
import { pendingEntriesRoutes } from './routes/pending-entries.js';
import { routingRoutes } from './routes/routing.js';
import { scaleRoutes } from './routes/scale.js';
import { terminatingGuard } from './terminating.js';

export type { AppDeps, AppEnv, Logger, LogLevel } from './context.js';

/** Base path of the wire protocol. */
const API_BASE = '/coord/v1';

/** The declaration a request matched and the stream/group its path names (the reference's API labels). */
function requestInfo(c: Context): RequestInfo {
  const m = matchRoute(c.req.method, c.req.path);
  if (!m) return { declaredPath: null };
  return {
    declaredPath: m.route.path,
    streamPrefix: m.params.streamPrefix,
    consumerGroup: m.params.consumerGroup,
  };
}

/** Answered heartbeats, the bulk of all traffic (one per member per interval). */
const HEARTBEAT_PATH = /\/members\/[^/]+\/heartbeat$|\/heartbeats$/;

/**
 * The access line's level: `info`, but `debug` for answered heartbeats and for 304s (producers
 * revalidating their routing every few seconds), which would drown everything else.
 */
function accessLevel(path: string, status: number): 'debug' | 'info' {
  return status === 304 || (status < 400 && HEARTBEAT_PATH.test(path)) ? 'debug' : 'info';
}

/** Builds the Hono app serving `/coord/v1` and `/actuator` from `deps` (no globals). */
export function createApp(deps: AppDeps): Hono<AppEnv> {
  const d = resolveDeps(deps);
  const app = new Hono<AppEnv>();

  // Every answer (JSON, errors, the console) is read as the type it declares, never sniffed.
  app.use(async (c, next) => {
    await next();
    c.res.headers.set('x-content-type-options', 'nosniff');
  });
  // First, so request metrics time everything after it (authentication included).
  if (d.metrics) app.use(requestMetrics(d.metrics, requestInfo));
  // One id per request, in the X-Request-Id answer header and the access line (a client may bring its own).
  app.use(requestId());
  app.use(async (c, next) => {
    // The duration by the monotonic timer: the injected clock is read once per request.
    const started = performance.now();
    c.set('now', d.now());
    await next();
    // Here rather than before the route: answers built by the error handlers replace the response.
    c.res.headers.set('x-request-id', c.get('requestId'));
    // Error bodies carry it too, so a pasted error leads to its log lines.
    if (c.res.status >= 400) {
      const tagged = await withRequestId(c.res, c.get('requestId'));
      if (tagged) c.res = tagged;
    }
    const status = c.res.status;
    d.log(accessLevel(c.req.path, status), 'request', {
      requestId: c.get('requestId'),
      method: c.req.method,
      path: c.req.path,
      status,
      ms: Math.round(performance.now() - started),
    });
  });
  // Open mode trusts the network path: refuse foreign hosts and cross-origin mutations first.
  if (d.config.auth === null) app.use(openModeGuard(d.openModeHosts));
  // Turns the JSON 404 of a known path called with the wrong method into a JSON 405.
  app.use(methodNotAllowed({ app, onMethodNotAllowed: methodNotAllowedResponse }));
  // Authentication (then the optional rate limit) before every /coord/v1 route, so no route can skip it.
  const auth = createAuth(d);
  app.use(`${API_BASE}/*`, ...auth.middleware);
  // Operations that may answer COORDINATOR_TERMINATING refuse while the process drains.
  app.use(`${API_BASE}/*`, terminatingGuard(d.terminating));
  // `/metrics` and `/actuator/prometheus` need READ like the monitoring routes, unless the
  // deployment serves them publicly: each has its own switch, since only the second names
  // streams, groups and members (docs/security.md).
  if (d.metrics && !d.metricsPublic) app.use(METRICS_PATH, ...auth.middleware);
  if (d.metrics && !d.prometheusPublic) app.use(REFERENCE_METRICS_PATH, ...auth.middleware);
  app.route('/', auth.routes);

  app.route('/', adminRoutes(d));
  app.route('/', routingRoutes(d));
  app.route('/', memberRoutes(d));
  app.route('/', monitoringRoutes(d));
  app.route('/', offsetsRoutes(d));
  app.route('/', offsetsResetRoutes(d));
  app.route('/', lagRoutes(d));
  app.route('/', messagesRoutes(d));
  app.route('/', pendingEntriesRoutes(d));
  app.route('/', deadLetterRoutes(d));
  app.route('/', grafanaRoutes(d));
  app.route('/', scaleRoutes(d));
  app.route('/', migrationRoutes(d));
  app.route('/', actuatorRoutes(d));
  if (d.metrics) app.route('/', metricsRoutes(d.metrics));
  // The OpenAPI document describes the routes this app ended up serving (read on first request).
  const servedRoutes = () => app.routes;
  app.route('/', docsRoutes(d, servedRoutes));
  // The web console: public static assets; its data comes through the authenticated API.
  app.route('/', consoleRoutes());

  app.notFound(notFoundHandler);
  app.onError(createErrorHandler(d.log));
  return app;
}
