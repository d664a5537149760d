/**
 * `GET /monitoring/grafana/messages` (docs/protocol.md#grafana): message rows of one shard or of every
 * consumable shard merged by id, with three cursor forms besides a plain stream id:
 * `all:<i>=<id>,…` (merged paging, one position per shard), `__rsc_last__` (the last page) and
 * `__rsc_tail__:<n>` (n pages before the last). `recordId` looks one id up on every shard.
 */
import type { Context } from 'hono';
import { consumableShards } from '../../core/model.js';
import type { AppEnv, ResolvedDeps } from '../context.js';
import { invalidRequest } from '../errors.js';
import { type GrafanaMessageRowJson, grafanaMessageRow, type MessagePageFacts } from '../grafana-views.js';
import {
  budgetedLimit,
  checkReadBudget,
  checkTailBudget,
  readCursorPage,
  readTailPage,
  type ShardRecord,
  tailWindow,
} from '../message-pages.js';
import {
  isAllShards,
  parseIdParam,
  parseShardNumber,
  requireConsumable,
  requireInspector,
} from '../monitoring-query.js';
import { shardKey } from '../monitoring-views.js';
import { queryValue } from '../query-params.js';
import { GRAFANA_PARAMS as P } from './grafana-api.js';

/** Cursor of the last page. */
const LAST_PAGE_CURSOR = '__rsc_last__';
/** Prefix of `__rsc_tail__:<n>`, the page `n` pages before the last. */
const TAIL_CURSOR_PREFIX = '__rsc_tail__:';
/** Prefix of a merged cursor `all:<shard>=<id>,…`. */
const MERGED_CURSOR_PREFIX = 'all:';

/** Pages before the last one a tail cursor asks for; null when `cursor` is not a tail cursor. */
export function parseTailCursor(cursor: string | null): number | null {
  if (cursor === null) return null;
  if (cursor === LAST_PAGE_CURSOR) return 0;
  if (!cursor.startsWith(TAIL_CURSOR_PREFIX)) return null;
  const n = cursor.slice(TAIL_CURSOR_PREFIX.length).trim();
  return /^[+-]?\d{1,9}$/.test(n) ? Math.max(0, Number(n)) : null;
}

/** The tail cursor of the page after the one `distance` pages before the last (null at the last page). */
export function tailNextCursor(distance: number): string | null {
  return distance > 0 ? `${TAIL_CURSOR_PREFIX}${distance - 1}` : null;
}

/**
 * Per-shard positions of a non-tail cursor over `shards`: `all:i=id,…` sets each listed shard; a
 * plain stream id applies to every selected shard. 400 on a malformed id or token.
 */
export function parsePageCursor(cursor: string | null, shards: readonly number[]): Map<number, string> {
  const out = new Map<number, string>();
  if (cursor === null) return out;
  if (!cursor.startsWith(MERGED_CURSOR_PREFIX)) {
    const id = parseIdParam('cursor', cursor);
    for (const s of shards) out.set(s, id);
    return out;
  }
  const body = cursor.slice(MERGED_CURSOR_PREFIX.length).trim();
  if (body === '') return out;
  for (const token of body.split(',')) {
    const eq = token.indexOf('=');
    if (eq < 0) throw invalidRequest([`cursor: '${token.slice(0, 60)}' is not <shardIndex>=<recordId>`]);
    const shard = parseShardNumber('cursor', token.slice(0, eq).trim());
    const id = parseIdParam('cursor', token.slice(eq + 1).trim());
    if (shards.includes(shard)) out.set(shard, id);
  }
  return out;
}

/** `all:i=id,…` with shards ascending. */
export function encodeMergedCursor(positions: ReadonlyMap<number, string>): string {
  const parts = [...positions.entries()].sort((a, b) => a[0] - b[0]).map(([s, id]) => `${s}=${id}`);
  return `${MERGED_CURSOR_PREFIX}${parts.join(',')}`;
}

/** Answers `/grafana/messages`. */
export async function grafanaMessages(
  c: Context<AppEnv>,
  deps: ResolvedDeps,
): Promise<GrafanaMessageRowJson[]> {
  const prefix = queryValue(c, P.prefix);
  const groupName = queryValue(c, P.group);
  if (prefix === null || groupName === null) return [];
  const direction = queryValue(c, P.direction);
  const asked = queryValue(c, P.limit);
  const recordId = queryValue(c, P.recordId);
  const cursor = queryValue(c, P.cursor);
  const selector = recordId !== null ? 'all' : (queryValue(c, P.shardIndex) ?? '0');
  const all = isAllShards(selector);
  const wanted = all ? null : parseShardNumber('shardIndex', selector);
  const tail = recordId === null ? parseTailCursor(cursor) : null;

  const inspector = requireInspector(deps.inspector);
  const { stream, group } = await deps.coordinator.getGroup(prefix, groupName);
  const consumable = consumableShards(stream);
  const shards = wanted === null ? consumable : [requireConsumable('shardIndex', wanted, consumable)];
  // Merged pages read `limit + 2` from every shard: the limit shrinks to the read budget.
  const limit = recordId === null ? budgetedLimit(asked, shards.length) : asked;
  // Validate the cursor before reading anything, so a bad one is a 400 even on empty streams.
  const positions =
    recordId === null && tail === null ? parsePageCursor(cursor, shards) : new Map<number, string>();
  const infos = await inspector.streams(shards.map((i) => shardKey(stream.streamPrefix, i)));
  const totalMessages = infos.reduce((a, info) => a + (info?.length ?? 0), 0);

  let records: ShardRecord[];
  let nextCursor: string | null;
  if (recordId !== null) {
    checkReadBudget(
      1,
      shards.length,
      'recordId: a lookup on every shard',
      'use the per-shard messages route',
    );
    const found = await Promise.all(
      shards.map(async (shard) => {
        const hit = await inspector.range(shardKey(stream.streamPrefix, shard), {
          direction: 'FORWARD',
          from: recordId,
          to: recordId,
          count: 1,
        });
        return hit.map((record) => ({ shard, record }));
      }),
    );
    records = found.flat();
    nextCursor = null;
  } else if (tail !== null) {
    const window = tailWindow(totalMessages, limit, tail);
    checkTailBudget(window, shards.length);
    records = await readTailPage(inspector, stream.streamPrefix, shards, direction, window);
    nextCursor = tailNextCursor(window.distanceFromLast);
  } else {
    const page = await readCursorPage(inspector, stream.streamPrefix, shards, direction, positions, limit);
    records = page.records;
    nextCursor =
      page.next === null ? null : all ? encodeMergedCursor(page.next) : (page.next.get(shards[0]!) ?? null);
  }
  const facts: MessagePageFacts = { shardSelector: selector, direction, limit, nextCursor, totalMessages };
  return records.map((r) => grafanaMessageRow(group, r, facts));
}
