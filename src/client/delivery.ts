/**
 * Delivery rounds shared by `publish` and `publishBatch`: route every pending record, write a
 * lone record with one call and several as one pipelined batch grouped by shard, then sort the
 * outcomes — done, stale route (key missing: invalidate, refetch, retry), retryable Redis
 * failure (retry; an idempotent record in doubt stays on its shard), or final failure. Bounded
 * by `maxAttempts` rounds. Batches are hot: one mutable object per record, no per-record closures.
 */

import { ClientError, RedisCommandError, RoutingUnavailableError, StreamMissingError } from './errors.js';
import type { InDoubtShards } from './in-doubt.js';
import type { EntryFields, ProducerRedis, ShardWrite, WriteOutcome } from './redis-adapter.js';
import { chooseShard, type ShardTarget } from './routing.js';
import type { RoutingCache } from './routing-cache.js';

/** Where a record landed. */
export interface PublishResult {
  /** Shard stream the entry is in. */
  streamKey: string;
  /** Index of that shard. */
  shardIndex: number;
  /** Stream entry id (for a repeated `eventId`: the id of the first publish). */
  entryId: string;
  /** True when `eventId` had been published before and nothing new was written. */
  duplicate: boolean;
}

/** One validated record on its way; `deliver` fills in its outcome. */
export interface Delivery {
  readonly partitionKey: string | Uint8Array;
  readonly fields: EntryFields;
  readonly eventId: string | undefined;
  /** Shard of the latest attempt. */
  target?: ShardTarget;
  /** Shard an in-doubt idempotent attempt went to: later attempts must go there too. */
  sticky?: ShardTarget;
  /** Set on success. */
  entryId?: string;
  duplicate?: boolean;
  /** Set on final failure. */
  error?: ClientError;
  /** Why the latest attempt has to be repeated. */
  retry?: { kind: 'missing'; streamKey: string } | { kind: 'error'; error: ClientError };
}

/** What `deliver` needs. */
export interface DeliveryContext {
  cache: RoutingCache;
  redis: ProducerRedis;
  inDoubt: InDoubtShards;
  maxAttempts: number;
  maxLen: number;
  approx: boolean;
  idempotencyTtlSeconds: number;
  retryBackoffMs: number;
  /** Longest one delivery waits for Redis in all, ms of real time (then what is unwritten fails, in doubt). */
  redisTimeoutMs: number;
}

/** The result of a delivered record (call only when `entryId` is set). */
export function resultOf(d: Delivery): PublishResult {
  return {
    streamKey: d.target!.streamKey,
    shardIndex: d.target!.shardIndex,
    entryId: d.entryId!,
    duplicate: !!d.duplicate,
  };
}

/** Runs delivery rounds until every record has an `entryId` or an `error`. */
export async function deliver(deliveries: readonly Delivery[], ctx: DeliveryContext): Promise<void> {
  let pending: Delivery[] = deliveries.slice();
  let round = 0;
  // Real time, not the routing clock (`now`, which tests move by minutes).
  const deadline = performance.now() + ctx.redisTimeoutMs;
  while (pending.length > 0 && round < ctx.maxAttempts && performance.now() < deadline) {
    round++;
    if (round > 1 && pending.some(isErrorRetry)) await sleep(backoff(ctx.retryBackoffMs, round));
    let routing: Awaited<ReturnType<RoutingCache['current']>>;
    try {
      routing = await ctx.cache.current();
    } catch (err) {
      const error = asClientError(err);
      for (const d of pending) d.error = error;
      return;
    }
    const byKey = new Map<string, Delivery[]>();
    for (const d of pending) {
      // In-call memory first (never evicted), then what earlier calls left in doubt.
      const remembered = d.eventId === undefined ? undefined : (d.sticky ?? ctx.inDoubt.get(d.eventId));
      try {
        d.target = remembered ?? chooseShard(routing, d.partitionKey);
      } catch (err) {
        d.error = asClientError(err);
        continue;
      }
      const group = byKey.get(d.target.streamKey);
      if (group) group.push(d);
      else byKey.set(d.target.streamKey, [d]);
    }
    const groups = [...byKey.values()];
    const outcomes = await withinDeadline(
      send(groups, ctx),
      groups,
      deadline - performance.now(),
      ctx.redisTimeoutMs,
    );
    const next: Delivery[] = [];
    let staleRoute = false;
    for (let g = 0; g < groups.length; g++) {
      const group = groups[g]!;
      const out = outcomes[g]!;
      for (let i = 0; i < group.length; i++) {
        const d = group[i]!;
        if (settle(d, out[i]!, ctx)) continue;
        next.push(d);
        // Also for a remembered in-doubt shard: routing that still lists a missing key is stale.
        if (d.retry?.kind === 'missing') staleRoute = true;
      }
    }
    if (staleRoute) ctx.cache.invalidate(routing);
    pending = next;
  }
  for (const d of pending) {
    const why = d.retry;
    d.error =
      why?.kind === 'missing'
        ? new StreamMissingError(why.streamKey, round)
        : (why?.error ?? new RoutingUnavailableError('no delivery attempt was made'));
  }
}

