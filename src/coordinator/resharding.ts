/**
 * Resharding use-cases (docs/protocol.md#resharding): scale requests, provisioning and activation, rollback, the
 * migrations overview, and the resharding pass that drains and retires removed shards on Redis
 * evidence. Each stream-wide change is one checked commit of the stream document plus the
 * groups' counter bumps; the bumped groups' assignment rounds follow.
 */

import type { MigrationsOverview, RollbackInput, ScaleInput, StreamScaleResult } from '../coordinator-api.js';
import { own } from '../core/dict.js';
import { drainVerdict, type RetireOutcome, type ShardReading } from '../core/drain-evidence.js';
import { CoordinatorError } from '../core/errors.js';
import type { Migration, StreamDoc } from '../core/model.js';
import {
  activateMigration,
  activationShards,
  requestScale,
  rollbackBlocker,
  rollbackMigration,
  rollbackReadsNeeded,
} from '../core/resharding.js';
import {
  advanceResharding,
  ioNeeded,
  preparingMigration,
  type ReshardIo,
} from '../core/resharding-advance.js';
import { activeMigrationOf, holdersByShard, type StreamState } from '../core/stream-state.js';
import { type Decision, runCritical } from '../store/critical-section.js';
import { shardKey } from '../store/keys.js';
import { audit, checkNames, groupNotFound, inBatches, readGroup } from './admin.js';
import { type Ctx, criticalOptions, errorText } from './context.js';
import { loadIntact } from './integrity.js';
import { type MigrationChange, migrationChanges } from './lifecycle.js';
import { retireShardClean } from './shard-cleanup.js';
import { refuseExistingShardKeys, refuseForeignShardKeys, unownedNewShards } from './shard-keys.js';
import { assignGroups, bumpedGroups, streamChange } from './stream-plans.js';
import { maintainStream } from './sweep.js';

/** Resharding passes one call makes at most (a pass that starts retirements is followed by one that runs them). */
const MAX_PASSES = 3;
/** Shard provisioning calls in flight at once. */
const PROVISION_CONCURRENCY = 16;

/** Options of a resharding pass. */
export interface PassOptions {
  lockWaitMs: number;
  /** Passes at most (a heartbeat's lazy pass makes one). @default 3 */
  maxPasses?: number;
  /** Whether a PREPARING migration met by the pass is resumed (given its group count). */
  resumePreparing: ((m: Migration, groupCount: number) => boolean) | null;
}

/** Both scale routes: maintenance, decision (one atomic commit), provisioning, activation. */
export async function scale(
  ctx: Ctx,
  prefix: string,
  group: string | null,
  input: ScaleInput,
): Promise<StreamScaleResult> {
  checkNames(prefix, group ?? prefix);
  const target = input.targetShardCount;
  if (!Number.isSafeInteger(target) || target < 0 || target > ctx.config.maxShardCount) {
    throw new CoordinatorError(
      'INVALID_REQUEST',
      `targetShardCount: must be an integer between 0 and ${ctx.config.maxShardCount}`,
    );
  }
  const now = ctx.now();
  const missing = () => (group === null ? streamNotFound(prefix) : groupNotFound(prefix, group));
  // Expire members first (docs/protocol.md#scale-requests).
  await maintainStream(ctx, prefix, now);
  const decision = await runCritical(
    ctx.store,
    prefix,
    'all',
    criticalOptions(ctx, ctx.config.lockWaitMs),
    async (s) => {
      if (!s || s.stream.groups.length === 0 || (group !== null && !own(s.groups, group))) throw missing();
      const before: StreamState = { stream: s.stream, groups: s.groups };
      const d = requestScale(before, { targetShardCount: target, reshardingId: newReshardingId() }, now);
      // Under the mutex, before anything is written: a new shard never adopts an existing key.
      if (d.outcome === 'created') {
        await refuseExistingShardKeys(ctx, prefix, unownedNewShards(s.stream, s.stream.shardCount, target));
      }
      return { commit: d.state === before ? undefined : streamChange(ctx, before, d.state, now), result: d };
    },
  );
  audit(ctx, 'scale requested', prefix, group ?? prefix, input, {
    targetShardCount: target,
    reshardingId: decision.migration.reshardingId,
    outcome: decision.outcome,
  });
  const groups = [...decision.state.stream.groups].sort();
  if (decision.outcome === 'noop')
    return { stream: decision.state.stream, groups, migration: decision.migration };
  const activated = await provisionAndActivate(ctx, prefix, decision.migration.reshardingId, now);
  return {
    stream: activated.stream,
    groups: [...activated.stream.groups].sort(),
    migration: activated.migration,
  };
}

/** `GET …/migrations/{id}`. */
export async function getMigration(
  ctx: Ctx,
  prefix: string,
  group: string,
  reshardingId: string,
): Promise<Migration> {
  const { stream } = await readGroup(ctx, prefix, group);
  const m = stream.migrations.find((x) => x.reshardingId === reshardingId);
  if (!m) throw migrationNotFound(prefix, reshardingId);
  return m;
}

