/**
 * The documented response schemas describe exactly the TS types the views build: a field added
 * to a view without documenting it (or the reverse) fails type-checking here.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type { GroupState, HeartbeatStatus, MemberState, MigrationState } from '../core/model.js';
import type {
  GrafanaAssignmentRowJson,
  GrafanaGroupRowJson,
  GrafanaMemberRowJson,
  GrafanaMessageRowJson,
  GrafanaOptionJson,
  GrafanaShardRowJson,
} from './grafana-views.js';
import type { StreamMessagesPageJson, StreamShardOffsetsJson } from './monitoring-views.js';
import type * as M from './openapi-monitoring-responses.js';
import type * as S from './openapi-resharding-responses.js';
import type * as R from './openapi-responses.js';
import type {
  AssignmentsResponseJson,
  CompatibilityResponseJson,
  ConsumerShardProgressJson,
  ErrorResponseJson,
  GroupResponseJson,
  HealthResponseJson,
  HeartbeatBatchResponseJson,
  HeartbeatResponseJson,
  MemberJson,
  MigrationJson,
  MigrationsResponseJson,
  ProducerRoutingResponseJson,
  RemovedShardJson,
  StreamCreateResponseJson,
  StreamScaleResponseJson,
} from './schemas.js';

type Out<S extends z.ZodType> = z.output<S>;

describe('openapi > response schemas match the view types', () => {
  it('core responses', () => {
    expectTypeOf<Out<typeof R.errorResponseSchema>>().toEqualTypeOf<ErrorResponseJson>();
    expectTypeOf<Out<typeof R.migrationSchema>>().toEqualTypeOf<MigrationJson>();
    expectTypeOf<Out<typeof R.groupResponseSchema>>().toEqualTypeOf<GroupResponseJson>();
    expectTypeOf<Out<typeof R.streamCreateResponseSchema>>().toEqualTypeOf<StreamCreateResponseJson>();
    expectTypeOf<Out<typeof R.producerRoutingResponseSchema>>().toEqualTypeOf<ProducerRoutingResponseJson>();
    expectTypeOf<Out<typeof R.heartbeatResponseSchema>>().toEqualTypeOf<HeartbeatResponseJson>();
    expectTypeOf<Out<typeof R.heartbeatBatchResponseSchema>>().toEqualTypeOf<HeartbeatBatchResponseJson>();
    expectTypeOf<Out<typeof R.memberSchema>>().toEqualTypeOf<MemberJson>();
    expectTypeOf<Out<typeof R.assignmentsResponseSchema>>().toEqualTypeOf<AssignmentsResponseJson>();
    expectTypeOf<Out<typeof R.consumptionResponseSchema>>().toEqualTypeOf<{
      progress: ConsumerShardProgressJson[];
    }>();
    expectTypeOf<Out<typeof R.healthResponseSchema>>().toEqualTypeOf<HealthResponseJson>();
    expectTypeOf<Out<typeof R.compatibilityResponseSchema>>().toEqualTypeOf<CompatibilityResponseJson>();
    expect(true).toBe(true);
  });

  it('resharding responses', () => {
    expectTypeOf<Out<typeof R.removedShardSchema>>().toEqualTypeOf<RemovedShardJson>();
    expectTypeOf<Out<typeof S.streamScaleResponseSchema>>().toEqualTypeOf<StreamScaleResponseJson>();
    expectTypeOf<Out<typeof S.migrationsResponseSchema>>().toEqualTypeOf<MigrationsResponseJson>();
    expect(true).toBe(true);
  });

  it('enums list every state of the model', () => {
    expectTypeOf<Out<typeof R.groupStateSchema>>().toEqualTypeOf<GroupState>();
    expectTypeOf<Out<typeof R.memberStateSchema>>().toEqualTypeOf<MemberState>();
    expectTypeOf<Out<typeof R.migrationStateSchema>>().toEqualTypeOf<MigrationState>();
    expectTypeOf<Out<typeof R.heartbeatStatusSchema>>().toEqualTypeOf<HeartbeatStatus>();
    expect(true).toBe(true);
  });

  it('Redis-backed monitoring and Grafana rows', () => {
    expectTypeOf<Out<typeof M.offsetsResponseSchema>>().toEqualTypeOf<StreamShardOffsetsJson>();
    expectTypeOf<Out<typeof M.messagesPageSchema>>().toEqualTypeOf<StreamMessagesPageJson>();
    expectTypeOf<Out<typeof M.grafanaOptionSchema>>().toEqualTypeOf<GrafanaOptionJson>();
    expectTypeOf<Out<typeof M.grafanaGroupRowSchema>>().toEqualTypeOf<GrafanaGroupRowJson>();
    expectTypeOf<Out<typeof M.grafanaMemberRowSchema>>().toEqualTypeOf<GrafanaMemberRowJson>();
    expectTypeOf<Out<typeof M.grafanaShardRowSchema>>().toEqualTypeOf<GrafanaShardRowJson>();
    expectTypeOf<Out<typeof M.grafanaAssignmentRowSchema>>().toEqualTypeOf<GrafanaAssignmentRowJson>();
    expectTypeOf<Out<typeof M.grafanaMessageRowSchema>>().toEqualTypeOf<GrafanaMessageRowJson>();
    expect(true).toBe(true);
  });
});
