/**
 * Operator monitoring (docs/protocol.md#monitoring-views): health, compatibility and pure-read group views.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import type { RedisHealth } from '../../coordinator-api.js';
import { apiRoute, apiRouter, groupParams, READ_ERRORS } from '../api-route.js';
import type { AppEnv, ResolvedDeps } from '../context.js';
import { encodeGroupCursor } from '../group-cursor.js';
import { listGroupPage } from '../group-list.js';
import { groupCursorParam, groupLimitParam, queryValue } from '../query-params.js';
import {
  assignmentsView,
  compatibilityView,
  consumptionView,
  groupView,
  healthView,
  membersView,
} from '../views.js';

const BASE = '/coord/v1/monitoring';
const GROUP = `${BASE}/streams/{streamPrefix}/groups/{consumerGroup}`;
const GROUP_ERRORS = [...READ_ERRORS, 'GROUP_NOT_FOUND'] as const;
const params = z.object(groupParams);

/** The declared monitoring operations. */
export const MONITORING_ROUTES = {
  health: apiRoute({
    method: 'get',
    path: `${BASE}/health`,
    operationId: 'getHealth',
    tag: 'Monitoring',
    summary: 'Coordinator and Redis health',
    access: 'READ',
    success: { status: 200, description: 'Health', body: { component: 'HealthResponse' } },
    errors: [],
  }),
  compatibility: apiRoute({
    method: 'get',
    path: `${BASE}/compatibility`,
    operationId: 'getCompatibility',
    tag: 'Monitoring',
    summary: 'Supported coordination protocol versions and timing defaults',
    access: 'READ',
    success: { status: 200, description: 'Compatibility', body: { component: 'CompatibilityResponse' } },
    errors: [],
  }),
  groups: apiRoute({
    method: 'get',
    path: `${BASE}/groups`,
    operationId: 'listGroups',
    tag: 'Monitoring',
    summary: 'Consumer groups of every stream, a page at a time',
    description:
      'Groups in (stream, group) order, at most `limit` per answer (1,000 without it), with `nextCursor` for the next page; only the streams the page needs are read. See docs/protocol.md#listing-groups-in-pages.',
    access: 'READ',
    query: [groupLimitParam, groupCursorParam],
    success: { status: 200, description: 'Groups', body: { component: 'GroupsResponse' } },
    errors: READ_ERRORS,
  }),
  group: apiRoute({
    method: 'get',
    path: GROUP,
    operationId: 'getMonitoredGroup',
    tag: 'Monitoring',
    summary: 'A consumer group (same as GET /streams/{p}/groups/{g})',
    access: 'READ',
    params,
    success: { status: 200, description: 'The group', body: { component: 'GroupResponse' } },
    errors: GROUP_ERRORS,
  }),
  members: apiRoute({
    method: 'get',
    path: `${GROUP}/members`,
    operationId: 'listMembers',
    tag: 'Monitoring',
    summary: 'Members of a group in every state, sorted by id',
    access: 'READ',
    params,
    success: { status: 200, description: 'Members', body: { component: 'MembersResponse' } },
    errors: GROUP_ERRORS,
  }),
  assignments: apiRoute({
    method: 'get',
    path: `${GROUP}/assignments`,
    operationId: 'getAssignments',
    tag: 'Monitoring',
    summary: 'Target, current and revoking shards per member, with invariant checks',
    access: 'READ',
    params,
    success: { status: 200, description: 'Assignments', body: { component: 'AssignmentsResponse' } },
    errors: GROUP_ERRORS,
  }),
  consumption: apiRoute({
    method: 'get',
    path: `${GROUP}/consumption`,
    operationId: 'getConsumption',
    tag: 'Monitoring',
    summary: 'Per-shard progress last reported by each member',
    access: 'READ',
    params,
    success: { status: 200, description: 'Progress', body: { component: 'ConsumptionProgressResponse' } },
    errors: GROUP_ERRORS,
  }),
};

/** Routes under `/coord/v1/monitoring`. */
export function monitoringRoutes(deps: ResolvedDeps): OpenAPIHono<AppEnv> {
  const { coordinator, config, log } = deps;
  const r = MONITORING_ROUTES;
  const app = apiRouter();

  app.openapi(r.health.route, async (c) => {
    let redis: RedisHealth;
    try {
      redis = await coordinator.redisHealth();
    } catch (err) {
      // A health probe reports trouble; it does not become it.
      log('warn', 'redis health probe failed', { error: err instanceof Error ? err.message : String(err) });
      redis = 'DOWN';
    }
    return c.json(healthView(config.coordinatorId, redis), 200);
  });

  app.openapi(r.compatibility.route, (c) => c.json(compatibilityView(config), 200));

  app.openapi(r.groups.route, async (c) => {
    const limit = queryValue(c, groupLimitParam);
    const after = queryValue(c, groupCursorParam);
    const page = await listGroupPage(coordinator, { limit, after });
    return c.json(
      {
        groups: page.groups.map(groupView),
        nextCursor: page.next && encodeGroupCursor(page.next),
        limit,
        totalStreams: page.totalStreams,
        totalGroups: page.totalGroups,
      },
      200,
    );
  });

  const load = (p: { streamPrefix: string; consumerGroup: string }) =>
    coordinator.getGroup(p.streamPrefix, p.consumerGroup);
  app.openapi(r.group.route, async (c) => c.json(groupView(await load(c.req.valid('param'))), 200));
  app.openapi(r.members.route, async (c) =>
    c.json(membersView((await load(c.req.valid('param'))).group), 200),
  );
  app.openapi(r.assignments.route, async (c) =>
    c.json(assignmentsView(await load(c.req.valid('param'))), 200),
  );
  app.openapi(r.consumption.route, async (c) =>
    c.json(consumptionView((await load(c.req.valid('param'))).group), 200),
  );

  return app;
}
