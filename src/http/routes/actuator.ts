/**
 * Public health and build info (docs/protocol.md#actuator), Spring Boot style: liveness says the process
 * serves; readiness (and `/actuator/health`) says this instance should get traffic: Redis
 * answers with our credentials, its eviction policy cannot drop our keys (docs/running-redis.md#eviction-policy),
 * and the instance is not terminating. Compose init containers
 * poll `/actuator/info`.
 */
import { type Context, Hono } from 'hono';
import type { RedisCheck } from '../../coordinator-api.js';
import { serve } from '../api-route.js';
import type { AppEnv, ResolvedDeps } from '../context.js';
import { SERVICE_ROUTES } from './service-api.js';

/** Application name reported by `/actuator/info`. */
const APP_NAME = 'redis-stream-coordinator-edge';

/** Status of a health component or of the whole. */
type HealthStatus = 'UP' | 'DOWN';

/** One component of `/actuator/health`. */
interface HealthComponent {
  status: HealthStatus;
  details?: Record<string, string>;
}

/** The body of `/actuator/health` and `/actuator/health/readiness`. */
export interface ActuatorHealth {
  status: HealthStatus;
  components: { redis: HealthComponent; lifecycle: HealthComponent };
}

/** Routes of the actuator (mounted at the root, outside `/coord/v1`, no authentication). */
export function actuatorRoutes(deps: ResolvedDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const ready = async (c: Context<AppEnv>) => {
    const body = await readiness(deps);
    return c.json(body, body.status === 'UP' ? 200 : 503);
  };
  const r = SERVICE_ROUTES;
  serve(app, r.actuatorHealth, ready);
  serve(app, r.actuatorReadiness, ready);
  serve(app, r.actuatorLiveness, (c) => c.json({ status: 'UP' }));
  serve(app, r.actuatorInfo, (c) => c.json({ app: { name: APP_NAME, version: deps.version } }));
  return app;
}

/** Readiness: Redis answers our PING, evicts none of our keys, and the instance is not terminating. */
async function readiness(deps: ResolvedDeps): Promise<ActuatorHealth> {
  const redis = redisComponent(await redisCheck(deps));
  const lifecycle: HealthComponent = deps.terminating()
    ? { status: 'DOWN', details: { state: 'terminating' } }
    : { status: 'UP' };
  const status = redis.status === 'UP' && lifecycle.status === 'UP' ? 'UP' : 'DOWN';
  return { status, components: { redis, lifecycle } };
}

async function redisCheck(deps: ResolvedDeps): Promise<RedisCheck> {
  const { coordinator, log } = deps;
  try {
    if (coordinator.redisReadiness) return await coordinator.redisReadiness();
    return { status: await coordinator.redisHealth() };
  } catch (err) {
    // A health probe reports trouble; it does not become it.
    log('warn', 'redis health probe failed', { error: err instanceof Error ? err.message : String(err) });
    return { status: 'DOWN', error: 'probe failed' };
  }
}

function redisComponent(check: RedisCheck): HealthComponent {
  if (check.status === 'UP') return { status: 'UP' };
  return {
    status: 'DOWN',
    details: { error: check.error ?? (check.status === 'UNKNOWN' ? 'not probed yet' : 'unreachable') },
  };
}
