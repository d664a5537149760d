/**
 * Operator monitoring (PROTOCOL §2.9): health, compatibility and pure-read group views.
 */
import { type Context, Hono } from 'hono';
import type { RedisHealth } from '../../coordinator-api.js';
import type { AppEnv, ResolvedDeps } from '../context.js';
import { pathParams } from '../input.js';
import {
  assignmentsView,
  compatibilityView,
  consumptionView,
  groupView,
  healthView,
  membersView,
} from '../views.js';

const GROUP_PATH = '/monitoring/streams/:streamPrefix/groups/:consumerGroup';

/** Routes under `/coord/v1/monitoring`. */
export function monitoringRoutes(deps: ResolvedDeps): Hono<AppEnv> {
  const { coordinator, config, log } = deps;
  const app = new Hono<AppEnv>();

  app.get('/monitoring/health', async (c) => {
    let redis: RedisHealth;
    try {
      redis = await coordinator.redisHealth();
    } catch (err) {
      // A health probe reports trouble; it does not become it.
      log('warn', 'redis health probe failed', { error: err instanceof Error ? err.message : String(err) });
      redis = 'DOWN';
    }
    return c.json(healthView(config.coordinatorId, redis));
  });

  app.get('/monitoring/compatibility', (c) => c.json(compatibilityView(config)));

  app.get('/monitoring/groups', async (c) => {
    const snapshots = await coordinator.listGroups();
    return c.json({ groups: snapshots.map(groupView) });
  });

  const loadGroup = (c: Context<AppEnv>) => {
    const { streamPrefix, consumerGroup } = pathParams(c, ['streamPrefix', 'consumerGroup']);
    return coordinator.getGroup(streamPrefix, consumerGroup);
  };

  app.get(GROUP_PATH, async (c) => c.json(groupView(await loadGroup(c))));
  app.get(`${GROUP_PATH}/members`, async (c) => c.json(membersView((await loadGroup(c)).group)));
  app.get(`${GROUP_PATH}/assignments`, async (c) => c.json(assignmentsView(await loadGroup(c))));
  app.get(`${GROUP_PATH}/consumption`, async (c) => c.json(consumptionView((await loadGroup(c)).group)));

  return app;
}
