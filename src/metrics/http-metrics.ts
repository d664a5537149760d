/**
 * HTTP side of the metrics: a middleware that counts and times every request by its route
 * pattern (never the raw path, so series stay bounded), and the `GET /metrics` route.
 */
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import { PROMETHEUS_CONTENT_TYPE } from './registry.js';

/** Path of the Prometheus scrape endpoint (outside `/coord/v1`, like the reference's actuator). */
export const METRICS_PATH = '/metrics';

/** Route label of requests no route matched (404s of unknown paths). */
export const UNMATCHED_ROUTE = 'unmatched';

/** What the HTTP layer needs from a metrics recorder. */
export interface HttpMetrics {
  /** Monotonic milliseconds. */
  now(): number;
  /** Records one answered request. */
  observeRequest(method: string, route: string, status: number, seconds: number): void;
  /** The text exposition. */
  render(): Promise<string>;
}

/**
 * The pattern of the handler the request matched (`/coord/v1/streams/:streamPrefix`), or
 * `unmatched`. Middleware is registered for method `ALL`; handlers carry a real method.
 */
export function routePattern(c: Context): string {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) {
    const r = routes[i]!;
    if (r.method !== 'ALL') return r.path;
  }
  return UNMATCHED_ROUTE;
}

/** Counts and times every request; mount it before anything else. */
export function requestMetrics(metrics: HttpMetrics): MiddlewareHandler {
  return async (c, next) => {
    const start = metrics.now();
    try {
      await next();
    } finally {
      // Errors have already become responses (app.onError) by the time next() returns.
      metrics.observeRequest(c.req.method, routePattern(c), c.res.status, (metrics.now() - start) / 1000);
    }
  };
}

/** `GET /metrics` in the Prometheus text format. */
export function metricsRoutes(metrics: HttpMetrics): Hono {
  const app = new Hono();
  app.get(METRICS_PATH, async (c) => {
    const text = await metrics.render();
    return c.body(text, 200, { 'content-type': PROMETHEUS_CONTENT_TYPE, 'cache-control': 'no-store' });
  });
  return app;
}
