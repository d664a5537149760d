/**
 * Migrations of a stream seen from one of its groups (docs/protocol.md#rollback, docs/protocol.md#monitoring-views): get, rollback, and
 * the monitoring list with the removed shards' drain state.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { ADMIN_ERRORS, apiRoute, apiRouter, groupParams, READ_ERRORS, validBody } from '../api-route.js';
import { type AppEnv, principalName, type ResolvedDeps } from '../context.js';
import { reshardingIdSchema } from '../schemas.js';
import { migrationsView, migrationView } from '../views.js';

const MIGRATION = '/coord/v1/streams/{streamPrefix}/groups/{consumerGroup}/migrations/{reshardingId}';
const params = z.object({ ...groupParams, reshardingId: reshardingIdSchema });

/** The declared migration operations. */
export const MIGRATION_ROUTES = {
  getMigration: apiRoute({
    method: 'get',
    path: MIGRATION,
    operationId: 'getMigration',
    tag: 'Resharding',
    summary: 'Read a migration',
    access: 'READ',
    params,
    success: { status: 200, description: 'The migration', body: { component: 'Migration' } },
    errors: [...READ_ERRORS, 'GROUP_NOT_FOUND', 'MIGRATION_NOT_FOUND'],
  }),
  rollback: apiRoute({
    method: 'post',
    path: `${MIGRATION}/rollback`,
    operationId: 'rollbackMigration',
    tag: 'Resharding',
    summary: 'Roll back the active migration',
    access: 'WRITE',
    rateLimit: 'group',
    params,
    body: { component: 'RollbackMigrationRequest', required: true },
    success: { status: 202, description: 'Rollback started', body: { component: 'Migration' } },
    errors: [
      ...ADMIN_ERRORS,
      'GROUP_NOT_FOUND',
      'MIGRATION_NOT_FOUND',
      'ROLLBACK_NOT_ALLOWED',
      'METADATA_SYNC_IN_PROGRESS',
    ],
  }),
  listMigrations: apiRoute({
    method: 'get',
    path: '/coord/v1/monitoring/streams/{streamPrefix}/groups/{consumerGroup}/migrations',
    operationId: 'listMigrations',
    tag: 'Resharding',
    summary: 'Migrations of the group’s stream, oldest first',
    access: 'READ',
    params: z.object(groupParams),
    success: { status: 200, description: 'Migrations', body: { component: 'MigrationsResponse' } },
    errors: [...READ_ERRORS, 'GROUP_NOT_FOUND'],
  }),
};

/** `GET …/migrations/{id}`, `POST …/migrations/{id}/rollback` (202) and `GET /monitoring/…/migrations`. */
export function migrationRoutes(deps: ResolvedDeps): OpenAPIHono<AppEnv> {
  const { coordinator, config } = deps;
  const r = MIGRATION_ROUTES;
  const app = apiRouter();

  app.openapi(r.getMigration.route, async (c) => {
    const p = c.req.valid('param');
    const migration = await coordinator.getMigration(p.streamPrefix, p.consumerGroup, p.reshardingId);
    return c.json(migrationView(migration), 200);
  });

  app.openapi(r.rollback.route, async (c) => {
    const p = c.req.valid('param');
    const body = await validBody(c, r.rollback, config.maxBodyBytes);
    const migration = await coordinator.rollbackMigration(p.streamPrefix, p.consumerGroup, p.reshardingId, {
      requestedBy: body.requestedBy,
      principal: principalName(c),
      reason: body.reason,
    });
    return c.json(migrationView(migration), 202);
  });

  app.openapi(r.listMigrations.route, async (c) => {
    const p = c.req.valid('param');
    return c.json(migrationsView(await coordinator.migrationsOverview(p.streamPrefix, p.consumerGroup)), 200);
  });

  return app;
}
