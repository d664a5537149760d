/**
 * `GET /monitoring/streams/{p}/groups/{g}/dead-letters` (docs/protocol.md#monitoring-views): the
 * group's dead letters, newest first, read from the stream's dead-letter stream (`{p}:dlq`, where
 * the consumer SDK copies a record past `maxDeliveries`) with `XREVRANGE` only. Entries of other
 * groups share that stream, so a page may read more entries than it answers; the read is bounded
 * and the answer says when it stopped before the page was full. Additive
 * (docs/console.md#pending).
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import type { StreamRecord } from '../../store/inspector.js';
import { apiRoute, apiRouter, groupParams, REDIS_READ_ERRORS } from '../api-route.js';
import type { AppEnv, ResolvedDeps } from '../context.js';
import { invalidRequest } from '../errors.js';
import { requireInspector } from '../monitoring-query.js';
import { type DeadLetterJson, type DeadLettersJson, deadLettersResponseSchema } from '../pending-schemas.js';
import { type QueryParam, queryValue, streamIdParam } from '../query-params.js';
import { streamIdTimestampMs } from '../stream-id.js';
import { isoInstant } from '../views.js';
import { boundedIntParam, DEFAULT_ENTRY_PAGE, MAX_ENTRY_PAGE } from './pending-entries.js';

/** Most dead-letter entries one request reads: 10 × count, never more than this. */
const MAX_DEAD_LETTER_SCAN = 5000;
/** Longest value answered; longer ones are cut there and the entry marked `truncated`. */
const MAX_DEAD_LETTER_VALUE = 4096;
/** Longest `deadLetterKey` taken. */
const MAX_KEY_LENGTH = 512;
/** Entries read per `XREVRANGE`. */
const READ_BATCH = 500;

const countParam = boundedIntParam(
  'count',
  `dead letters per page, 1..${MAX_ENTRY_PAGE} (absent: ${DEFAULT_ENTRY_PAGE}); any other value answers 400`,
  1,
  MAX_ENTRY_PAGE,
  DEFAULT_ENTRY_PAGE,
);
const cursorParam = streamIdParam('cursor', "the previous page's nextCursor: the page starts before this id");
const keyParam: QueryParam<string | null> = {
  name: 'deadLetterKey',
  description:
    'the dead-letter stream, when the consumers were given another `deadLetterStream` than `{streamPrefix}:dlq`; it must start with `{streamPrefix}:` (no other key is read)',
  parse: z
    .string()
    .optional()
    .transform((v) => v || null)
    .refine((v) => v === null || v.length <= MAX_KEY_LENGTH, {
      message: `must be at most ${MAX_KEY_LENGTH} characters`,
    }),
};

/** The declared dead-letters operation. */
export const DEAD_LETTER_ROUTES = {
  deadLetters: apiRoute({
    method: 'get',
    path: '/coord/v1/monitoring/streams/{streamPrefix}/groups/{consumerGroup}/dead-letters',
    operationId: 'getDeadLetters',
    tag: 'Monitoring',
    summary: 'The group’s dead letters, newest first (XREVRANGE of the dead-letter stream; never writes)',
    description: `Additive. Reads the stream's dead-letter stream (\`{streamPrefix}:dlq\`, the consumer SDK's default \`deadLetterStream\`, or \`deadLetterKey\`, which must start with \`{streamPrefix}:\`) newest first with \`XREVRANGE\`, and answers the entries whose \`dlq.group\` is the group: where each record came from (\`dlq.stream\`, \`dlq.id\`), the member that dead-lettered it, its delivery count, the last error and its original fields (values cut at ${MAX_DEAD_LETTER_VALUE} characters). Other groups' entries share the stream, so one request reads at most 10 × count entries (at most ${MAX_DEAD_LETTER_SCAN}); when that ends the scan before the page is full, \`stoppedEarly\` is true and \`nextCursor\` continues it. A dead-letter stream that does not exist yet answers an empty page.`,
    access: 'READ',
    params: z.object(groupParams),
    query: [countParam, cursorParam, keyParam],
    success: {
      status: 200,
      description: 'Page',
      body: { schema: deadLettersResponseSchema, name: 'DeadLettersResponse' },
    },
    errors: REDIS_READ_ERRORS,
  }),
};

