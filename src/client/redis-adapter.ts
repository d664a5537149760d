/**
 * The narrow Redis port of the producer: the three operations it needs, whatever the client
 * (ioredis on Node and Cluster, @upstash/redis at the edge). Adapters throw or report only
 * `RedisCommandError`, never a client's raw error. No runtime imports: edge-safe.
 */

import {
  type BatchRecord,
  decodeBatchReply,
  idempotentBatchCall,
} from '../store/scripts/idempotent-batch.js';
import type { IdempotentReply, StaleIncarnation } from '../store/scripts/idempotent-publish.js';
import { RedisCommandError } from './errors.js';

/** Fields of one stream entry (written in `Object.entries` order). */
export type EntryFields = Readonly<Record<string, string>>;

/** One plain `XADD key NOMKSTREAM MAXLEN ~|= maxLen * …`. */
export interface XaddWrite {
  kind: 'xadd';
  key: string;
  maxLen: number;
  approx: boolean;
  fields: EntryFields;
}

/** One run of the idempotent-publish script on `key` and the marker of `eventId` there. */
export interface IdempotentWrite {
  kind: 'idempotent';
  key: string;
  eventId: string;
  ttlSeconds: number;
  maxLen: number;
  approx: boolean;
  fields: EntryFields;
}

/** A write to one shard. */
export type ShardWrite = XaddWrite | IdempotentWrite;

/** What became of one write of a pipeline. */
export type WriteOutcome = IdempotentReply | { status: 'error'; error: RedisCommandError };

/** The Redis operations the producer uses. */
export interface ProducerRedis {
  /** `XADD key NOMKSTREAM MAXLEN ~|= maxLen * f v …`: the new entry id, or null when the key does not exist. */
  xaddNoMkStream(key: string, maxLen: number, approx: boolean, fields: EntryFields): Promise<string | null>;
  /** Runs the idempotent-publish script (`runScript`: EVALSHA, EVAL on NOSCRIPT). */
  evalIdempotent(write: Omit<IdempotentWrite, 'kind'>): Promise<IdempotentReply>;
  /**
   * Pipelines a batch given per shard: each group holds the writes for ONE shard key (hence one
   * Cluster slot). On Redis Cluster every group is its own pipeline; where the server allows it
   * (standalone Redis, Upstash) the groups may share one round trip, in the same order. Returns
   * one outcome per write, grouped like the input. Never rejects: failures are outcomes.
   */
  pipelineShards(groups: readonly (readonly ShardWrite[])[]): Promise<WriteOutcome[][]>;
}

/**
 * One call of a pipeline: a single write, or (`batch`) every write of one shard in one run of
 * the idempotent-batch script, in order.
 */
export interface ShardCall {
  writes: readonly ShardWrite[];
  batch: boolean;
}

/**
 * The calls for a batch grouped by shard: a shard with several writes of which any carries an
 * `eventId` becomes one batch-script call (one script run instead of one per record); the rest
 * stay single commands. Calls keep the writes' order, so their outcomes concatenate to it.
 */
export function planCalls(groups: readonly (readonly ShardWrite[])[]): ShardCall[] {
  const calls: ShardCall[] = [];
  for (const g of groups) {
    if (g.length > 1 && g.some((w) => w.kind === 'idempotent')) calls.push({ writes: g, batch: true });
    else for (const w of g) calls.push({ writes: [w], batch: false });
  }
  return calls;
}

/**
 * KEYS and ARGV of the batch-script call for `writes` (one shard; limits shared by all), the
 * markers named with the shard's `incarnation` ('' when not known yet).
 */
export function batchCallOf(
  writes: readonly ShardWrite[],
  incarnation: string,
): { keys: string[]; args: string[] } {
  const first = writes[0]!;
  let ttlSeconds = 1;
  const records: BatchRecord[] = new Array(writes.length);
  for (let i = 0; i < writes.length; i++) {
    const w = writes[i]!;
    if (w.kind === 'idempotent') ttlSeconds = w.ttlSeconds;
    records[i] = { eventId: w.kind === 'idempotent' ? w.eventId : undefined, fields: w.fields };
  }
  return idempotentBatchCall(first.key, incarnation, ttlSeconds, first.maxLen, first.approx, records);
}