/**
 * `sending`, or — when Redis has not answered within `ms` — an in-doubt, retriable error for every
 * record of `groups`: a Redis that is down (ioredis queues commands while it reconnects) must not
 * hold a publish forever. A write that went out may still be applied later, hence in doubt.
 */
async function withinDeadline(
  sending: Promise<WriteOutcome[][]>,
  groups: Delivery[][],
  ms: number,
  totalMs: number,
): Promise<WriteOutcome[][]> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<WriteOutcome[][]>((resolve) => {
    timer = setTimeout(
      () => {
        const error = new RedisCommandError(
          `Redis did not answer within ${totalMs} ms (redisTimeoutMs); the write may still be applied`,
          { retriable: true, inDoubt: true },
        );
        resolve(groups.map((g) => g.map(() => ({ status: 'error', error }))));
      },
      Math.max(0, ms),
    );
  });
  try {
    return await Promise.race([sending, late]);
  } finally {
    clearTimeout(timer);
  }
}

function isErrorRetry(d: Delivery): boolean {
  return d.retry?.kind === 'error';
}

/** Applies one outcome; true when the record is finished (success or final failure). */
function settle(d: Delivery, outcome: WriteOutcome, ctx: DeliveryContext): boolean {
  switch (outcome.status) {
    case 'added':
    case 'duplicate':
      if (d.eventId !== undefined) ctx.inDoubt.forget(d.eventId);
      d.entryId = outcome.entryId;
      d.duplicate = outcome.status === 'duplicate';
      return true;
    case 'missing':
      // The shard is gone, so nothing of an earlier attempt can be there: route afresh.
      if (d.eventId !== undefined) ctx.inDoubt.forget(d.eventId);
      d.sticky = undefined;
      d.retry = { kind: 'missing', streamKey: d.target!.streamKey };
      return false;
    case 'error':
      if (outcome.error.inDoubt && d.eventId !== undefined) {
        d.sticky ??= d.target;
        ctx.inDoubt.remember(d.eventId, d.sticky!);
      }
      if (!outcome.error.retriable) {
        d.error = outcome.error;
        return true;
      }
      d.retry = { kind: 'error', error: outcome.error };
      return false;
  }
}

/** Writes the records, grouped by shard: a direct call for a lone record, else one pipelined batch. */
async function send(groups: Delivery[][], ctx: DeliveryContext): Promise<WriteOutcome[][]> {
  if (groups.length === 0) return [];
  if (groups.length > 1 || groups[0]!.length > 1) {
    const writes: ShardWrite[][] = [];
    for (const group of groups) {
      const ws: ShardWrite[] = new Array(group.length);
      for (let i = 0; i < group.length; i++) ws[i] = toWrite(group[i]!, ctx);
      writes.push(ws);
    }
    return ctx.redis.pipelineShards(writes);
  }
  const w = toWrite(groups[0]![0]!, ctx);
  try {
    if (w.kind === 'xadd') {
      const id = await ctx.redis.xaddNoMkStream(w.key, w.maxLen, w.approx, w.fields);
      return [[id === null ? { status: 'missing' } : { status: 'added', entryId: id }]];
    }
    return [[await ctx.redis.evalIdempotent(w)]];
  } catch (err) {
    const error =
      err instanceof RedisCommandError
        ? err
        : new RedisCommandError(`write to ${w.key} failed in the Redis adapter`, {
            // Not retriable: an adapter that throws something else is broken, not busy.
            retriable: false,
            inDoubt: true,
            cause: err,
          });
    return [[{ status: 'error', error }]];
  }
}

function toWrite(d: Delivery, ctx: DeliveryContext): ShardWrite {
  const key = d.target!.streamKey;
  if (d.eventId === undefined)
    return { kind: 'xadd', key, maxLen: ctx.maxLen, approx: ctx.approx, fields: d.fields };
  return {
    kind: 'idempotent',
    key,
    eventId: d.eventId,
    ttlSeconds: ctx.idempotencyTtlSeconds,
    maxLen: ctx.maxLen,
    approx: ctx.approx,
    fields: d.fields,
  };
}

function asClientError(err: unknown): ClientError {
  if (err instanceof ClientError) return err;
  return new RoutingUnavailableError('producer routing failed unexpectedly', err);
}

/** Exponential backoff with jitter before retry round `round` (≥ 2). */
function backoff(baseMs: number, round: number): number {
  const ceiling = baseMs * 2 ** (round - 2);
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

function sleep(ms: number): Promise<void> {
  return ms <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, ms));
}
