/**
 * Paging over shard streams with XRANGE/XREVRANGE only (never a consumer-group read), for one
 * shard or merged across shards (PROTOCOL §2.9 messages, §2.10 Grafana messages).
 *
 * Cursor paging: each shard is read from its cursor (inclusive) with `COUNT limit+2` (`limit+1`
 * without a cursor), the record equal to the cursor is dropped, and there is a next page when
 * more than `limit` records remain. Merged pages sort by id (then shard index) and keep one
 * cursor per shard: the last id of that shard shown so far.
 *
 * Tail paging counts pages from the end in the page direction: page `d` before the last page
 * (`d = 0` is the last one, which holds the `total mod limit` remainder).
 */
import type { RangeDirection, StreamInspector, StreamRecord } from '../store/inspector.js';
import { shardKey } from './monitoring-views.js';
import { compareStreamIds } from './stream-id.js';

/** A record and the shard it was read from. */
export interface ShardRecord {
  shard: number;
  record: StreamRecord;
}

/** One page: records in page order and, per shard, the cursor to continue from (null: no more). */
export interface MergedPage {
  records: ShardRecord[];
  /** Per-shard cursors of the next page; null when this is the last page. */
  next: Map<number, string> | null;
}

/** Order of records in a page of `direction` (ties: lower shard index first). */
export function recordOrder(direction: RangeDirection): (a: ShardRecord, b: ShardRecord) => number {
  const sign = direction === 'FORWARD' ? 1 : -1;
  return (a, b) => sign * compareStreamIds(a.record.id, b.record.id) || a.shard - b.shard;
}

/**
 * A cursor page over `shards` of stream `prefix`. `cursors` holds the last id already shown per
 * shard (absent: start of the shard in `direction`).
 */
export async function readCursorPage(
  inspector: StreamInspector,
  prefix: string,
  shards: readonly number[],
  direction: RangeDirection,
  cursors: ReadonlyMap<number, string>,
  limit: number,
): Promise<MergedPage> {
  const perShard = await Promise.all(
    shards.map(async (shard) => {
      const cursor = cursors.get(shard) ?? null;
      const fetched = await inspector.range(shardKey(prefix, shard), {
        direction,
        from: cursor,
        count: limit + (cursor === null ? 1 : 2),
      });
      return fetched
        .filter((r) => r.id !== cursor)
        .slice(0, limit + 1)
        .map((record) => ({ shard, record }));
    }),
  );
  const merged = perShard.flat().sort(recordOrder(direction));
  const records = merged.slice(0, limit);
  if (merged.length <= limit || records.length === 0) return { records, next: null };
  const next = new Map(cursors);
  for (const r of records) next.set(r.shard, r.record.id);
  return { records, next };
}

/** Which slice of the newest-in-`direction` records a tail page is. */
export interface TailWindow {
  /** Pages between this one and the last (clamped to the pages that exist). */
  distanceFromLast: number;
  /** Records skipped at the tail end before the page starts. */
  offsetFromTail: number;
  pageSize: number;
  /** Records to read from the tail end: `offsetFromTail + pageSize`. */
  readCount: number;
}

/** The tail window for page `distance` before the last, with `total` records in `limit`-sized pages. */
export function tailWindow(total: number, limit: number, distance: number): TailWindow {
  if (total <= 0) return { distanceFromLast: 0, offsetFromTail: 0, pageSize: 0, readCount: 0 };
  const lastIndex = Math.ceil(total / limit) - 1;
  const target = Math.max(0, lastIndex - Math.max(0, distance));
  const distanceFromLast = lastIndex - target;
  const lastSize = total % limit === 0 ? limit : total % limit;
  const offsetFromTail = distanceFromLast === 0 ? 0 : lastSize + (distanceFromLast - 1) * limit;
  const pageSize = distanceFromLast === 0 ? lastSize : limit;
  return { distanceFromLast, offsetFromTail, pageSize, readCount: offsetFromTail + pageSize };
}

/**
 * A tail page: reads `readCount` records per shard from the far end (the end a `direction`
 * reader reaches last), merges them, and cuts out the window. Returned in `direction` order.
 */
export async function readTailPage(
  inspector: StreamInspector,
  prefix: string,
  shards: readonly number[],
  direction: RangeDirection,
  window: TailWindow,
): Promise<ShardRecord[]> {
  if (window.pageSize === 0) return [];
  const reverse: RangeDirection = direction === 'FORWARD' ? 'BACKWARD' : 'FORWARD';
  const perShard = await Promise.all(
    shards.map(async (shard) => {
      const fetched = await inspector.range(shardKey(prefix, shard), {
        direction: reverse,
        from: null,
        count: window.readCount,
      });
      return fetched.map((record) => ({ shard, record }));
    }),
  );
  return perShard
    .flat()
    .sort(recordOrder(reverse))
    .slice(window.offsetFromTail, window.offsetFromTail + window.pageSize)
    .sort(recordOrder(direction));
}
