/**
 * The consumer's Redis commands over ioredis (standalone or Cluster). Every command names one
 * shard key (or the dead-letter key), so all of them are Cluster-safe. Failures are thrown as
 * `RedisCommandError`, told apart (refused or in doubt) by the Redis port; a command Redis has
 * not answered within `redisTimeoutMs` fails as in doubt (consumer-redis-wait.ts), and NOGROUP
 * on a shard as `ShardGroupMissingError`. Scripts and INFO go through the port too. What stays
 * on the ioredis client is the consumer's own: stream-group commands and the dedicated
 * connections that block on XREADGROUP.
 */
import {
  duplicateClient,
  type IoredisClient,
  ioredisPort,
  onConnectionErrors,
} from '../redis/ioredis-port.js';
import type { RedisPort } from '../redis/port.js';
import { serverAddress } from './connection-report.js';
import { ShardGroupMissingError } from './consumer-errors.js';
import { withinRedisTimeout } from './consumer-redis-wait.js';
import {
  type PendingEntry,
  parseEntries,
  parsePending,
  parseReadReply,
  type StreamEntry,
  supportsAckDelete,
  text,
} from './consumer-replies.js';
import type { RedisCommandError } from './errors.js';
import { toRedisCommandError } from './redis-adapter.js';

/** An ioredis client the consumer accepts. */
export type ConsumerClient = IoredisClient;

/**
 * A dedicated connection for blocking reads (a blocked connection serves nobody else). Its
 * connection errors go to `onError` (ioredis would print a stack trace per attempt without a
 * listener); failures reach the read loop as rejected commands anyway.
 */
export function dedicatedConnection(
  client: ConsumerClient,
  onError: (err: unknown) => void = () => {},
): ConsumerClient {
  const conn = duplicateClient(client);
  onConnectionErrors(conn, onError);
  return conn;
}

/** Closes a dedicated connection at once (a blocked read is abandoned; its entries stay pending). */
export function closeConnection(conn: ConsumerClient): void {
  try {
    conn.disconnect();
  } catch {
    // already closed
  }
}

/** How long the consumer waits for Redis, and where connection errors go. */
export interface ConsumerRedisSettings {
  /** Longest wait for one reply, ms (a blocking read: its BLOCK time plus this). @default 10000 */
  timeoutMs?: number | undefined;
  /** Connection errors of the dedicated read connections. @default ignored */
  onConnectionError?: ((err: unknown) => void) | undefined;
}

/** Default of `redisTimeoutMs`. */
const DEFAULT_REDIS_TIMEOUT_MS = 10_000;

/** Commands of one consumer group. */
export class ConsumerRedis {
  private ackDelSupport: Promise<boolean> | undefined;
  /** Longest wait for one reply, ms. */
  readonly timeoutMs: number;

  constructor(
    readonly client: ConsumerClient,
    readonly group: string,
    /** Scripts, INFO, and how a failure reads. @default the port over `client` */
    readonly port: RedisPort = ioredisPort(client),
    readonly settings: ConsumerRedisSettings = {},
  ) {
    this.timeoutMs = settings.timeoutMs ?? DEFAULT_REDIS_TIMEOUT_MS;
  }

  /** A new dedicated connection for the blocking reads of one shard. */
  dedicated(): ConsumerClient {
    return dedicatedConnection(this.client, this.settings.onConnectionError);
  }

  /** `XREADGROUP GROUP g c COUNT n BLOCK t STREAMS key >` on `conn`. */
  async readNew(conn: ConsumerClient, key: string, consumer: string, count: number, blockMs: number) {
    const args = this.readNewArgs(key, consumer, count, blockMs);
    const read = () => conn.call('XREADGROUP', ...args);
    return parseReadReply(await this.run(`XREADGROUP ${key}`, key, read, blockMs));
  }

