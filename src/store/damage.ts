/**
 * A group that lost part of its Redis state (docs/running-redis.md#when-a-group-is-reported-corrupt).
 * Member records and the group header are the source of truth; holder statuses, ownership,
 * targets, leases and timers are indexes derived from them. The scripts compare each index's size
 * with the size the header recorded at the last commit, so a key that went missing (eviction, an
 * operator's DEL, a write lost in a failover) is noticed on the read that needs it rather than
 * read as empty. These errors fail closed (500 METADATA_CORRUPT, nothing decided, nothing
 * written); the coordinator rebuilds the indexes it can and retries (coordinator/integrity.ts).
 */
import { CoordinatorError, isCoordinatorError } from '../core/errors.js';

/** Indexes a rebuild restores from the member records. */
const REBUILDABLE = new Set(['st', 't', 'o', 'leases', 'tm', 'live']);

/** What `damageOf` finds in an error. */
export interface Damage {
  consumerGroup: string;
  /** Key parts (`st`, `o`, …) lost or holding an entry that does not decode; `g` for a lost header. */
  lost: string[];
  /** True when every lost part is an index the member records rebuild. */
  rebuildable: boolean;
}

/** The group's indexes `lost` differ from what its header recorded. */
export function groupDamaged(prefix: string, group: string, lost: readonly string[]): CoordinatorError {
  const rebuildable = lost.length > 0 && lost.every((p) => REBUILDABLE.has(p));
  const keys = lost.map((p) => `"${p}"`).join(', ');
  return new CoordinatorError(
    'METADATA_CORRUPT',
    `group "${group}" of stream "${prefix}" lost part of its Redis state: the ${keys} ` +
      `key${lost.length === 1 ? '' : 's'} no longer match${lost.length === 1 ? 'es' : ''} what the group header recorded` +
      (rebuildable
        ? ''
        : '; reset the group (repair with mode "reset", docs/running-redis.md#when-a-group-is-reported-corrupt)'),
    { details: { consumerGroup: group, lostKeys: [...lost], rebuildable } },
  );
}

/** The group header is gone while the stream lists the group or other keys of the group remain. */
export function headerLost(prefix: string, group: string): CoordinatorError {
  return new CoordinatorError(
    'METADATA_CORRUPT',
    `group "${group}" of stream "${prefix}" lost its header key "g" (the stream lists the group, or other keys of it remain); ` +
      'reset the group (repair with mode "reset", docs/running-redis.md#when-a-group-is-reported-corrupt)',
    { details: { consumerGroup: group, lostKeys: ['g'], rebuildable: false } },
  );
}

/** The damage `err` reports, or null when it is not a damaged-group error. */
export function damageOf(err: unknown): Damage | null {
  if (!isCoordinatorError(err) || err.code !== 'METADATA_CORRUPT') return null;
  const d = err.details;
  if (!d || typeof d.consumerGroup !== 'string' || !Array.isArray(d.lostKeys)) return null;
  return {
    consumerGroup: d.consumerGroup,
    lost: d.lostKeys as string[],
    rebuildable: d.rebuildable === true,
  };
}
