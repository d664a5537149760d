/**
 * The offsets reset's decisions on one shard (docs/operating.md#replaying-or-skipping-records),
 * pure: where a target puts the group's last-delivered-id, which counts the stream's own counters
 * already answer (so only the rest is counted in Redis), and what the move skips or replays.
 */

/** Where a reset moves the group on every shard it names. */
export type ResetTarget =
  /** `0-0`: every record the stream still holds is delivered again. */
  | { to: 'earliest' }
  /** The stream's last generated id, as read: nothing already written is delivered. */
  | { to: 'latest' }
  /** Just before the first record at or after `timestamp` (epoch ms). */
  | { to: 'timestamp'; timestamp: number }
  /** Exactly `id` (as `XGROUP SETID`): the records after it are delivered. */
  | { to: 'id'; id: string };

/** What `XINFO STREAM` says about a shard, as the plan needs it. */
export interface StreamEnds {
  length: number;
  firstRecordId: string | null;
  lastRecordId: string | null;
  /** Ids of records written from now on are above it. */
  lastGeneratedId: string;
  /** Records ever added (Redis 7); null when not reported. */
  entriesAdded: number | null;
}

/** A count that may have stopped at its limit (then `count` is a lower bound). */
export interface Counted {
  count: number;
  complete: boolean;
}

/** What moving the group from `before` to `after` does on one shard. */
export interface ShardMove {
  /** Records the group will not get (moving forward). */
  skippedRecords: number;
  /** Records the group gets again (moving back). */
  replayedRecords: number;
  /** False when the count stopped at its limit: the numbers above are then lower bounds. */
  countExact: boolean;
  /** Records after the new position (what the group has left to read); null when not counted to the end. */
  lagAfter: number | null;
  /** The `ENTRIESREAD` to set with the new id, so Redis keeps reporting the group's lag; null when unknown. */
  entriesRead: number | null;
}

const ID = /^(\d{1,20})-(\d{1,20})$/;
const UINT64_MAX = (1n << 64n) - 1n;

/** `[ms, seq]` of a full `<ms>-<seq>` id; null when it is not one. */
function parts(id: string): [bigint, bigint] | null {
  const m = ID.exec(id);
  if (!m) return null;
  const ms = BigInt(m[1]!);
  const seq = BigInt(m[2]!);
  return ms > UINT64_MAX || seq > UINT64_MAX ? null : [ms, seq];
}

/** The canonical text of a full stream id (`007-01` → `7-1`); null when it is not one. */
export function canonicalId(text: string): string | null {
  const p = parts(text);
  return p === null ? null : `${p[0]}-${p[1]}`;
}

/** Order of two stream ids as Redis orders them (ids that do not parse sort first). */
export function compareIds(a: string, b: string): number {
  const [am, as] = parts(a) ?? [-1n, -1n];
  const [bm, bs] = parts(b) ?? [-1n, -1n];
  if (am !== bm) return am < bm ? -1 : 1;
  if (as !== bs) return as < bs ? -1 : 1;
  return 0;
}

/** The id a timestamp target reads back from: records with this id or above are at or after it. */
export function timestampBound(timestamp: number): string {
  return `${timestamp}-0`;
}

/**
 * The group's new last-delivered-id on a shard, or why the target does not fit it.
 * `lastBeforeTimestamp`: for a timestamp target, the newest record before it (null: none).
 */
export function newPosition(
  target: ResetTarget,
  ends: StreamEnds,
  lastBeforeTimestamp: string | null,
): { id: string } | { refused: string } {
  switch (target.to) {
    case 'earliest':
      return { id: '0-0' };
    case 'latest':
      return { id: ends.lastGeneratedId };
    case 'timestamp':
      // No record before the timestamp: every record held is at or after it.
      return { id: lastBeforeTimestamp ?? '0-0' };
    case 'id':
      // A group ahead of its stream would silently skip records not written yet.
      if (compareIds(target.id, ends.lastGeneratedId) > 0)
        return { refused: `id ${target.id} is after the stream's last id ${ends.lastGeneratedId}` };
      return { id: target.id };
  }
}

/** Records with an id above `id`, when the stream's ends answer it without counting; else null. */
export function recordsAfter(ends: StreamEnds, id: string): number | null {
  if (ends.length === 0 || ends.lastRecordId === null) return 0;
  if (compareIds(id, ends.lastRecordId) >= 0) return 0;
  if (ends.firstRecordId !== null && compareIds(id, ends.firstRecordId) < 0) return ends.length;
  return null;
}

/** Records with an id in (`low`, `high`], when the stream's ends answer it without counting; else null. */
export function recordsBetween(ends: StreamEnds, low: string, high: string): number | null {
  if (compareIds(low, high) >= 0) return 0;
  const fromLow = recordsAfter(ends, low);
  const fromHigh = recordsAfter(ends, high);
  if (fromLow === 0) return 0;
  if (fromLow !== null && fromHigh !== null) return fromLow - fromHigh;
  return null;
}

/**
 * What the move does, from the records between the two positions and the records after the new
 * one (both counted up to the same last id the ends were read at, so a producer writing meanwhile
 * changes neither).
 */
export function shardMove(
  ends: StreamEnds,
  before: string,
  after: string,
  between: Counted,
  behindAfter: Counted,
): ShardMove {
  const forward = compareIds(after, before) > 0;
  const moved = between.count;
  const lagAfter = behindAfter.complete ? behindAfter.count : null;
  // Records the stream no longer holds count as read (as Redis counts a group created at 0).
  const entriesRead =
    lagAfter !== null && ends.entriesAdded !== null ? Math.max(0, ends.entriesAdded - lagAfter) : null;
  return {
    skippedRecords: forward ? moved : 0,
    replayedRecords: forward ? 0 : moved,
    countExact: between.complete,
    lagAfter,
    entriesRead,
  };
}
