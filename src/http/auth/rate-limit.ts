/**
 * Optional admin-mutation rate limit (PROTOCOL §1.2): a fixed one-minute window per
 * `principal:streamPrefix:consumerGroup` (`*` for stream-level routes), in memory per instance.
 * Exceeded → 429 `RATE_LIMIT_EXCEEDED` with `Retry-After`.
 */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../context.js';
import { errorResponse } from '../errors.js';
import { isHeartbeat, isMutating } from './required-role.js';

const WINDOW_MS = 60_000;

/** Who the window counts for when no one is authenticated (open mode). */
export const ANONYMOUS_KEY = 'anonymous';

/**
 * The window key of a rate-limited request, or null: POST `/streams/{p}`, mutations of
 * `/streams/{p}/scale` and of `/streams/{p}/groups/{g}[/…]` except heartbeats.
 */
export function rateLimitKey(method: string, path: string, principal: string): string | null {
  if (!isMutating(method) || isHeartbeat(method, path)) return null;
  const seg = path.split('/');
  // ['', 'coord', 'v1', 'streams', p, ...rest]
  if (seg.length < 5 || seg[1] !== 'coord' || seg[2] !== 'v1' || seg[3] !== 'streams' || !seg[4]) return null;
  const prefix = seg[4];
  const rest = seg.slice(5);
  if (rest.length === 0) return method.toUpperCase() === 'POST' ? `${principal}:${prefix}:*` : null;
  if (rest.length === 1 && rest[0] === 'scale') return `${principal}:${prefix}:*`;
  if (rest[0] === 'groups' && rest[1]) return `${principal}:${prefix}:${rest[1]}`;
  return null;
}

/** Counts hits per key in fixed windows aligned on whole minutes of the request clock. */
export class FixedWindowLimiter {
  private window = -1;
  private readonly counts = new Map<string, number>();

  constructor(private readonly limitPerMinute: number) {}

  /** Records a hit; returns null when allowed, else the seconds until the window ends. */
  hit(key: string, nowMs: number): number | null {
    const window = Math.floor(nowMs / WINDOW_MS);
    if (window !== this.window) {
      // A new window forgets the old one entirely, which also bounds memory.
      this.window = window;
      this.counts.clear();
    }
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    if (count <= this.limitPerMinute) return null;
    return Math.max(1, Math.ceil(((window + 1) * WINDOW_MS - nowMs) / 1000));
  }
}

/** The 429 answer. */
export function rateLimited(retryAfterSeconds: number): Response {
  return errorResponse(429, 'RATE_LIMIT_EXCEEDED', 'Coordinator API rate limit exceeded', {
    'retry-after': String(retryAfterSeconds),
  });
}

/** Middleware applying `limitPerMinute` (0 = off) after authentication. */
export function rateLimitMiddleware(limitPerMinute: number): MiddlewareHandler<AppEnv> {
  const limiter = new FixedWindowLimiter(limitPerMinute);
  return async (c, next) => {
    if (limitPerMinute <= 0) return next();
    const who = c.get('principal')?.username ?? ANONYMOUS_KEY;
    const key = rateLimitKey(c.req.method, c.req.path, who);
    const retryAfter = key === null ? null : limiter.hit(key, c.get('now'));
    if (retryAfter !== null) return rateLimited(retryAfter);
    await next();
  };
}
