/**
 * Paging over shard streams with XRANGE/XREVRANGE only (never a consumer-group read), for one
 * shard or merged across shards (docs/protocol.md#monitoring-views and docs/protocol.md#grafana).
 *
 * Cursor paging: each shard is read from its cursor (inclusive) with `COUNT limit+2` (`limit+1`
 * without a cursor), the record equal to the cursor is dropped, and there is a next page when
 * more than `limit` records remain. Merged pages sort by id (then shard index) and keep one
 * cursor per shard: the last id of that shard shown so far.
 *
 * Tail paging counts pages from the end in the page direction: page `d` before the last page
 * (`d = 0` is the last one, which holds the `total mod limit` remainder).
 *
 * Every read one request causes is capped: a tail window reads its whole distance
 * from every shard, and merged paging reads `limit + 2` from each one, so without a cap one
 * request could read whole streams (or 1,024 shards × 1,002 records).
 */
import type { RangeDirection, StreamInspector, StreamRecord } from '../store/inspector.js';
import { invalidRequest } from './errors.js';
import { shardKey } from './monitoring-views.js';
import { compareStreamIds } from './stream-id.js';

/**
 * Records one message request may ask Redis for in all, every shard's XRANGE/XREVRANGE `COUNT`
 * summed: ten full pages of the largest limit (1,000) on one shard. A tail window needing more
 * answers 400; merged paging shrinks its limit to fit (`budgetedLimit`). There is no separate
 * cap on the tail distance: a distance beyond the pages that exist is clamped to the first page,
 * and the records it needs are what this bounds.
 */
export const MAX_RECORDS_READ_PER_REQUEST = 10_000;

/** Records a cursor page reads beyond `limit` from each shard: the cursor record itself and one to see a next page. */
const CURSOR_LOOKAHEAD = 2;

/**
 * The page limit a cursor page over `shardCount` shards can use within the read budget: `limit`,
 * or less when `shardCount × (limit + 2)` would exceed it. 400 when even a page of one would.
 */
export function budgetedLimit(limit: number, shardCount: number): number {
  const allowed = Math.floor(MAX_RECORDS_READ_PER_REQUEST / Math.max(1, shardCount)) - CURSOR_LOOKAHEAD;
  if (allowed < 1) {
    throw invalidRequest([
      `shardIndex: a merged page over ${shardCount} shards reads at least ${1 + CURSOR_LOOKAHEAD} records from each, more than the ${MAX_RECORDS_READ_PER_REQUEST} one request may read; select one shard`,
    ]);
  }
  return Math.min(limit, allowed);
}

/** 400 unless reading `perShard` records from each of `shardCount` shards stays within the read budget. */
export function checkReadBudget(perShard: number, shardCount: number, what: string, instead: string): void {
  const reads = perShard * shardCount;
  if (reads <= MAX_RECORDS_READ_PER_REQUEST) return;
  throw invalidRequest([
    `${what} needs ${perShard} record(s) read from each of ${shardCount} shard(s) (${reads} in all), more than the ${MAX_RECORDS_READ_PER_REQUEST} one request may read; ${instead}`,
  ]);
}

/** 400 unless the tail `window` over `shardCount` shards stays within the read budget. */
export function checkTailBudget(window: TailWindow, shardCount: number): void {
  checkReadBudget(
    window.readCount,
    shardCount,
    `cursor: this tail page, ${window.distanceFromLast} pages before the last,`,
    'page from the other end with an id cursor instead',
  );
}

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
function recordOrder(direction: RangeDirection): (a: ShardRecord, b: ShardRecord) => number {
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
  if (budgetedLimit(limit, shards.length) < limit) {
    throw invalidRequest([`limit: ${limit} over ${shards.length} shards exceeds the read budget`]);
  }
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
  checkTailBudget(window, shards.length);
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
