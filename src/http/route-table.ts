/**
 * Every declared operation, and the matcher that finds the one a request addresses. The role
 * check and the rate-limit key read the matched declaration, so neither parses paths itself.
 */
import type { ApiRoute } from './api-route.js';
import { MONITORING_ROUTES } from './routes/monitoring.js';

/** Every declared operation the app can serve. */
export const API_ROUTES: readonly ApiRoute[] = [...Object.values(MONITORING_ROUTES)];

/** A request matched to its declaration, with its path parameters percent-decoded. */
export interface RouteMatch {
  route: ApiRoute;
  params: Record<string, string>;
}

interface Compiled {
  route: ApiRoute;
  method: string;
  pattern: RegExp;
  names: string[];
}

/** `/a/{x}/b` → `^/a/([^/]+)/b$` and the names in order. */
function compile(route: ApiRoute): Compiled {
  const names: string[] = [];
  const source = route.path
    .split('/')
    .map((seg) => {
      const m = /^\{(.+)\}$/.exec(seg);
      if (!m) return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(m[1]!);
      return '([^/]+)';
    })
    .join('/');
  return { route, method: route.method.toUpperCase(), pattern: new RegExp(`^${source}$`), names };
}

/** A path segment as Hono hands it to the route (left as is when it does not decode). */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** A matcher over `routes` (HEAD matches GET, as Hono serves it). */
export function routeMatcher(
  routes: readonly ApiRoute[],
): (method: string, path: string) => RouteMatch | null {
  const compiled = routes.map(compile);
  return (method, path) => {
    const m = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
    for (const c of compiled) {
      if (c.method !== m) continue;
      const hit = c.pattern.exec(path);
      if (!hit) continue;
      const params: Record<string, string> = {};
      c.names.forEach((name, i) => {
        params[name] = decoded(hit[i + 1]!);
      });
      return { route: c.route, params };
    }
    return null;
  };
}

/** The declaration `method path` addresses, or null for a path no operation serves. */
export const matchRoute = routeMatcher(API_ROUTES);