/** What a write is, for error messages. */
export function describeWrite(w: ShardWrite): string {
  return `${w.kind === 'xadd' ? 'XADD' : 'idempotent publish to'} ${w.key}`;
}

/**
 * Per-write outcomes of a batch-script reply (a refused record's error is named like the client's
 * error replies), or the shard's incarnation when the call was named with another one (then
 * nothing was written).
 */
export function batchOutcomes(
  raw: unknown,
  writes: readonly ShardWrite[],
  replyErrorName: string,
): WriteOutcome[] | StaleIncarnation {
  const replies = decodeBatchReply(raw, writes.length);
  const outcomes: WriteOutcome[] = new Array(replies.length);
  for (let i = 0; i < replies.length; i++) {
    const r = replies[i]!;
    // The script answers this for every record, having written none.
    if (r.status === 'stale') return r;
    if (r.status !== 'refused') {
      outcomes[i] = r;
      continue;
    }
    const err = new Error(r.text);
    err.name = replyErrorName;
    const error = toRedisCommandError(err, describeWrite(writes[i]!), [replyErrorName]);
    outcomes[i] = { status: 'error', error };
  }
  return outcomes;
}

/** Arguments after the key of a producer XADD. */
export function xaddArgs(maxLen: number, approx: boolean, fields: EntryFields): string[] {
  const args = ['NOMKSTREAM', 'MAXLEN', approx ? '~' : '=', String(maxLen), '*'];
  // for…in over own keys visits them in the same order as Object.entries, without its arrays.
  for (const f in fields) if (Object.hasOwn(fields, f)) args.push(f, fields[f]!);
  return args;
}

/** Splits `flat` (the outcomes of the concatenated groups) back into groups shaped like `groups`. */
export function splitByGroups<T>(flat: readonly T[], groups: readonly (readonly unknown[])[]): T[][] {
  const out: T[][] = [];
  let at = 0;
  for (const g of groups) {
    out.push(flat.slice(at, at + g.length));
    at += g.length;
  }
  return out;
}

/** Maps an XADD reply (entry id or nil) to an outcome. */
export function xaddOutcome(reply: unknown): IdempotentReply {
  if (reply === null || reply === undefined) return { status: 'missing' };
  if (typeof reply === 'string') return { status: 'added', entryId: reply };
  if (reply instanceof Uint8Array) return { status: 'added', entryId: new TextDecoder().decode(reply) };
  throw new TypeError('unexpected XADD reply');
}

// Redis answers with these while it cannot serve for a moment (failover, loading, a busy script,
// slot migration, memory pressure, a flushed script cache: the script did not run and the
// adapters load it again): the same command can succeed later.
const TRANSIENT_REPLY =
  /^(LOADING|READONLY|CLUSTERDOWN|TRYAGAIN|MASTERDOWN|BUSY|MOVED|ASK|OOM|NOREPLICAS|NOSCRIPT)\b/;

/**
 * Wraps a failure of a Redis client. `replyErrorNames` are the client's error names for an
 * error *reply* — Redis saw the command and refused it, so nothing was written; any other
 * failure (connection lost, timeout) may have happened after the command was applied.
 */
export function toRedisCommandError(
  err: unknown,
  what: string,
  replyErrorNames: readonly string[],
): RedisCommandError {
  if (err instanceof RedisCommandError) return err;
  const name = err instanceof Error ? err.name : '';
  const raw = err instanceof Error ? err.message : String(err);
  // Keep the first line; @upstash/redis appends the whole command (record payload) after it.
  const text = (raw.split('\n')[0] ?? '').replace(/, command was: [\s\S]*$/, '').slice(0, 300);
  if (replyErrorNames.includes(name) && /^[A-Z][A-Z_-]+( |$)/.test(text)) {
    return new RedisCommandError(`${what}: Redis refused it: ${text}`, {
      retriable: TRANSIENT_REPLY.test(text),
      inDoubt: false,
      cause: err,
    });
  }
  return new RedisCommandError(`${what}: no reply from Redis (${name || 'Error'}: ${text})`, {
    // Retriable: a lost connection or a timeout passes (`inDoubt` says a repeat may duplicate).
    retriable: true,
    inDoubt: true,
    cause: err,
  });
}
