/**
 * Public liveness and build info (PROTOCOL §2.11); compose init containers poll `/actuator/info`.
 */
import { Hono } from 'hono';
import type { AppEnv, ResolvedDeps } from '../context.js';

/** Application name reported by `/actuator/info`. */
export const APP_NAME = 'redis-stream-coordinator-edge';

/** `GET /actuator/health` and `GET /actuator/info` (mounted at the root, outside `/coord/v1`). */
export function actuatorRoutes(deps: ResolvedDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/actuator/health', (c) => c.json({ status: 'UP' }));
  app.get('/actuator/info', (c) => c.json({ app: { name: APP_NAME, version: deps.version } }));
  return app;
}
