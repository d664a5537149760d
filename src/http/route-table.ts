/**
 * Every declared operation, and the matcher that finds the one a request addresses. The role
 * check, the rate-limit key and the terminating guard read the matched declaration, so none of
 * them parses paths itself.
 */
import type { ApiRoute } from './api-route.js';
import { ADMIN_ROUTES } from './routes/admin.js';
import { DEAD_LETTER_ROUTES } from './routes/dead-letters.js';
import { GRAFANA_ROUTES } from './routes/grafana-api.js';
import { LAG_ROUTES } from './routes/lag.js';
import { MEMBER_ROUTES } from './routes/members.js';
import { MESSAGES_ROUTES } from './routes/messages.js';
import { MIGRATION_ROUTES } from './routes/migrations.js';
import { MONITORING_ROUTES } from './routes/monitoring.js';
import { OFFSETS_ROUTES } from './routes/offsets.js';
import { OFFSETS_RESET_ROUTES } from './routes/offsets-reset.js';
import { PENDING_ENTRIES_ROUTES } from './routes/pending-entries.js';
import { ROUTING_ROUTES } from './routes/routing.js';
import { SCALE_ROUTES } from './routes/scale.js';
import { SERVICE_ROUTES } from './routes/service-api.js';

/** Every declared operation the app can serve (deployments serve a subset: the Worker has no /metrics). */
export const API_ROUTES: readonly ApiRoute[] = [
  ADMIN_ROUTES,
  ROUTING_ROUTES,
  MEMBER_ROUTES,
  SCALE_ROUTES,
  MIGRATION_ROUTES,
  MONITORING_ROUTES,
  OFFSETS_ROUTES,
  OFFSETS_RESET_ROUTES,
  LAG_ROUTES,
  MESSAGES_ROUTES,
  PENDING_ENTRIES_ROUTES,
  DEAD_LETTER_ROUTES,
  GRAFANA_ROUTES,
  SERVICE_ROUTES,
].flatMap((group) => Object.values(group) as ApiRoute[]);

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

/** Distinct `method path` pairs remembered by a matcher. */
const MEMO_MAX = 1024;

/** A matcher over `routes` (HEAD matches GET, as Hono serves it). */
function routeMatcher(routes: readonly ApiRoute[]): (method: string, path: string) => RouteMatch | null {
  const compiled = routes.map(compile);
  // The role check, the rate limit and the terminating guard each ask for the same request: a
  // small memo (cleared when full) spares the linear regex scan the second and third time.
  const memo = new Map<string, RouteMatch | null>();
  return (method, path) => {
    const key = `${method} ${path}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    if (memo.size >= MEMO_MAX) memo.clear();
    const found = scan(method, path);
    memo.set(key, found);
    return found;
  };

  function scan(method: string, path: string): RouteMatch | null {
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
  }
}

/** The declaration `method path` addresses, or null for a path no operation serves. */
export const matchRoute = routeMatcher(API_ROUTES);