/** `value` cut at the longest answered length. */
function bounded(value: string, cut: { truncated: boolean }): string {
  if (value.length <= MAX_DEAD_LETTER_VALUE) return value;
  cut.truncated = true;
  return value.slice(0, MAX_DEAD_LETTER_VALUE);
}

/** The shard index of `key` when it is `{prefix}:{i}`, else null. */
function shardOf(prefix: string, key: string | null): number | null {
  if (key === null || !key.startsWith(`${prefix}:`)) return null;
  const rest = key.slice(prefix.length + 1);
  return /^\d{1,5}$/.test(rest) ? Number(rest) : null;
}

/** One dead-letter entry as answered. */
function deadLetterView(prefix: string, record: StreamRecord): DeadLetterJson {
  const f = record.fields;
  const cut = { truncated: false };
  const field = (name: string) => (Object.hasOwn(f, name) ? bounded(f[name]!, cut) : null);
  const fields: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(f)) {
    if (!name.startsWith('dlq.')) fields[bounded(name, cut)] = bounded(value, cut);
  }
  const deliveries = field('dlq.deliveryCount');
  const ms = streamIdTimestampMs(record.id);
  const originalStreamKey = field('dlq.stream');
  return {
    deadLetterId: record.id,
    deadLetterTimeMs: ms,
    deadLetterTime: ms === null ? null : isoInstant(ms),
    originalStreamKey,
    originalShardIndex: shardOf(prefix, originalStreamKey),
    originalId: field('dlq.id'),
    member: field('dlq.member'),
    deliveryCount: deliveries !== null && /^\d{1,9}$/.test(deliveries) ? Number(deliveries) : null,
    error: field('dlq.error'),
    fields,
    truncated: cut.truncated,
  };
}

/** The dead-letters route. */
export function deadLetterRoutes(deps: ResolvedDeps): OpenAPIHono<AppEnv> {
  const app = apiRouter();
  app.openapi(DEAD_LETTER_ROUTES.deadLetters.route, async (c) => {
    const { streamPrefix, consumerGroup } = c.req.valid('param');
    const count = queryValue(c, countParam) ?? DEFAULT_ENTRY_PAGE;
    const cursor = queryValue(c, cursorParam);
    const named = queryValue(c, keyParam);
    if (
      named !== null &&
      (!named.startsWith(`${streamPrefix}:`) || named.length === streamPrefix.length + 1)
    ) {
      // Never an arbitrary key: only one under the stream's own prefix.
      throw invalidRequest([`deadLetterKey: must start with "${streamPrefix}:"`]);
    }
    const inspector = requireInspector(deps.inspector);
    const { stream, group } = await deps.coordinator.getGroup(streamPrefix, consumerGroup);
    const deadLetterKey = named ?? `${stream.streamPrefix}:dlq`;
    const scanLimit = Math.min(MAX_DEAD_LETTER_SCAN, 10 * count);
    const entries: DeadLetterJson[] = [];
    let scanned = 0;
    let last: string | null = cursor;
    let nextCursor: string | null = null;
    let stoppedEarly = false;
    // XREVRANGE from just before the cursor, in batches, until the page is full, the stream's
    // start is reached or the scan limit is.
    scan: while (true) {
      const want = Math.min(READ_BATCH, scanLimit - scanned);
      const batch = await inspector.range(deadLetterKey, {
        direction: 'BACKWARD',
        from: last === null ? null : `(${last}`,
        count: want,
      });
      for (const record of batch) {
        scanned++;
        last = record.id;
        if (record.fields['dlq.group'] === group.consumerGroup) {
          entries.push(deadLetterView(stream.streamPrefix, record));
          if (entries.length === count) {
            nextCursor = record.id;
            break scan;
          }
        }
        if (scanned >= scanLimit) {
          stoppedEarly = true;
          nextCursor = record.id;
          break scan;
        }
      }
      if (batch.length < want) break;
    }
    const body: DeadLettersJson = {
      streamPrefix: group.streamPrefix,
      consumerGroup: group.consumerGroup,
      deadLetterKey,
      count,
      entries,
      scanned,
      scanLimit,
      stoppedEarly,
      nextCursor,
    };
    return c.json(body, 200);
  });
  return app;
}
