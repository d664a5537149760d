/**
 * Migrations of a stream seen from one of its groups (PROTOCOL §2.7, §2.9): get, rollback, and
 * the monitoring list with the removed shards' drain state.
 */
import { Hono } from 'hono';
import type { AppEnv, ResolvedDeps } from '../context.js';
import { parseJsonBody, pathParams } from '../input.js';
import { rollbackSchema } from '../schemas.js';
import { refuseWhenTerminating } from '../terminating.js';
import { migrationsView, migrationView } from '../views.js';

const MIGRATION_PATH = '/streams/:streamPrefix/groups/:consumerGroup/migrations/:reshardingId';

/** `GET …/migrations/{id}`, `POST …/migrations/{id}/rollback` (202) and `GET /monitoring/…/migrations`. */
export function migrationRoutes(deps: ResolvedDeps): Hono<AppEnv> {
  const { coordinator, config } = deps;
  const mutating = refuseWhenTerminating(deps.terminating);
  const app = new Hono<AppEnv>();

  app.get(MIGRATION_PATH, async (c) => {
    const p = pathParams(c, ['streamPrefix', 'consumerGroup', 'reshardingId']);
    return c.json(
      migrationView(await coordinator.getMigration(p.streamPrefix, p.consumerGroup, p.reshardingId)),
    );
  });

  app.post(`${MIGRATION_PATH}/rollback`, mutating, async (c) => {
    const p = pathParams(c, ['streamPrefix', 'consumerGroup', 'reshardingId']);
    const body = await parseJsonBody(c, rollbackSchema, config.maxBodyBytes);
    const migration = await coordinator.rollbackMigration(p.streamPrefix, p.consumerGroup, p.reshardingId, {
      requestedBy: body.requestedBy,
      reason: body.reason,
    });
    return c.json(migrationView(migration), 202);
  });

  app.get('/monitoring/streams/:streamPrefix/groups/:consumerGroup/migrations', async (c) => {
    const p = pathParams(c, ['streamPrefix', 'consumerGroup']);
    return c.json(migrationsView(await coordinator.migrationsOverview(p.streamPrefix, p.consumerGroup)));
  });

  return app;
}
