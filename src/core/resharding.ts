/**
 * The resharding state machine of docs/protocol.md#resharding, pure: `(state, input, now) → state`. The
 * coordinator does the I/O around it (provisioning, drain-evidence reads, the retire script)
 * and commits each returned state atomically across the stream's groups.
 *
 * One migration per stream, listed in every group's migrations. Counters: G = groupEpoch of
 * every group, M = metadataVersion of every group.
 *   — → PREPARING            scale accepted                                  —
 *   PREPARING → ACTIVE       shards 0..to-1 provisioned for every group       G+1, M+1
 *   ACTIVE → DEPRECATED      scale-out converged (or no live member)          M+1
 *   ACTIVE → DRAINING        scale-in, first housekeeping pass                —
 *   DRAINING → DEPRECATED    every removed shard RETIRED                      M+1
 *   ACTIVE/DRAINING → ROLLED_BACK                                             G+1, M+1
 * Per removed shard (DRAINING → DRAINED → RETIRING → RETIRED) see `resharding-advance.ts`.
 */
import { entriesEverAdded, type ShardReading } from './drain-evidence.js';
import { CoordinatorError } from './errors.js';
import type { Migration, ProtocolConfig, RemovedShard, StreamDoc } from './model.js';
import {
  activeMigrationOf,
  bumpEveryGroup,
  correctionOpen,
  range,
  removedBy,
  type StreamState,
  withMigration,
} from './stream-state.js';

export type { StreamState } from './stream-state.js';

/** The id of the synthetic, unstored answer to a scale that changes nothing (docs/protocol.md#scale-requests). */
const NOOP_RESHARDING_ID = 'noop';

/** Finished migrations kept in the stream document (the oldest are dropped first). */
const MAX_KEPT_MIGRATIONS = 100;

/** A scale request as the core sees it (validated shapes; the id is made by the caller). */
export interface ScaleRequest {
  targetShardCount: number;
  /** `reshard-<uuid>` for the migration this request would create. */
  reshardingId: string;
}

/** What a scale request led to. */
export interface ScaleDecision {
  state: StreamState;
  migration: Migration;
  /** `created`: a new PREPARING migration; `resumed`: the PREPARING one with the same target; `noop`: unchanged count. */
  outcome: 'created' | 'resumed' | 'noop';
}

