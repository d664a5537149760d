/**
 * Reading and moving a consumer group's position on shard streams, for the offsets reset
 * (docs/operating.md#replaying-or-skipping-records). Every call names one shard key, so it stays
 * within one Cluster slot; ranges are counted in Redis, a bounded number of entries per call, so
 * no record is sent and no call holds Redis up for long. Failures come back as the store's
 * CoordinatorErrors (503 REDIS_UNAVAILABLE when Redis is unreachable).
 */
import type { RedisPort } from '../redis/port.js';
import type { ConsumerGroupInfo, StreamInfo } from './inspector.js';
import { COUNT_RANGE } from './scripts/count-range.js';
import { READ_SHARDS } from './scripts/read-shards.js';
import { integerOrNull, parseGroups, parseRecord, parseStreamInfo, stringOrNull } from './xinfo-reply.js';

/** A shard stream, and where one consumer group stands on it. */
interface ShardPosition {
  /** `XINFO STREAM`; null when the key is missing or not a stream. */
  stream: StreamInfo | null;
  /** The group's `XINFO GROUPS` entry; null when the group is not on the stream. */
  group: ConsumerGroupInfo | null;
}

/** How many entries a range holds, up to the limit it was counted to. */
interface RangeCount {
  /** Entries counted (the limit when `complete` is false: there are more). */
  count: number;
  /** False when counting stopped at the limit. */
  complete: boolean;
}

/** What the offsets reset asks of Redis about one shard stream. */
export interface GroupPositions {
  /** The stream's ends and counters, and the group's position on it, in one round trip. */
  read(streamKey: string, group: string): Promise<ShardPosition>;
  /** Entries with an id in (`low`, `high`] (`high` inclusive, `+` for the end), counted up to `limit`. */
  count(streamKey: string, low: string, high: string, limit: number): Promise<RangeCount>;
  /** The id of the newest entry before `id` (exclusive); null when there is none. */
  lastBefore(streamKey: string, id: string): Promise<string | null>;
  /** `XGROUP SETID`; `entriesRead` null leaves the group's read counter for Redis to estimate. */
  set(streamKey: string, group: string, id: string, entriesRead: number | null): Promise<void>;
}

/** Entries one counting call walks at most (a short XRANGE inside Redis, nothing sent back). */
const COUNT_CHUNK = 10_000;

/** `GroupPositions` over one Redis port; `failure` maps a client error to the store's error. */
export function redisGroupPositions(port: RedisPort, failure: (err: unknown) => Error): GroupPositions {
  const guarded = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      throw failure(err);
    }
  };
  const script = port.scriptAs.bind(port);
  return {
    read: (streamKey, group) =>
      guarded(async () => {
        const reply = await port.runScript(script(READ_SHARDS, true), [streamKey], ['1']);
        const row = Array.isArray(reply) && Array.isArray(reply[0]) ? (reply[0] as unknown[]) : [];
        const stream = row[0] ? parseStreamInfo(row[0]) : null;
        const groups = row[1] ? parseGroups(row[1]) : [];
        return { stream, group: groups.find((g) => g.name === group) ?? null };
      }),
    count: (streamKey, low, high, limit) =>
      guarded(async () => {
        // One entry past the limit tells "exactly the limit" from "more than that".
        let counted = 0;
        let from = low;
        while (counted <= limit) {
          const want = Math.min(COUNT_CHUNK, limit + 1 - counted);
          const reply = await port.runScript(
            script(COUNT_RANGE, true),
            [streamKey],
            [from, high, String(want)],
          );
          const [n, last] = Array.isArray(reply) ? reply : [];
          const got = integerOrNull(n) ?? 0;
          counted += got;
          if (got < want) return { count: counted, complete: true };
          from = stringOrNull(last) ?? from;
        }
        return { count: limit, complete: false };
      }),
    lastBefore: (streamKey, id) =>
      guarded(async () => {
        // Nothing sorts before 0-0 (and Redis refuses it as an exclusive bound).
        if (id === '0-0') return null;
        const reply = await port.xrevrange(streamKey, `(${id}`, '-', 1);
        return (Array.isArray(reply) ? parseRecord(reply[0]) : null)?.id ?? null;
      }),
    set: (streamKey, group, id, entriesRead) =>
      guarded(() => port.xgroupSetId(streamKey, group, id, entriesRead)),
  };
}
