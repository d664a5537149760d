/**
 * Terminating mode (docs/protocol.md#concurrency): while the process drains, new mutations are refused with 503
 * `COORDINATOR_TERMINATING`; reads keep being served.
 */
import type { MiddlewareHandler } from 'hono';
import { CoordinatorError } from '../core/errors.js';
import type { AppEnv } from './context.js';
import { matchRoute } from './route-table.js';

/** Middleware: 503 while `terminating()` is true, for operations declaring `COORDINATOR_TERMINATING`. */
export function terminatingGuard(terminating: () => boolean): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (
      terminating() &&
      matchRoute(c.req.method, c.req.path)?.route.errors.includes('COORDINATOR_TERMINATING')
    ) {
      throw new CoordinatorError(
        'COORDINATOR_TERMINATING',
        'coordinator is shutting down; retry on another instance',
      );
    }
    await next();
  };
}
