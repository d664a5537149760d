/**
 * Housekeeping of resharding (docs/protocol.md#resharding), pure: drains and retires removed shards from the
 * Redis evidence the coordinator gathered, and moves the active migration forward.
 *
 * Per removed shard (one pass may take several steps):
 *   DRAINING → DRAINED     positive drain evidence; leaves every target                G+1
 *   DRAINED → RETIRING     no member of any group holds it any more                    —
 *   RETIRING → RETIRED     the retire script re-checked the evidence and deleted the key —
 *   RETIRING → DRAINING    the re-check failed (a late XADD): consumable again          G+1
 * Removed shards below the target of a PREPARING migration are frozen: they return to
 * routing when it activates, so none of them may start retiring.
 */

import { own } from './dict.js';
import { drainVerdict, evidenceRecord, type RetireOutcome, type ShardReading } from './drain-evidence.js';
import type { GroupDoc, Migration, ProtocolConfig, RemovedShard, StreamDoc } from './model.js';
import {
  activeMigrationOf,
  bumpEveryGroup,
  holdersByShard,
  isLiveAt,
  range,
  removedBy,
  type StreamState,
  withMigration,
} from './stream-state.js';

/** Redis results the coordinator gathered for one pass (taken at the pass's `now`). */
export interface ReshardIo {
  /** Drain-evidence reads of DRAINING shards (`ioNeeded().readings`). */
  readings?: ReadonlyMap<number, ShardReading>;
  /** Retire-script results of RETIRING shards (`ioNeeded().retirements`). */
  retirements?: ReadonlyMap<number, RetireOutcome>;
}

/** The Redis work a pass needs before it can decide. */
export interface IoNeeds {
  /** DRAINING shards whose cached evidence is older than one heartbeat interval. */
  readings: number[];
  /** RETIRING shards: run the retire script on each. */
  retirements: number[];
}

/** Shards below this index are frozen (a PREPARING migration will route them again). */
function frozenBelow(stream: StreamDoc): number {
  const m = activeMigrationOf(stream);
  return m?.state === 'PREPARING' ? m.toShardCount : 0;
}

/** Removed shards the state machine works on now: not retired, outside routing, not frozen. */
function workable(stream: StreamDoc): RemovedShard[] {
  const frozen = frozenBelow(stream);
  return stream.removedShards.filter(
    (r) => r.state !== 'RETIRED' && r.shard >= stream.shardCount && r.shard >= frozen,
  );
}

/** What to read or run before the next pass (evidence at most once per `intervalMs` per shard). */
export function ioNeeded(stream: StreamDoc, now: number, intervalMs: number): IoNeeds {
  const readings: number[] = [];
  const retirements: number[] = [];
  for (const r of workable(stream)) {
    if (r.state === 'DRAINING') {
      const at = r.evidence?.checkedAt;
      // A missing or unreadable time means "never read" (a read is due).
      if (typeof at !== 'number' || !(now - at < intervalMs)) readings.push(r.shard);
    } else if (r.state === 'RETIRING') {
      retirements.push(r.shard);
    }
  }
  return { readings, retirements };
}

/** The PREPARING migration the sweep (or a repeated request) must provision and activate. */
export function preparingMigration(stream: StreamDoc): Migration | null {
  const m = activeMigrationOf(stream);
  return m?.state === 'PREPARING' ? m : null;
}

/**
 * One resharding pass over evidence `io`: per-shard transitions, then the active migration's
 * (scale-in ACTIVE → DRAINING → DEPRECATED, scale-out ACTIVE → DEPRECATED). Returns `state`
 * itself when nothing changed.
 */
export function advanceResharding(
  state: StreamState,
  io: ReshardIo,
  now: number,
  config: ProtocolConfig,
): StreamState {
  const shards = advanceShards(state, io, now);
  let stream = shards.stream;
  let groups = state.groups;
  if (shards.regroup) {
    groups = bumpEveryGroup(stream, groups, { group: true, metadata: false }, config, now);
  }
  const m = advanceMigration(stream, groups, now);
  if (m.stream !== stream) {
    stream = m.stream;
    if (m.bumpMetadata)
      groups = bumpEveryGroup(stream, groups, { group: false, metadata: true }, config, now);
  }
  if (stream === state.stream && groups === state.groups) return state;
  return { stream: { ...stream, updatedAt: now }, groups };
}