  /** `GROUP g consumer COUNT n BLOCK ms STREAMS key >`: the arguments of reading new entries. */
  protected readNewArgs(
    key: string,
    consumer: string,
    count: number,
    blockMs: number,
  ): Array<string | number> {
    return ['GROUP', this.group, consumer, 'COUNT', count, 'BLOCK', blockMs, 'STREAMS', key, '>'];
  }

  /**
   * The ack of `ackIds` then `XREADGROUP … BLOCK … STREAMS key >`, sent back to back on `conn`:
   * Redis applies the ack before the read blocks, and the ack's reply does not wait for the
   * read. (Plain commands rather than a pipeline: cheaper per batch.) Never rejects.
   */
  async ackAndReadNew(
    conn: ConsumerClient,
    key: string,
    consumer: string,
    count: number,
    blockMs: number,
    ackIds: readonly string[],
  ): Promise<{ ackError: Error | null; read: StreamEntry[] | Error }> {
    const args = this.readNewArgs(key, consumer, count, blockMs);
    const ack = this.sendAck(conn, key, ackIds);
    const read = this.run(`XREADGROUP ${key}`, key, () => conn.call('XREADGROUP', ...args), blockMs).then(
      parseReadReply,
      (err: Error) => err,
    );
    return { ackError: await ack, read: await read };
  }

  /**
   * Sends the ack of `ackIds` on `conn` at once, so it is ahead of whatever is sent on `conn`
   * next: `XACK key g ids…` here (the fenced subclass checks the ownership token first).
   * Resolves to its failure, or null. Never rejects.
   */
  protected sendAck(conn: ConsumerClient, key: string, ackIds: readonly string[]): Promise<Error | null> {
    return this.run(`XACK ${key}`, key, () => conn.xack(key, this.group, ...ackIds)).then(
      () => null,
      (err: Error) => err,
    );
  }

  /** This consumer's own pending entries after `afterId` (`XREADGROUP … STREAMS key <id>`). */
  async readOwnPending(key: string, consumer: string, count: number, afterId: string) {
    const args = ['GROUP', this.group, consumer, 'COUNT', count, 'STREAMS', key, afterId];
    return parseReadReply(
      await this.run(`XREADGROUP ${key}`, key, () => this.client.call('XREADGROUP', ...args)),
    );
  }

  /** `XAUTOCLAIM key g c minIdle cursor COUNT n`. */
  async autoClaim(
    key: string,
    consumer: string,
    minIdleMs: number,
    cursor: string,
    count: number,
  ): Promise<{ cursor: string; entries: StreamEntry[] }> {
    const reply = await this.run(`XAUTOCLAIM ${key}`, key, () =>
      this.client.call('XAUTOCLAIM', key, this.group, consumer, minIdleMs, cursor, 'COUNT', count),
    );
    const [next, entries] = reply as [unknown, unknown];
    return { cursor: text(next), entries: parseEntries(entries) };
  }