/** `POST …/migrations/{id}/rollback`. */
export async function rollback(
  ctx: Ctx,
  prefix: string,
  group: string,
  reshardingId: string,
  input: RollbackInput,
): Promise<Migration> {
  checkNames(prefix, group);
  const now = ctx.now();
  await maintainStream(ctx, prefix, now);
  let bumped: string[] = [];
  const migration = await runCritical(
    ctx.store,
    prefix,
    'all',
    criticalOptions(ctx, ctx.config.lockWaitMs),
    async (s): Promise<Decision<Migration>> => {
      if (!s || !own(s.groups, group)) throw groupNotFound(prefix, group);
      const before: StreamState = { stream: s.stream, groups: s.groups };
      const m = s.stream.migrations.find((x) => x.reshardingId === reshardingId);
      if (!m) throw migrationNotFound(prefix, reshardingId);
      // Read under the mutex: the check sees the added shards as they are at the decision.
      const readings = await readShards(ctx, prefix, rollbackReadsNeeded(s.stream, m));
      const out = rollbackMigration(before, reshardingId, readings, now, ctx.protocol);
      bumped = bumpedGroups(before, out.state);
      return out.state === before
        ? { result: out.migration }
        : { commit: streamChange(ctx, before, out.state, now), result: out.migration };
    },
  );
  await assignGroups(ctx, prefix, bumped, now);
  audit(ctx, 'migration rolled back', prefix, group, input, { reshardingId, state: migration.state });
  return migration;
}

/** `GET /monitoring/…/migrations` with live drain-evidence reads. */
export async function migrationsOverview(
  ctx: Ctx,
  prefix: string,
  group: string,
): Promise<MigrationsOverview> {
  checkNames(prefix, group);
  const s = await loadIntact(ctx, prefix, 'all');
  if (!s || !own(s.groups, group)) throw groupNotFound(prefix, group);
  const now = ctx.now();
  const { stream } = s;
  const active = activeMigrationOf(stream);
  const shown = stream.removedShards.filter(
    (r) => r.state !== 'RETIRED' || (active !== null && r.reshardingId === active.reshardingId),
  );
  const live = await readShards(
    ctx,
    prefix,
    shown.filter((r) => r.state !== 'RETIRED').map((r) => r.shard),
  );
  const holders = holdersByShard(s.groups, now);
  const removedShards = shown.map((record) => {
    const reading = live.get(record.shard);
    return {
      record,
      holders: holders.get(record.shard) ?? [],
      live: reading ? { reading, verdict: drainVerdict(reading, stream.groups) } : null,
    };
  });
  let rollbackAllowed: MigrationsOverview['rollback'] = { allowed: false, reason: 'no active migration' };
  if (active) {
    const readings = await readShards(ctx, prefix, rollbackReadsNeeded(stream, active));
    const blocker = rollbackBlocker(stream, active, readings);
    rollbackAllowed = { allowed: blocker === null, reason: blocker };
  }
  return { stream, removedShards, rollback: rollbackAllowed, readAt: now };
}

/**
 * PREPARING → ACTIVE: provisions shards `0..to-1` for every group, then activates in one
 * commit. A provisioning failure leaves the migration PREPARING (503); the same request or
 * the sweep resumes. A group added meanwhile is provisioned before activation.
 */
async function provisionAndActivate(
  ctx: Ctx,
  prefix: string,
  reshardingId: string,
  now: number,
): Promise<{ stream: StreamDoc; migration: Migration }> {
  const provisioned = new Set<string>();
  for (let attempt = 0; attempt < MAX_PASSES; attempt++) {
    const snap = await loadIntact(ctx, prefix, []);
    if (!snap) throw streamNotFound(prefix);
    const m = preparingMigration(snap.stream);
    if (!m || m.reshardingId !== reshardingId) return currentMigration(snap.stream, reshardingId, prefix);
    const groups = snap.stream.groups.filter((g) => !provisioned.has(g));
    if (attempt === 0) {
      const added = unownedNewShards(snap.stream, m.fromShardCount, m.toShardCount);
      await refuseForeignShardKeys(ctx, prefix, snap.stream, added);
    }
    if (ctx.config.provisioning) {
      const jobs = groups.flatMap((g) =>
        activationShards(m).map((i) => () => ctx.store.provision(shardKey(prefix, i), g)),
      );
      await inBatches(jobs, PROVISION_CONCURRENCY);
    }
    for (const g of groups) provisioned.add(g);
    let bumped: string[] = [];
    const out = await runCritical(
      ctx.store,
      prefix,
      'all',
      criticalOptions(ctx, ctx.config.lockWaitMs),
      (s) => {
        if (!s) throw streamNotFound(prefix);
        const current = preparingMigration(s.stream);
        if (!current || current.reshardingId !== reshardingId) {
          return { result: currentMigration(s.stream, reshardingId, prefix) };
        }
        if (!s.stream.groups.every((g) => provisioned.has(g))) return { result: null };
        const before: StreamState = { stream: s.stream, groups: s.groups };
        const after = activateMigration(before, reshardingId, now, ctx.protocol);
        bumped = bumpedGroups(before, after);
        return {
          commit: streamChange(ctx, before, after, now),
          result: currentMigration(after.stream, reshardingId, prefix),
        };
      },
    );
    await assignGroups(ctx, prefix, bumped, now);
    if (out) return out;
  }
  throw new CoordinatorError(
    'STATE_VERSION_CONFLICT',
    `groups of stream "${prefix}" kept changing while migration ${reshardingId} was provisioned; repeat the request`,
  );
}

