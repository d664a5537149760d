/**
 * The producer's Redis operations: the three it needs, over the Redis port whatever the client
 * (ioredis on Node and Cluster, @upstash/redis at the edge; src/redis/). The adapter throws or
 * reports only `RedisCommandError`, never a client's raw error. No runtime import of a client:
 * edge-safe.
 */

import type { RedisPort } from '../redis/port.js';
import { xaddArguments } from '../redis/replies.js';
import {
  type BatchRecord,
  decodeBatchReply,
  IDEMPOTENT_BATCH,
  idempotentBatchCall,
} from '../store/scripts/idempotent-batch.js';
import {
  IDEMPOTENT_PUBLISH,
  type IdempotentReply,
  type StaleIncarnation,
} from '../store/scripts/idempotent-publish.js';
import type { LuaScript } from '../store/scripts/lua-script.js';
import { RedisCommandError } from './errors.js';
import { producerScripts } from './producer-scripts.js';

/** Fields of one stream entry (written in `Object.entries` order). */
export type EntryFields = Readonly<Record<string, string>>;

/** One plain `XADD key NOMKSTREAM MAXLEN ~|= maxLen * …`. */
interface XaddWrite {
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
 * `eventId` (or any at all, with `batchPlain`) becomes one batch-script call (one script run
 * instead of one per record); the rest stay single commands. Calls keep the writes' order, so
 * their outcomes concatenate to it.
 */
function planCalls(groups: readonly (readonly ShardWrite[])[], batchPlain: boolean): ShardCall[] {
  const calls: ShardCall[] = [];
  for (const g of groups) {
    if (g.length > 1 && (batchPlain || g.some((w) => w.kind === 'idempotent')))
      calls.push({ writes: g, batch: true });
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
 * Per-write outcomes of a batch-script reply (a refused record is Redis's error reply), or the
 * shard's incarnation when the call was named with another one (then nothing was written).
 */
export function batchOutcomes(
  raw: unknown,
  writes: readonly ShardWrite[],
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
    const error = toRedisCommandError(new Error(r.text), describeWrite(writes[i]!), {
      replyText: () => r.text,
    });
    outcomes[i] = { status: 'error', error };
  }
  return outcomes;
}

/** Arguments after the key of a producer XADD. */
export function xaddArgs(maxLen: number, approx: boolean, fields: EntryFields): string[] {
  return xaddArguments({ maxLen, approx, fields });
}

/** Splits `flat` (the outcomes of the concatenated groups) back into groups shaped like `groups`. */
function splitByGroups<T>(flat: readonly T[], groups: readonly (readonly unknown[])[]): T[][] {
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
// adapter loads it again): the same command can succeed later.
const TRANSIENT_REPLY =
  /^(LOADING|READONLY|CLUSTERDOWN|TRYAGAIN|MASTERDOWN|BUSY|MOVED|ASK|OOM|NOREPLICAS|NOSCRIPT)\b/;

/**
 * Wraps a failure of a Redis client. `reading` tells an error *reply* — Redis saw the command and
 * refused it, so nothing was written — from any other failure (connection lost, timeout), which
 * may have happened after the command was applied: the port's `replyText`, or the client's names
 * for an error reply.
 */
export function toRedisCommandError(
  err: unknown,
  what: string,
  reading: readonly string[] | Pick<RedisPort, 'replyText'>,
): RedisCommandError {
  if (err instanceof RedisCommandError) return err;
  const name = err instanceof Error ? err.name : '';
  const raw = err instanceof Error ? err.message : String(err);
  // Keep the first line; @upstash/redis appends the whole command (record payload) after it.
  const cleaned = (raw.split('\n')[0] ?? '').replace(/, command was: [\s\S]*$/, '');
  const reply = 'replyText' in reading ? reading.replyText(err) : reading.includes(name) ? cleaned : null;
  const text = (reply ?? cleaned).slice(0, 300);
  if (reply !== null && /^[A-Z][A-Z_-]+( |$)/.test(text)) {
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

/** Options of `producerAdapter`. */
export interface ProducerAdapterOptions {
  /** @internal tests swap in an unknown script to exercise the NOSCRIPT fallback. @default the idempotent-publish script */
  idempotentScript?: LuaScript;
  /** @internal the same for batches. @default the idempotent-batch script */
  batchScript?: LuaScript;
  /**
   * Append a batch's plain records (no `eventId`) of one shard in one script call too, instead of
   * one XADD each: one billed command per shard where every command is billed (the Upstash
   * adapter's default). @default false
   */
  batchPlainWrites?: boolean;
  /**
   * Where one script may name keys of any slot (standalone Redis, Upstash; never a Cluster), send
   * a batch that would take more than one command as ONE batch-script call, a segment per shard:
   * one billed command per batch (the Upstash adapter's default). Records, replies and
   * stale-route refusals stay per record, in input order. @default false
   */
  oneCallPerBatch?: boolean;
}

/**
 * The producer's operations over `port`. Both scripts touch only the keys they are passed (the
 * shards' of the call), so Upstash may run them under per-key locks when its port is told to. On a Cluster
 * each pipeline holds the writes for one shard key (plus its hash-tagged marker), so it is
 * slot-safe; where one pipeline may span slots, a batch's shards go out as one round trip.
 */
export function producerAdapter(port: RedisPort, opts: ProducerAdapterOptions = {}): ProducerRedis {
  const scripts = producerScripts(port, {
    idempotent: port.scriptAs(opts.idempotentScript ?? IDEMPOTENT_PUBLISH, true),
    batch: port.scriptAs(opts.batchScript ?? IDEMPOTENT_BATCH, true),
  });
  const batchPlain = opts.batchPlainWrites ?? false;
  const oneCall = (opts.oneCallPerBatch ?? false) && port.oneSlot;
  return {
    async xaddNoMkStream(key, maxLen, approx, fields) {
      try {
        return await port.xadd({ key, maxLen, approx, fields });
      } catch (err) {
        throw toRedisCommandError(err, `XADD ${key}`, port);
      }
    },

    evalIdempotent: scripts.evalIdempotent,

    pipelineShards(groups) {
      return inParts(groups, sendPart);
    },
  };

  async function sendPart(groups: readonly (readonly ShardWrite[])[]): Promise<WriteOutcome[][]> {
    // A Cluster pipeline must stay within one slot: one per shard, sent concurrently.
    if (!port.oneSlot) {
      return Promise.all(
        groups.map(async (g) => (await scripts.pipeline(planCalls([g], batchPlain))).flat()),
      );
    }
    const calls = planCalls(groups, batchPlain);
    if (oneCall && calls.length > 1) {
      const shards = groups.filter((g) => g.length > 0);
      const outcomes = await scripts.together(shards);
      let next = 0;
      return groups.map((g) => (g.length > 0 ? outcomes[next++]! : []));
    }
    // Elsewhere the whole batch is one round trip (measured ~10% faster on standalone Redis).
    return splitByGroups((await scripts.pipeline(calls)).flat(), groups);
  }
}

/**
 * Records one call or pipeline of a batch carries at most. A batch-script call holds Redis about
 * 6 µs a record, so 1,000 records keep any one call near 6 ms (docs/producing.md).
 */
const MAX_RECORDS_PER_CALL = 1_000;

/**
 * Sends a batch in parts of at most MAX_RECORDS_PER_CALL records, one part after another, each
 * through `send` (a batch that fits is a single part, sent as it is). The shards' records are
 * taken in order, so a shard split between two parts has its first records in the earlier one;
 * once a part answers a shard's record with a retriable error, that shard's later records are not
 * sent (they fail retriable, not in doubt), so a retry cannot land them out of order.
 */
export async function inParts(
  groups: readonly (readonly ShardWrite[])[],
  send: (part: readonly (readonly ShardWrite[])[]) => Promise<WriteOutcome[][]>,
): Promise<WriteOutcome[][]> {
  let total = 0;
  for (const g of groups) total += g.length;
  if (total <= MAX_RECORDS_PER_CALL) return send(groups);
  const out: WriteOutcome[][] = groups.map(() => []);
  const held = new Map<number, RedisCommandError>();
  let gi = 0;
  let at = 0;
  while (gi < groups.length) {
    const owners: number[] = [];
    const slices: (readonly ShardWrite[])[] = [];
    for (let room = MAX_RECORDS_PER_CALL; gi < groups.length && room > 0; ) {
      const g = groups[gi]!;
      const take = Math.min(room, g.length - at);
      if (take > 0) {
        owners.push(gi);
        slices.push(g.slice(at, at + take));
        room -= take;
        at += take;
      }
      if (at >= g.length) {
        gi++;
        at = 0;
      }
    }
    const sent = owners.flatMap((o, j) => (held.has(o) ? [] : [j]));
    const answers = sent.length > 0 ? await send(sent.map((j) => slices[j]!)) : [];
    const answerOf = new Map(sent.map((j, k) => [j, answers[k]!]));
    owners.forEach((o, j) => {
      const answer = answerOf.get(j);
      if (!answer) {
        const error = held.get(o)!;
        for (const _ of slices[j]!) out[o]!.push({ status: 'error', error });
        return;
      }
      out[o]!.push(...answer);
      if (answer.some((a) => a.status === 'error' && a.error.retriable))
        held.set(o, heldBack(slices[j]![0]!.key));
    });
  }
  return out;
}

/** Why the rest of a shard's batch was not sent after an earlier part of it failed. */
function heldBack(key: string): RedisCommandError {
  return new RedisCommandError(
    `batch to ${key}: not sent, since an earlier part of this shard's batch failed; nothing of it was written`,
    { retriable: true, inDoubt: false },
  );
}
