/**
 * Wire shapes of the two additive monitoring reads behind the console's pending page
 * (docs/protocol.md#monitoring-views): one shard's pending entries (the detailed `XPENDING`) and
 * the group's dead letters (the stream's dead-letter stream, newest first). Declared with their
 * routes as `PendingEntriesResponse` and `DeadLettersResponse`.
 */
import { z } from 'zod';
import { shardIdSchema } from './schemas.js';

const text = z.string();
const count = z.int().min(0);
const nullableText = text.nullable();
const nullableInt = z.int().nullable();
const instant = z.iso.datetime({ offset: true });

/** One pending entry of a shard. */
const pendingEntrySchema = z.object({
  id: text.describe('the record id'),
  consumer: text.describe('the consumer (member id) holding it, delivered and not acknowledged'),
  idleMs: count.describe('milliseconds since it was last delivered or claimed'),
  deliveryCount: count.describe('times it was delivered'),
});

/** `PendingEntriesResponse`. */
export const pendingEntriesResponseSchema = z.object({
  streamPrefix: text,
  consumerGroup: text,
  shard: shardIdSchema,
  streamKey: text,
  count: count.describe('the page size asked for'),
  consumer: nullableText.describe('the consumer filter, null for every consumer'),
  minIdleMs: nullableInt.describe('the idle filter, null for none'),
  entries: z.array(pendingEntrySchema).describe('in id order (oldest first)'),
  nextCursor: nullableText.describe('pass as `start` for the next page; null on the last page'),
  readAtMs: count.describe('when Redis was read, epoch ms'),
});

/** One dead letter of the group. */
const deadLetterSchema = z.object({
  deadLetterId: text.describe('id of the entry in the dead-letter stream'),
  deadLetterTimeMs: nullableInt.describe('when it was dead-lettered (from its id), epoch ms'),
  deadLetterTime: instant.nullable(),
  originalStreamKey: nullableText.describe('`dlq.stream`: the shard stream the record was read from'),
  originalShardIndex: nullableInt.describe('the shard of `originalStreamKey`, when it is one of this stream'),
  originalId: nullableText.describe('`dlq.id`: the record id on that shard'),
  member: nullableText.describe('`dlq.member`: the member that dead-lettered it'),
  deliveryCount: nullableInt.describe('`dlq.deliveryCount`: times it had been delivered'),
  error: nullableText.describe('`dlq.error`: the last failure'),
  fields: z.record(text, text).describe('the original record fields (the `dlq.*` fields left out)'),
  truncated: z.boolean().describe('some value was longer than 4,096 characters and is cut there'),
});

/** `DeadLettersResponse`. */
export const deadLettersResponseSchema = z.object({
  streamPrefix: text,
  consumerGroup: text,
  deadLetterKey: text.describe('the dead-letter stream read'),
  count: count.describe('the page size asked for'),
  entries: z.array(deadLetterSchema).describe("the group's dead letters, newest first"),
  scanned: count.describe('dead-letter entries read to fill this page (of every group)'),
  scanLimit: count.describe('most entries one request reads: 10 × count, at most 5,000'),
  stoppedEarly: z
    .boolean()
    .describe('the scan reached scanLimit before the page was full; `nextCursor` continues it'),
  nextCursor: nullableText.describe(
    'pass as `cursor` for the next page; null when the stream is read to its start',
  ),
});

/** The body of the pending-entries route. */
export type PendingEntriesJson = z.output<typeof pendingEntriesResponseSchema>;
/** The body of the dead-letters route. */
export type DeadLettersJson = z.output<typeof deadLettersResponseSchema>;
/** One dead letter. */
export type DeadLetterJson = z.output<typeof deadLetterSchema>;