/**
 * The resharding pass of a stream under its mutex: the migration advanced on freshly gathered
 * Redis evidence; a pass that starts retirements is followed by one that runs them. Returns how
 * many groups' counters moved.
 */
export async function advanceStream(
  ctx: Ctx,
  prefix: string,
  now: number,
  opts: PassOptions,
): Promise<number> {
  let changed = 0;
  for (let pass = 0; pass < (opts.maxPasses ?? MAX_PASSES); pass++) {
    const r = await runCritical(
      ctx.store,
      prefix,
      'all',
      criticalOptions(ctx, opts.lockWaitMs, 3),
      async (s) => {
        const none = {
          bumped: [] as string[],
          again: false,
          preparing: null as Migration | null,
          groups: 0,
          changes: [] as MigrationChange[],
        };
        if (!s) return { result: none };
        const before: StreamState = { stream: s.stream, groups: s.groups };
        const after = advanceResharding(
          before,
          await gatherIo(ctx, prefix, s.stream, now),
          now,
          ctx.protocol,
        );
        const preparing = preparingMigration(after.stream);
        const groups = after.stream.groups.length;
        if (after === before) return { result: { ...none, preparing, groups } };
        const again = ioNeeded(after.stream, now, ctx.protocol.heartbeatIntervalMs).retirements.length > 0;
        return {
          commit: { ...streamChange(ctx, before, after, now), passAt: now },
          result: {
            bumped: bumpedGroups(before, after),
            again,
            preparing,
            groups,
            changes: migrationChanges(prefix, before.stream.migrations, after.stream.migrations),
          },
        };
      },
    );
    changed += r.bumped.length;
    for (const e of r.changes) ctx.emit(e);
    await assignGroups(ctx, prefix, r.bumped, now);
    if (r.preparing && opts.resumePreparing?.(r.preparing, r.groups)) {
      await provisionAndActivate(ctx, prefix, r.preparing.reshardingId, now).catch((e: unknown) => {
        ctx.log('warn', 'resuming a PREPARING migration failed', {
          streamPrefix: prefix,
          reshardingId: r.preparing?.reshardingId,
          error: errorText(e),
        });
      });
    }
    if (!r.again) break;
  }
  return changed;
}

/** Drain-evidence reads and retire scripts the next pass needs (at most one read per interval per shard). */
async function gatherIo(ctx: Ctx, prefix: string, stream: StreamDoc, now: number): Promise<ReshardIo> {
  const needs = ioNeeded(stream, now, ctx.protocol.heartbeatIntervalMs);
  if (needs.readings.length === 0 && needs.retirements.length === 0) return {};
  // The retirement also clears the shard's fenced-ack tokens and idempotency incarnation.
  const retire = (shard: number): Promise<RetireOutcome> =>
    retireShardClean(ctx.store, shardKey(prefix, shard), stream.groups);
  const [readings, outcomes] = await Promise.all([
    readShards(ctx, prefix, needs.readings),
    Promise.all(needs.retirements.map(retire)),
  ]);
  return { readings, retirements: new Map(needs.retirements.map((s, i) => [s, outcomes[i]!])) };
}

/** Read-only drain evidence of `shards` (a store without the capability yields errors: never evidence). */
async function readShards(ctx: Ctx, prefix: string, shards: number[]): Promise<Map<number, ShardReading>> {
  const store = ctx.store;
  const read = (shard: number): Promise<ShardReading> =>
    store.readShard
      ? store.readShard(shardKey(prefix, shard))
      : Promise.resolve({ kind: 'error', message: 'this store cannot read drain evidence' });
  const readings = await Promise.all(shards.map(read));
  return new Map(shards.map((s, i) => [s, readings[i]!]));
}

function streamNotFound(prefix: string): CoordinatorError {
  return new CoordinatorError('STREAM_NOT_FOUND', `stream "${prefix}" not found`);
}

function migrationNotFound(prefix: string, reshardingId: string): CoordinatorError {
  return new CoordinatorError(
    'MIGRATION_NOT_FOUND',
    `migration ${reshardingId} of stream "${prefix}" not found`,
  );
}

/** The stream and its migration `reshardingId` as stored. */
function currentMigration(
  stream: StreamDoc,
  reshardingId: string,
  prefix: string,
): { stream: StreamDoc; migration: Migration } {
  const migration = stream.migrations.find((m) => m.reshardingId === reshardingId);
  if (!migration) throw migrationNotFound(prefix, reshardingId);
  return { stream, migration };
}

/** `reshard-<uuid>` (docs/protocol.md#scale-requests). */
function newReshardingId(): string {
  return `reshard-${globalThis.crypto.randomUUID()}`;
}
