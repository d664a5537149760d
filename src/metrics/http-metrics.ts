/**
 * HTTP side of the metrics: a middleware that counts and times every request by its route
 * pattern (never the raw path, so series stay bounded), and the `GET /metrics` route.
 */
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import { REFERENCE_METRICS_PATH, type RequestInfo } from './reference-metrics.js';
import { PROMETHEUS_CONTENT_TYPE } from './registry.js';

/** Path of the Prometheus scrape endpoint (outside `/coord/v1`, like the reference's actuator). */
export const METRICS_PATH = '/metrics';

/** Route label of requests no route matched (404s of unknown paths). */
const UNMATCHED_ROUTE = 'unmatched';

/** What the HTTP layer needs from a metrics recorder. */
export interface HttpMetrics {
  /** Monotonic milliseconds. */
  now(): number;
  /** Records one answered request (`info`: its declaration and group, when the app can tell). */
  observeRequest(method: string, route: string, status: number, seconds: number, info?: RequestInfo): void;
  /** The text exposition. */
  render(): Promise<string>;
  /** The reference-compatible exposition (`GET /actuator/prometheus`); absent: not served. */
  renderReference?(): Promise<string>;
}

/**
 * The pattern of the handler the request matched (`/coord/v1/streams/:streamPrefix`), or
 * `unmatched`. Middleware is registered for method `ALL`; handlers carry a real method.
 */
function routePattern(c: Context): string {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) {
    const r = routes[i]!;
    if (r.method !== 'ALL') return r.path;
  }
  return UNMATCHED_ROUTE;
}

/** Counts and times every request; mount it before anything else. `describe` adds the declaration and group. */
export function requestMetrics(
  metrics: HttpMetrics,
  describe?: (c: Context) => RequestInfo,
): MiddlewareHandler {
  return async (c, next) => {
    const start = metrics.now();
    try {
      await next();
    } finally {
      // Errors have already become responses (app.onError) by the time next() returns.
      const seconds = (metrics.now() - start) / 1000;
      metrics.observeRequest(c.req.method, routePattern(c), c.res.status, seconds, describe?.(c));
    }
  };
}

/** `GET /metrics` (and `GET /actuator/prometheus` when the recorder has it) in the Prometheus text format. */
export function metricsRoutes(metrics: HttpMetrics): Hono {
  const app = new Hono();
  const headers = { 'content-type': PROMETHEUS_CONTENT_TYPE, 'cache-control': 'no-store' };
  app.get(METRICS_PATH, async (c) => c.body(await metrics.render(), 200, headers));
  const reference = metrics.renderReference?.bind(metrics);
  if (reference) app.get(REFERENCE_METRICS_PATH, async (c) => c.body(await reference(), 200, headers));
  return app;
}
