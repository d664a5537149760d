/**
 * Terminating mode (SPEC §6): while the process drains, new mutations are refused with 503
 * `COORDINATOR_TERMINATING`; reads keep being served.
 */
import type { MiddlewareHandler } from 'hono';
import { CoordinatorError } from '../core/errors.js';
import type { AppEnv } from './context.js';

/** Middleware for mutating routes: 503 while `terminating()` is true. */
export function refuseWhenTerminating(terminating: () => boolean): MiddlewareHandler<AppEnv> {
  return async (_c, next) => {
    if (terminating()) {
      throw new CoordinatorError(
        'COORDINATOR_TERMINATING',
        'coordinator is shutting down; retry on another instance',
      );
    }
    await next();
  };
}