/** The synthetic migration answered for a scale to the current count. */
function noopMigration(shardCount: number, now: number): Migration {
  return {
    reshardingId: NOOP_RESHARDING_ID,
    fromShardCount: shardCount,
    toShardCount: shardCount,
    state: 'DEPRECATED',
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * A scale request (docs/protocol.md#scale-requests steps 1–4 for the whole stream): 409 while a correction round
 * is open in any group, resume of the PREPARING migration with the same target, 409 for any
 * other active migration, `noop` for the current count, else a new PREPARING migration.
 */
export function requestScale(state: StreamState, req: ScaleRequest, now: number): ScaleDecision {
  const { stream, groups } = state;
  const target = req.targetShardCount;
  if (!Number.isSafeInteger(target) || target < 0) {
    throw new CoordinatorError('INVALID_REQUEST', 'targetShardCount: must be an integer >= 0');
  }
  if (correctionOpen(groups)) {
    throw new CoordinatorError(
      'METADATA_SYNC_IN_PROGRESS',
      `a metadata-correction round is open on stream "${stream.streamPrefix}"; retry once its members have synchronised`,
    );
  }
  const active = activeMigrationOf(stream);
  if (active) {
    if (active.state === 'PREPARING' && active.toShardCount === target) {
      return { state, migration: active, outcome: 'resumed' };
    }
    throw new CoordinatorError(
      'ACTIVE_MIGRATION_EXISTS',
      `stream "${stream.streamPrefix}" has migration ${active.reshardingId} in state ${active.state} (${active.fromShardCount} -> ${active.toShardCount})`,
    );
  }
  if (target === stream.shardCount) {
    return { state, migration: noopMigration(stream.shardCount, now), outcome: 'noop' };
  }
  // A shard whose key is being deleted cannot return to routing; the retirement ends quickly.
  const retiring = stream.removedShards.find((r) => r.state === 'RETIRING' && r.shard < target);
  if (retiring) {
    throw new CoordinatorError(
      'ACTIVE_MIGRATION_EXISTS',
      `shard ${retiring.shard} of stream "${stream.streamPrefix}" is being retired; retry in a moment`,
    );
  }
  const migration: Migration = {
    reshardingId: req.reshardingId,
    fromShardCount: stream.shardCount,
    toShardCount: target,
    state: 'PREPARING',
    createdAt: now,
    updatedAt: now,
  };
  const next: StreamDoc = {
    ...stream,
    migrations: [...stream.migrations, migration].slice(-MAX_KEPT_MIGRATIONS),
    activeReshardingId: migration.reshardingId,
    updatedAt: now,
  };
  return { state: { stream: next, groups }, migration, outcome: 'created' };
}

/** Shards a PREPARING migration provisions for every group before it activates: `0..to-1`. */
export function activationShards(m: Migration): number[] {
  return range(0, m.toShardCount);
}

/**
 * PREPARING → ACTIVE once every group is provisioned: `shardCount := to`; on scale-in the
 * removed shards `[to, from)` join the removed-but-consumable set as DRAINING. Removed shards
 * of earlier migrations below `to` return to routing; RETIRED history is dropped. G+1, M+1,
 * every group reconciled. Anything but the named PREPARING migration: unchanged.
 */
export function activateMigration(
  state: StreamState,
  reshardingId: string,
  now: number,
  config: ProtocolConfig,
): StreamState {
  const { stream, groups } = state;
  const m = activeMigrationOf(stream);
  if (!m || m.reshardingId !== reshardingId || m.state !== 'PREPARING') return state;
  const from = stream.shardCount;
  const to = m.toShardCount;
  const kept = stream.removedShards.filter((r) => r.shard >= to && r.state !== 'RETIRED');
  const added: RemovedShard[] = range(to, from).map((shard) => ({
    shard,
    state: 'DRAINING',
    reason: 'draining: members read what is left; waiting for drain evidence',
    updatedAt: now,
    reshardingId,
    evidence: null,
  }));
  const next = withMigration(
    {
      ...stream,
      shardCount: to,
      removedShards: [...kept, ...added].sort((a, b) => a.shard - b.shard),
      updatedAt: now,
    },
    reshardingId,
    { state: 'ACTIVE', fromShardCount: from, updatedAt: now },
  );
  return { stream: next, groups: bumpEveryGroup(next, groups, { group: true, metadata: true }, config, now) };
}

/** Added shards whose `entries-added` a rollback of `m` must read first (scale-out in ACTIVE). */
export function rollbackReadsNeeded(stream: StreamDoc, m: Migration): number[] {
  const active = stream.activeReshardingId === m.reshardingId;
  if (!active || m.state !== 'ACTIVE' || m.toShardCount <= m.fromShardCount) return [];
  return range(m.fromShardCount, m.toShardCount);
}

/**
 * Why migration `m` cannot be rolled back (docs/protocol.md#resharding), or null when it can: scale-out only in
 * ACTIVE while no record was ever written to an added shard; scale-in in ACTIVE or DRAINING
 * while none of its removed shards is RETIRING or RETIRED. `readings` covers the added shards
 * of a scale-out (`rollbackReadsNeeded`).
 */
export function rollbackBlocker(
  stream: StreamDoc,
  m: Migration,
  readings: ReadonlyMap<number, ShardReading>,
): string | null {
  const id = m.reshardingId;
  if (m.state === 'PREPARING') {
    return `migration ${id} is PREPARING (its shards are still being provisioned); repeat the scale request to finish it`;
  }
  if (m.state === 'DEPRECATED') return `migration ${id} has already completed (DEPRECATED)`;
  if (m.state === 'ROLLED_BACK' || m.state === 'ROLLING_BACK')
    return `migration ${id} is already rolled back`;
  if (stream.activeReshardingId !== id) return `migration ${id} is not the stream's active migration`;
  if (m.toShardCount > m.fromShardCount) {
    if (m.state !== 'ACTIVE')
      return `scale-out ${id} can only be rolled back while ACTIVE (it is ${m.state})`;
    for (const s of range(m.fromShardCount, m.toShardCount)) {
      const reading = readings.get(s);
      const added = reading === undefined ? null : entriesEverAdded(reading);
      if (added === null) {
        const why = reading?.kind === 'error' ? `: ${reading.message}` : '';
        return `cannot tell whether records were written to added shard ${s}${why}`;
      }
      if (added > 0) return `records were already written to added shard ${s} (entries-added ${added})`;
    }
    return null;
  }
  for (const r of removedBy(stream, m)) {
    if (r.state === 'RETIRING' || r.state === 'RETIRED') {
      return `removed shard ${r.shard} is already ${r.state}; its key is being or has been deleted`;
    }
  }
  return null;
}

/**
 * Rollback (docs/protocol.md#resharding): `shardCount := from`, ROLLED_BACK, no active migration, G+1, M+1.
 * Scale-out: the added shards become removed-but-consumable (DRAINING) and retire through the
 * normal drain path, never deleted while held. Scale-in: the removed shards return to routing.
 * Rolling back a rolled-back migration returns it unchanged.
 */
export function rollbackMigration(
  state: StreamState,
  reshardingId: string,
  readings: ReadonlyMap<number, ShardReading>,
  now: number,
  config: ProtocolConfig,
): { state: StreamState; migration: Migration } {
  const { stream, groups } = state;
  const m = stream.migrations.find((x) => x.reshardingId === reshardingId);
  if (!m) {
    throw new CoordinatorError(
      'MIGRATION_NOT_FOUND',
      `migration ${reshardingId} of stream "${stream.streamPrefix}" not found`,
    );
  }
  if (m.state === 'ROLLED_BACK' || m.state === 'ROLLING_BACK') return { state, migration: m };
  if (correctionOpen(groups)) {
    throw new CoordinatorError(
      'METADATA_SYNC_IN_PROGRESS',
      `a metadata-correction round is open on stream "${stream.streamPrefix}"; retry once its members have synchronised`,
    );
  }
  const blocker = rollbackBlocker(stream, m, readings);
  if (blocker !== null) throw new CoordinatorError('ROLLBACK_NOT_ALLOWED', blocker);

  const from = m.fromShardCount;
  const to = m.toShardCount;
  const removedShards =
    to > from
      ? [
          ...stream.removedShards.filter((r) => r.shard < from || r.shard >= to),
          ...range(from, to).map(
            (shard): RemovedShard => ({
              shard,
              state: 'DRAINING',
              reason: 'rolled back: retired once drained and released',
              updatedAt: now,
              reshardingId,
              evidence: null,
            }),
          ),
        ].sort((a, b) => a.shard - b.shard)
      : stream.removedShards.filter((r) => !removedBy(stream, m).includes(r));
  const migration: Migration = { ...m, state: 'ROLLED_BACK', updatedAt: now };
  const next = withMigration(
    { ...stream, shardCount: from, removedShards, activeReshardingId: null, updatedAt: now },
    reshardingId,
    migration,
  );
  return {
    state: {
      stream: next,
      groups: bumpEveryGroup(next, groups, { group: true, metadata: true }, config, now),
    },
    migration,
  };
}

/**
 * Provisioning for a group joining the stream (docs/protocol.md#resharding): every shard of the current and of an
 * active migration's target count is created (`create`, MKSTREAM); removed shards that are not
 * retired only get the group when their key still exists (`existing`), so a key deleted by a
 * concurrent retirement is never brought back.
 */
export function newGroupProvisioning(stream: StreamDoc): { create: number[]; existing: number[] } {
  const active = activeMigrationOf(stream);
  const upTo = Math.max(stream.shardCount, active ? active.toShardCount : 0);
  const create = range(0, upTo);
  const existing = stream.removedShards
    .filter((r) => r.state !== 'RETIRED' && r.shard >= upTo)
    .map((r) => r.shard)
    .sort((a, b) => a - b);
  return { create, existing };
}
