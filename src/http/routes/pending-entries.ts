/**
 * `GET /monitoring/streams/{p}/groups/{g}/pending-entries?shard=i` (docs/protocol.md#monitoring-views):
 * a page of one consumable shard's pending entries — id, the member holding it, how long it has
 * been idle and how many times it was delivered — read with the detailed `XPENDING`, so nothing
 * is claimed, acknowledged or moved. Additive: what the console's pending page shows per record
 * (docs/console.md#pending).
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { CoordinatorError } from '../../core/errors.js';
import { consumableShards } from '../../core/model.js';
import { apiRoute, apiRouter, groupParams, REDIS_READ_ERRORS } from '../api-route.js';
import type { AppEnv, ResolvedDeps } from '../context.js';
import { parseShardNumber, requireConsumable, requireInspector } from '../monitoring-query.js';
import { shardKey } from '../monitoring-views.js';
import { type PendingEntriesJson, pendingEntriesResponseSchema } from '../pending-schemas.js';
import { type QueryParam, queryValue, streamIdParam } from '../query-params.js';

/** Page size when `count` is absent, and the largest one (docs/protocol.md#monitoring-views). */
export const DEFAULT_ENTRY_PAGE = 50;
export const MAX_ENTRY_PAGE = 500;
/** Longest `consumer` filter: a member id is at most 200 characters. */
const MAX_CONSUMER_LENGTH = 200;
/** Largest `minIdleMs` taken (about 31 years). */
const MAX_IDLE_MS = 1e12;
/** The largest stream id: nothing comes after it, so a page starting there is empty. */
const MAX_STREAM_ID = '18446744073709551615-18446744073709551615';

/** Trimmed text, null when absent or blank. */
const trimmed = z
  .string()
  .optional()
  .transform((v) => v?.trim() || null);

/** An integer parameter from `min` to `max`; `blank` when absent; anything else a 400. */
export function boundedIntParam(
  name: string,
  description: string,
  min: number,
  max: number,
  blank: number | null,
): QueryParam<number | null> {
  return {
    name,
    description,
    schema: { type: 'integer', minimum: min, maximum: max, ...(blank === null ? {} : { default: blank }) },
    parse: trimmed.transform((v, ctx): number | null => {
      if (v === null) return blank;
      if (/^\d{1,13}$/.test(v) && Number(v) >= min && Number(v) <= max) return Number(v);
      ctx.addIssue({ code: 'custom', message: `must be an integer from ${min} to ${max}` });
      return z.NEVER;
    }),
  };
}

const shardParam: QueryParam<string | null> = {
  name: 'shard',
  description: 'the shard index; required, and a consumable shard of the stream',
  required: true,
  schema: { type: 'integer', minimum: 0 },
  parse: trimmed,
};
const countParam = boundedIntParam(
  'count',
  `entries per page, 1..${MAX_ENTRY_PAGE} (absent: ${DEFAULT_ENTRY_PAGE}); any other value answers 400`,
  1,
  MAX_ENTRY_PAGE,
  DEFAULT_ENTRY_PAGE,
);
const startParam = streamIdParam('start', "the previous page's nextCursor: the page starts after this id");
const consumerParam: QueryParam<string | null> = {
  name: 'consumer',
  description: 'only the entries this consumer (member id) holds',
  parse: trimmed.refine((v) => v === null || v.length <= MAX_CONSUMER_LENGTH, {
    message: `must be at most ${MAX_CONSUMER_LENGTH} characters`,
  }),
};
const minIdleParam = boundedIntParam(
  'minIdleMs',
  'only the entries idle at least this many milliseconds (`XPENDING … IDLE`)',
  0,
  MAX_IDLE_MS,
  null,
);

