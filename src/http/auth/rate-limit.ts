/**
 * Optional admin-mutation rate limits (docs/protocol.md#roles): fixed one-minute windows, in memory per
 * instance, per principal + stream prefix + consumer group (`*` for stream-level routes), and
 * optionally per principal over every stream. Names are keyed as the routes read them
 * (percent-decoded), so `a:x` and `a%3Ax` share a window. Exceeded → 429
 * `RATE_LIMIT_EXCEEDED` with `Retry-After`.
 */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../context.js';
import { errorResponse } from '../errors.js';
import { matchRoute } from '../route-table.js';

const WINDOW_MS = 60_000;

/** Who the window counts for when no one is authenticated (open mode). */
const ANONYMOUS_KEY = 'anonymous';

/**
 * The window key of a rate-limited request, or null: operations declaring a `rateLimit`
 * scope count per stream (`*` group) or per group, keyed on their decoded parameters.
 */
export function rateLimitKey(method: string, path: string, principal: string): string | null {
  const hit = matchRoute(method, path);
  const scope = hit?.route.rateLimit;
  if (!hit || !scope) return null;
  // Names holding ':' can make two keys coincide; that only merges windows (stricter), never splits one.
  const group = scope === 'group' ? hit.params.consumerGroup : '*';
  return `${principal}:${hit.params.streamPrefix}:${group}`;
}

/** Counts hits per key in fixed windows aligned on whole minutes of the request clock. */
export class FixedWindowLimiter {
  private window = -1;
  private readonly counts = new Map<string, number>();

  constructor(private readonly limitPerMinute: number) {}

  /** Records a hit; returns null when allowed, else the seconds until the window ends. */
  hit(key: string, nowMs: number): number | null {
    const refused = this.peek(key, nowMs);
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    return refused;
  }

  /** What `hit` would answer, without recording anything. */
  peek(key: string, nowMs: number): number | null {
    const window = Math.floor(nowMs / WINDOW_MS);
    if (window !== this.window) {
      // A new window forgets the old one entirely, which also bounds memory.
      this.window = window;
      this.counts.clear();
    }
    if ((this.counts.get(key) ?? 0) < this.limitPerMinute) return null;
    return Math.max(1, Math.ceil(((window + 1) * WINDOW_MS - nowMs) / 1000));
  }
}

/** The 429 answer. */
function rateLimited(retryAfterSeconds: number): Response {
  return errorResponse(429, 'RATE_LIMIT_EXCEEDED', 'Coordinator API rate limit exceeded', {
    'retry-after': String(retryAfterSeconds),
  });
}

/** The limits of `rateLimitMiddleware`, each per minute; 0 = off. */
export interface RateLimits {
  /** Per principal, stream and group (COORDINATOR_RATE_LIMIT_ADMIN_MUTATIONS_PER_MINUTE). */
  perGroup: number;
  /** Per principal over every stream (COORDINATOR_RATE_LIMIT_PRINCIPAL_MUTATIONS_PER_MINUTE). */
  perPrincipal: number;
}

/** Middleware applying `limits` after authentication; a request refused by one limit counts in neither. */
export function rateLimitMiddleware(limits: RateLimits): MiddlewareHandler<AppEnv> {
  const perGroup = new FixedWindowLimiter(limits.perGroup);
  const perPrincipal = new FixedWindowLimiter(limits.perPrincipal);
  return async (c, next) => {
    if (limits.perGroup <= 0 && limits.perPrincipal <= 0) return next();
    const who = c.get('principal')?.username ?? ANONYMOUS_KEY;
    const key = rateLimitKey(c.req.method, c.req.path, who);
    if (key === null) return next();
    const now = c.get('now');
    const retryAfter =
      (limits.perPrincipal > 0 ? perPrincipal.peek(who, now) : null) ??
      (limits.perGroup > 0 ? perGroup.hit(key, now) : null) ??
      (limits.perPrincipal > 0 ? perPrincipal.hit(who, now) : null);
    if (retryAfter !== null) return rateLimited(retryAfter);
    await next();
  };
}