  /** Delivery counters of `ids` (pending under anyone), one pipelined `XPENDING id id 1` each. */
  async deliveryCounts(key: string, ids: readonly string[]): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    if (ids.length === 0) return counts;
    const pipeline = this.client.pipeline();
    for (const id of ids) pipeline.call('XPENDING', key, this.group, id, id, 1);
    const replies = await this.run(`XPENDING ${key}`, key, () => pipeline.exec());
    replies?.forEach(([err, reply]) => {
      if (err) return;
      for (const row of parsePending(reply)) counts.set(row.id, row.deliveries);
    });
    return counts;
  }

  /** `XPENDING key g IDLE minIdle start + count`: pending entries idle at least `minIdleMs`. */
  async scanPending(key: string, minIdleMs: number, start: string, count: number): Promise<PendingEntry[]> {
    const reply = await this.run(`XPENDING ${key}`, key, () =>
      this.client.call('XPENDING', key, this.group, 'IDLE', minIdleMs, start, '+', count),
    );
    return parsePending(reply);
  }

  /** `XCLAIM key g c minIdle ids…`: the claimed entries (delivery counters incremented). */
  async claim(
    key: string,
    consumer: string,
    minIdleMs: number,
    ids: readonly string[],
  ): Promise<StreamEntry[]> {
    if (ids.length === 0) return [];
    const reply = await this.run(`XCLAIM ${key}`, key, () =>
      this.client.call('XCLAIM', key, this.group, consumer, minIdleMs, ...ids),
    );
    return parseEntries(reply);
  }

  /** Restarts the idle clock of `ids` without counting a delivery (`XCLAIM … 0 ids JUSTID`). */
  async touch(key: string, consumer: string, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.run(`XCLAIM ${key}`, key, () =>
      this.client.call('XCLAIM', key, this.group, consumer, 0, ...ids, 'JUSTID'),
    );
  }

  /** `XACK key g ids…`. */
  async ack(key: string, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.run(`XACK ${key}`, key, () => this.client.xack(key, this.group, ...ids));
  }

  /** Acks and deletes `ids`: `XACKDEL … KEEPREF` on Redis ≥ 8.2, else `XACK` + `XDEL` in one pipeline. */
  async ackDelete(key: string, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    if (await this.supportsAckDel()) {
      // KEEPREF deletes like XDEL does and leaves other groups' references alone: the fallback's behaviour.
      await this.run(`XACKDEL ${key}`, key, () =>
        this.client.call('XACKDEL', key, this.group, 'KEEPREF', 'IDS', ids.length, ...ids),
      );
      return;
    }
    const replies = await this.run(`XACK+XDEL ${key}`, key, () =>
      this.client
        .pipeline()
        .xack(key, this.group, ...ids)
        .xdel(key, ...ids)
        .exec(),
    );
    const failed = replies?.find(([err]) => err);
    if (failed?.[0]) throw toRedisCommandError(failed[0], `XACK+XDEL ${key}`, this.port);
  }

  /** `XADD deadLetterKey * fields…`; the new entry id. */
  async addDeadLetter(key: string, fields: readonly string[]): Promise<string> {
    const reply = await this.run(`XADD ${key}`, key, () => this.client.call('XADD', key, '*', ...fields));
    return text(reply);
  }

  /** True when the server (every master of a Cluster) has `XACKDEL` (Redis ≥ 8.2, by `INFO server`); asked once. */
  supportsAckDel(): Promise<boolean> {
    const unknown = () => {
      this.ackDelSupport = undefined;
      return false;
    };
    const asking = this.port.infoOfMasters?.('server') ?? Promise.resolve([]);
    this.ackDelSupport ??= withinRedisTimeout(asking, this.timeoutMs, 'INFO server').then(
      (infos) => (infos.length === 0 ? unknown() : infos.every((info) => supportsAckDelete(String(info)))),
      unknown,
    );
    return this.ackDelSupport;
  }

  /** Plain mode: nothing to check (the fenced subclass checks the shard's ownership token). */
  async checkOwner(_key: string): Promise<void> {}

  /**
   * Runs one command on `key` and waits for it at most `timeoutMs` (plus `blockMs` for a blocking
   * read). Throws `RedisCommandError`, or `ShardGroupMissingError` when Redis answers NOGROUP.
   */
  protected async run<T>(what: string, key: string, fn: () => Promise<T>, blockMs = 0): Promise<T> {
    const setting = blockMs > 0 ? 'blockMs + redisTimeoutMs' : 'redisTimeoutMs';
    try {
      return await withinRedisTimeout(fn(), this.timeoutMs + blockMs, what, setting);
    } catch (err) {
      throw this.failure(err, what, key);
    }
  }

  /** A failure of a command on `key` as the SDK reports it. */
  private failure(err: unknown, what: string, key: string): RedisCommandError | ShardGroupMissingError {
    const e = toRedisCommandError(err, what, this.port);
    if (e.inDoubt || !this.port.replyText(e.cause)?.startsWith('NOGROUP')) return e;
    return new ShardGroupMissingError(key, this.group, serverAddress(this.client), e);
  }
}