/** The declared pending-entries operation. */
export const PENDING_ENTRIES_ROUTES = {
  pendingEntries: apiRoute({
    method: 'get',
    path: '/coord/v1/monitoring/streams/{streamPrefix}/groups/{consumerGroup}/pending-entries',
    operationId: 'getPendingEntries',
    tag: 'Monitoring',
    summary:
      'A page of one shard’s pending entries: holder, idle time, delivery count (XPENDING; never moves group state)',
    description:
      'Additive. Reads `XPENDING key group [IDLE minIdleMs] (start + count [consumer]` on the shard stream `{streamPrefix}:{shard}`: entries delivered to the group and not acknowledged, in id order, with the consumer (member id) holding each, its idle time and delivery count. Nothing is claimed or acknowledged. `nextCursor`, passed back as `start`, reads the next page; it is null on the last one. A shard outside the consumable set, or a bad `count`, `start`, `consumer` or `minIdleMs`, is a 400 `INVALID_REQUEST`; an unknown stream or group, or a shard key that does not exist or does not hold the group in Redis, is a 404 `GROUP_NOT_FOUND` whose message says which.',
    access: 'READ',
    params: z.object(groupParams),
    query: [shardParam, countParam, startParam, consumerParam, minIdleParam],
    success: {
      status: 200,
      description: 'Page',
      body: { schema: pendingEntriesResponseSchema, name: 'PendingEntriesResponse' },
    },
    errors: REDIS_READ_ERRORS,
  }),
};

/** The pending-entries route. */
export function pendingEntriesRoutes(deps: ResolvedDeps): OpenAPIHono<AppEnv> {
  const app = apiRouter();
  app.openapi(PENDING_ENTRIES_ROUTES.pendingEntries.route, async (c) => {
    const { streamPrefix, consumerGroup } = c.req.valid('param');
    const rawShard = queryValue(c, shardParam);
    if (rawShard === null) throw new CoordinatorError('INVALID_REQUEST', 'shard: is required');
    const shard = parseShardNumber('shard', rawShard);
    const count = queryValue(c, countParam) ?? DEFAULT_ENTRY_PAGE;
    const start = queryValue(c, startParam);
    const consumer = queryValue(c, consumerParam);
    const minIdleMs = queryValue(c, minIdleParam);
    const inspector = requireInspector(deps.inspector);
    const { stream, group } = await deps.coordinator.getGroup(streamPrefix, consumerGroup);
    requireConsumable('shard', shard, consumableShards(stream));
    if (!inspector.pendingEntries) {
      throw new CoordinatorError(
        'REDIS_NOT_CONFIGURED',
        'this coordinator cannot read single pending entries',
      );
    }
    const streamKey = shardKey(stream.streamPrefix, shard);
    const readAtMs = deps.now();
    const body: PendingEntriesJson = {
      streamPrefix: group.streamPrefix,
      consumerGroup: group.consumerGroup,
      shard: { shardIndex: shard },
      streamKey,
      count,
      consumer,
      minIdleMs,
      entries: [],
      nextCursor: null,
      readAtMs,
    };
    if (start === MAX_STREAM_ID) return c.json(body, 200);
    // One more than asked: whether another page follows is then known, not guessed.
    const read = await inspector.pendingEntries(streamKey, group.consumerGroup, {
      start: start === null ? '-' : `(${start}`,
      end: '+',
      count: count + 1,
      minIdleMs,
      consumer,
    });
    switch (read.status) {
      case 'no-stream':
        throw new CoordinatorError(
          'GROUP_NOT_FOUND',
          `shard ${shard} of stream "${stream.streamPrefix}" has no stream at "${streamKey}" in Redis`,
        );
      case 'no-group':
        throw new CoordinatorError(
          'GROUP_NOT_FOUND',
          `consumer group "${group.consumerGroup}" is not on "${streamKey}" (shard ${shard}) in Redis`,
        );
      case 'failed':
        throw new CoordinatorError(
          'REDIS_UNAVAILABLE',
          `reading the pending entries of "${streamKey}" failed`,
        );
    }
    body.entries = read.entries.slice(0, count);
    body.nextCursor = read.entries.length > count ? (body.entries.at(-1)?.id ?? null) : null;
    return c.json(body, 200);
  });
  return app;
}
