/**
 * Drain evidence of a removed shard (docs/protocol.md#scale-in-drain-evidence, docs/protocol.md#deviation-scale-in-drains): what Redis says about the shard's stream
 * key, and the verdict "nothing is left unread or pending". Only positive evidence drains a
 * shard: a failed read, a missing count or an unknown position never does. Whether a group has
 * read everything is decided by the stream IDs (no entry after its last-delivered-id), not by
 * `lag`: Redis can report a stale lag (after a restart from the AOF or a replica promotion, 7.0
 * restores a group's position but not its entries-read count) or none at all (after an `XDEL`).
 *
 * The retire script (`store/scripts/retire-shard.ts`) applies the same rules inside Redis right
 * before it deletes the key; the two must stay in step.
 */
import type { ConsumerGroupEvidence, DrainEvidence } from './model.js';

/** One consumer group as a read of the shard saw it. */
export interface GroupReading extends ConsumerGroupEvidence {
  /** `last-delivered-id` from `XINFO GROUPS`; null when Redis did not report it. */
  lastDeliveredId: string | null;
  /** Whether `XRANGE <key> (<lastDeliveredId> + COUNT 1` found an entry; null when unknown. */
  entryAfterLastDelivered: boolean | null;
}

/** What one read of a shard's stream key returned. */
export type ShardReading =
  /** `EXISTS` = 0. */
  | { kind: 'absent' }
  /** The key is not a stream, or a command failed: never evidence. */
  | { kind: 'error'; message: string }
  | {
      kind: 'stream';
      /** `XLEN`. */
      length: number;
      /** `entries-added` of `XINFO STREAM`; null when Redis did not report it. */
      entriesAdded: number | null;
      /** Every consumer group on the key (`XINFO GROUPS`, plus what follows each one's position). */
      groups: GroupReading[];
    };

/** What the atomic check-and-delete of a shard did. */
export type RetireOutcome =
  /** The evidence held and the key was deleted in the same script. */
  | { kind: 'deleted' }
  /** The key was already gone. */
  | { kind: 'absent' }
  /** The re-check failed (e.g. a late XADD): nothing was deleted. */
  | { kind: 'refused'; reading: ShardReading }
  /** The script could not run (Redis unavailable): nothing is known, retry later. */
  | { kind: 'error'; message: string };

/** Verdict on one reading. */
export interface DrainVerdict {
  drained: boolean;
  /** Why (operator-facing). */
  reason: string;
}

/**
 * Positive drain evidence (docs/protocol.md#scale-in-drain-evidence): the key is absent; or every consumer group on it is one
 * the coordinator manages (a key carrying anyone else's group is never deleted), has
 * nothing pending, and — unless the stream holds no entry at all — no entry follows any group's
 * last-delivered-id, at least one group exists and every group the coordinator manages is
 * present (a stream with entries that some managed group cannot even see is not drained for it).
 * `lag` only words the reason: a stale or null lag is overruled by the IDs, and a lag of 0 is
 * never enough on its own.
 */
export function drainVerdict(reading: ShardReading, managedGroups: readonly string[]): DrainVerdict {
  if (reading.kind === 'absent') return { drained: true, reason: 'the shard stream key no longer exists' };
  if (reading.kind === 'error') return { drained: false, reason: `no drain evidence: ${reading.message}` };
  const problems: string[] = [];
  const managed = new Set(managedGroups);
  for (const g of reading.groups) {
    if (!managed.has(g.name)) {
      problems.push(
        `consumer group "${g.name}" is not managed by the coordinator: the key is kept while it is there (XGROUP DESTROY it to let the shard retire)`,
      );
    }
    if (g.pending === null) problems.push(`consumer group "${g.name}": pending count unknown`);
    else if (g.pending > 0)
      problems.push(`consumer group "${g.name}": ${g.pending} pending (delivered, not acknowledged)`);
  }
  // An empty stream has nothing left to lose, whatever its lag counters say.
  if (reading.length > 0) {
    if (reading.groups.length === 0) {
      problems.push(`${reading.length} entries and no consumer group on the key`);
    }
    const present = new Set(reading.groups.map((g) => g.name));
    for (const name of managedGroups) {
      if (!present.has(name)) {
        problems.push(`consumer group "${name}" is missing while ${reading.length} entries remain`);
      }
    }
    for (const g of reading.groups) {
      const problem = undeliveredProblem(g);
      if (problem !== null) problems.push(`consumer group "${g.name}": ${problem}`);
    }
  }
  if (problems.length > 0) return { drained: false, reason: problems.join('; ') };
  return { drained: true, reason: 'every consumer group has read and acknowledged every entry' };
}

/** Why `g` may still have entries to read, or null when its position proves it has none. */
function undeliveredProblem(g: GroupReading): string | null {
  if (g.entryAfterLastDelivered === false) return null;
  const at = `its last-delivered-id ${g.lastDeliveredId ?? '(unknown)'}`;
  if (g.entryAfterLastDelivered === null) {
    return `could not tell whether an entry follows ${at} (lag ${g.lag ?? 'unknown'}), not evidence`;
  }
  if (g.lag === null) {
    return `lag unknown (null; an entry beyond its position was deleted), and entries remain after ${at}`;
  }
  if (g.lag > 0) return `${g.lag} entries not yet delivered (lag; entries remain after ${at})`;
  return `entries not yet delivered: some remain after ${at} although lag says 0`;
}

/** The evidence record kept in the stream document for a reading taken at `now`. */
export function evidenceRecord(reading: ShardReading, verdict: DrainVerdict, now: number): DrainEvidence {
  switch (reading.kind) {
    case 'absent':
      return {
        checkedAt: now,
        drained: verdict.drained,
        keyExists: false,
        length: null,
        consumerGroups: null,
        error: null,
      };
    case 'error':
      return {
        checkedAt: now,
        drained: false,
        keyExists: null,
        length: null,
        consumerGroups: null,
        error: reading.message,
      };
    case 'stream':
      return {
        checkedAt: now,
        drained: verdict.drained,
        keyExists: true,
        length: reading.length,
        consumerGroups: reading.groups.map((g) => ({ ...g })),
        error: null,
      };
  }
}

/** The number of entries ever written to a shard (a missing key counts as 0), null when unknown. */
export function entriesEverAdded(reading: ShardReading): number | null {
  if (reading.kind === 'absent') return 0;
  if (reading.kind === 'error') return null;
  return reading.entriesAdded;
}