/** Per-shard transitions; `regroup` when the assignable set changed (G+1 for every group). */
function advanceShards(
  state: StreamState,
  io: ReshardIo,
  now: number,
): { stream: StreamDoc; regroup: boolean } {
  const { stream } = state;
  const work = new Set(workable(stream).map((r) => r.shard));
  if (work.size === 0) return { stream, regroup: false };
  const holders = holdersByShard(state.groups, now);
  let changed = false;
  let regroup = false;
  const removedShards = stream.removedShards.map((r): RemovedShard => {
    if (!work.has(r.shard)) return r;
    const next = step(r, stream.groups, io, holders.get(r.shard) ?? [], now);
    if (next === r) return r;
    changed = true;
    // Entering or leaving the assignable set (DRAINING) changes every group's targets.
    if ((r.state === 'DRAINING') !== (next.state === 'DRAINING')) regroup = true;
    return next;
  });
  return changed ? { stream: { ...stream, removedShards }, regroup } : { stream, regroup: false };
}

/** The transitions of one removed shard in one pass (possibly DRAINING → DRAINED → RETIRING). */
function step(
  r: RemovedShard,
  managed: readonly string[],
  io: ReshardIo,
  holders: Array<{ consumerGroup: string; memberId: string }>,
  now: number,
): RemovedShard {
  let state = r.state;
  let reason = r.reason;
  let evidence = r.evidence ?? null;
  let read = false;

  if (state === 'DRAINING') {
    const reading = io.readings?.get(r.shard);
    if (reading) {
      const v = drainVerdict(reading, managed);
      evidence = evidenceRecord(reading, v, now);
      read = true;
      if (v.drained) state = 'DRAINED';
      reason = v.drained ? `drained: ${v.reason}` : v.reason;
    }
  } else if (state === 'RETIRING') {
    const out = io.retirements?.get(r.shard);
    if (out?.kind === 'deleted' || out?.kind === 'absent') {
      state = 'RETIRED';
      reason = null;
      evidence = {
        checkedAt: now,
        drained: true,
        keyExists: false,
        length: null,
        consumerGroups: null,
        error: null,
      };
      read = true;
    } else if (out?.kind === 'refused') {
      const v = drainVerdict(out.reading, managed);
      state = 'DRAINING';
      reason = `the re-check before deletion failed (late writes); draining again: ${v.reason}`;
      evidence = evidenceRecord(out.reading, v, now);
      read = true;
    } else if (out?.kind === 'error') {
      reason = `retirement attempt failed (${out.message}); retried later`;
    }
  }

  if (state === 'DRAINED') {
    if (holders.length === 0) {
      state = 'RETIRING';
      reason = 'no holder left: re-checking the evidence and deleting the key';
    } else {
      reason = `drained; waiting for ${holders.map((h) => `${h.consumerGroup}/${h.memberId}`).join(', ')} to release it`;
    }
  }

  const moved = state !== r.state || reason !== r.reason;
  if (!moved && !read) return r;
  return { ...r, state, reason, evidence, updatedAt: moved ? now : r.updatedAt };
}

/** The active migration's own transitions. */
function advanceMigration(
  stream: StreamDoc,
  groups: Record<string, GroupDoc>,
  now: number,
): { stream: StreamDoc; bumpMetadata: boolean } {
  let m = activeMigrationOf(stream);
  let next = stream;
  if (m?.state === 'ACTIVE') {
    if (m.toShardCount < m.fromShardCount) {
      next = withMigration(next, m.reshardingId, { state: 'DRAINING', updatedAt: now });
      m = activeMigrationOf(next);
    } else if (scaleOutConverged(groups, m, now)) {
      const done = withMigration(next, m.reshardingId, { state: 'DEPRECATED', updatedAt: now });
      return { stream: { ...done, activeReshardingId: null }, bumpMetadata: true };
    }
  }
  if (m?.state === 'DRAINING' && removedBy(next, m).every((r) => r.state === 'RETIRED')) {
    const done = withMigration(next, m.reshardingId, { state: 'DEPRECATED', updatedAt: now });
    return { stream: { ...done, activeReshardingId: null }, bumpMetadata: true };
  }
  return { stream: next, bumpMetadata: false };
}

/**
 * Scale-out completion (docs/protocol.md#resharding, docs/protocol.md#deviation-scale-out-and-rollback): in every group that has a live member,
 * each added shard is current with its target owner; a group without live members does not wait.
 */
function scaleOutConverged(groups: Record<string, GroupDoc>, m: Migration, now: number): boolean {
  for (const g of Object.values(groups)) {
    const live = Object.values(g.members).filter((x) => isLiveAt(x, now));
    if (live.length === 0) continue;
    for (const s of range(m.fromShardCount, m.toShardCount)) {
      const owner = live.find((x) => (own(g.targetAssignments, x.memberId) ?? []).includes(s));
      if (!owner?.currentAssignment.includes(s)) return false;
    }
  }
  return true;
}
