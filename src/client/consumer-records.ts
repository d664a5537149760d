/**
 * What happens to one record of a shard: the handler's outcome becomes an ack or ack-delete
 * (coalesced by the shard's `AckBuffer`); a failure leaves it pending with its idle clock
 * restarted, so the retry backoff counts from the failure; past `maxDeliveries` it is copied to
 * the dead-letter stream and acked. After a hard stop these writes are not waited for (the
 * record stays pending if they never land).
 */
import { unlessAbandoned } from './consumer-abandon.js';
import type { AckBuffer } from './consumer-acks.js';
import { errorText, HandlerFailedError, OwnershipLostError } from './consumer-errors.js';
import type { ConsumerEvents } from './consumer-events.js';
import type { ConsumedRecord, ConsumerHandler, ResolvedConsumerOptions } from './consumer-options.js';
import type { ConsumerRedis } from './consumer-redis.js';
import type { StreamEntry } from './consumer-replies.js';

/** Longest error text written to the dead-letter stream. */
const MAX_ERROR_TEXT = 4096;

/** Where the records come from and where their outcomes go. */
export interface RecordsContext {
  memberId: string;
  shard: number;
  key: string;
  options: ResolvedConsumerOptions;
  redis: ConsumerRedis;
  handler: ConsumerHandler;
  events: ConsumerEvents;
  acks: AckBuffer;
  /** Aborted when the member must stop working on the shard at once. */
  signal: AbortSignal;
  /** A fenced write was refused (the shard has a newer owner). */
  lost: (err: OwnershipLostError, ids: string[]) => void;
}

/** Handles the records of one shard for one member. */
export class ShardRecords {
  /** Last error text of records waiting for a retry. */
  private readonly failed = new Map<string, string>();

  constructor(private readonly ctx: RecordsContext) {}

  /** Records waiting for a retry. */
  get failedCount(): number {
    return this.failed.size;
  }

  /**
   * Runs the handler on a record and applies its outcome. A synchronous handler that acks is
   * settled without a promise (the hot path); otherwise the returned promise never rejects.
   */
  handle(entry: StreamEntry, deliveries: number): Promise<void> | undefined {
    const c = this.ctx;
    const record: ConsumedRecord = {
      streamPrefix: c.options.streamPrefix,
      consumerGroup: c.options.consumerGroup,
      memberId: c.memberId,
      shard: c.shard,
      streamKey: c.key,
      id: entry.id,
      fields: entry.fields ?? {},
      deliveryCount: deliveries,
      signal: c.signal,
    };
    let result: unknown;
    try {
      result = c.handler(record);
    } catch (err) {
      return this.fail(entry, deliveries, err);
    }
    if (isThenable(result)) {
      return Promise.resolve(result).then(
        (outcome) => this.settle(entry, deliveries, outcome),
        (err) => this.fail(entry, deliveries, err),
      );
    }
    return this.settle(entry, deliveries, result);
  }

  private settle(entry: StreamEntry, deliveries: number, outcome: unknown): Promise<void> | undefined {
    if (outcome === undefined || outcome === 'ack' || outcome === 'ack-delete') {
      this.failed.delete(entry.id);
      this.ctx.acks.push(entry.id, outcome === 'ack-delete');
      return undefined;
    }
    const cause = outcome === 'retry' ? undefined : new TypeError(`handler returned ${String(outcome)}`);
    return this.fail(entry, deliveries, cause);
  }

  /** Dead-letters a record found past `maxDeliveries` without running the handler. */
  async deadLetterUnhandled(entry: StreamEntry, deliveries: number): Promise<void> {
    const why = this.failed.get(entry.id) ?? 'no handler result (the process stopped or crashed meanwhile)';
    await this.deadLetter(entry, deliveries, why);
  }

  private async fail(entry: StreamEntry, deliveries: number, cause: unknown): Promise<void> {
    const c = this.ctx;
    c.events.error(c.memberId, 'handler', new HandlerFailedError(c.key, entry.id, deliveries, cause));
    const why = errorText(cause);
    if (deliveries >= c.options.maxDeliveries) {
      await this.deadLetter(entry, deliveries, why);
      return;
    }
    this.failed.set(entry.id, why);
    try {
      // Count the backoff from now, not from the delivery: restart the entry's idle clock.
      await unlessAbandoned(c.redis.touch(c.key, c.memberId, [entry.id]), c.signal, 'XCLAIM JUSTID');
    } catch (err) {
      if (err instanceof OwnershipLostError) c.lost(err, [entry.id]);
      else if (!c.signal.aborted) c.events.error(c.memberId, `XCLAIM JUSTID ${c.key}`, err);
    }
  }

  /** Copies the record to the dead-letter stream, then acks it. On failure it stays pending. */
  private async deadLetter(entry: StreamEntry, deliveries: number, why: string): Promise<void> {
    const c = this.ctx;
    const error = why.slice(0, MAX_ERROR_TEXT);
    const fields = [
      ...['dlq.stream', c.key, 'dlq.id', entry.id, 'dlq.group', c.options.consumerGroup],
      ...['dlq.member', c.memberId, 'dlq.deliveryCount', String(deliveries), 'dlq.error', error],
    ];
    for (const [f, v] of Object.entries(entry.fields ?? {})) fields.push(f, v);
    let deadLetterId: string;
    try {
      // The dead-letter stream is in another slot: check the shard is still ours just before.
      await unlessAbandoned(c.redis.checkOwner(c.key), c.signal, 'dead-letter check');
      deadLetterId = await unlessAbandoned(
        c.redis.addDeadLetter(c.options.deadLetterStream, fields),
        c.signal,
        'dead-letter XADD',
      );
    } catch (err) {
      if (err instanceof OwnershipLostError) c.lost(err, [entry.id]);
      else if (!c.signal.aborted) c.events.error(c.memberId, `dead-letter ${c.key}`, err);
      return;
    }
    this.failed.delete(entry.id);
    c.acks.push(entry.id, false);
    c.events.emit('dead-letter', {
      memberId: c.memberId,
      shard: c.shard,
      entryId: entry.id,
      deliveryCount: deliveries,
      error,
      deadLetterId,
    });
  }
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return typeof (v as { then?: unknown } | null)?.then === 'function';
}
