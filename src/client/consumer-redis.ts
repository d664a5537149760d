/**
 * The consumer's Redis commands over ioredis (standalone or Cluster). Every command names one
 * shard key (or the dead-letter key), so all of them are Cluster-safe. Replies are parsed
 * whatever the connection's protocol (RESP2, RESP3 legacy or RESP3 maps). Failures are thrown
 * as `RedisCommandError`, told apart (refused or in doubt) by the Redis port; scripts and INFO go
 * through the port too. What stays on the ioredis client is the consumer's own: stream-group
 * commands and the dedicated connections that block on XREADGROUP.
 */
import { duplicateClient, type IoredisClient, ioredisPort } from '../redis/ioredis-port.js';
import type { RedisPort } from '../redis/port.js';
import type { RedisCommandError } from './errors.js';
import { toRedisCommandError } from './redis-adapter.js';

/** An ioredis client the consumer accepts. */
export type ConsumerClient = IoredisClient;

/** One stream entry; `fields` is null when the entry was deleted while pending. */
export interface StreamEntry {
  id: string;
  fields: Record<string, string> | null;
}

/** One row of `XPENDING … IDLE`. */
export interface PendingEntry {
  id: string;
  consumer: string;
  idleMs: number;
  deliveries: number;
}

/** A dedicated connection for blocking reads (a blocked connection serves nobody else). */
export function dedicatedConnection(client: ConsumerClient): ConsumerClient {
  const conn = duplicateClient(client);
  // Failures reach the read loop as rejected commands; the event would only be noise.
  conn.on('error', () => {});
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

/** Commands of one consumer group. */
export class ConsumerRedis {
  private ackDelSupport: Promise<boolean> | undefined;

  constructor(
    readonly client: ConsumerClient,
    readonly group: string,
    /** Scripts, INFO, and how a failure reads. @default the port over `client` */
    readonly port: RedisPort = ioredisPort(client),
  ) {}

  /** `XREADGROUP GROUP g c COUNT n BLOCK t STREAMS key >` on `conn`. */
  async readNew(conn: ConsumerClient, key: string, consumer: string, count: number, blockMs: number) {
    const args = this.readNewArgs(key, consumer, count, blockMs);
    return parseReadReply(await this.run(`XREADGROUP ${key}`, () => conn.call('XREADGROUP', ...args)));
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
  ): Promise<{ ackError: Error | null; read: StreamEntry[] | RedisCommandError }> {
    const args = this.readNewArgs(key, consumer, count, blockMs);
    const ack = this.sendAck(conn, key, ackIds);
    const read = conn.call('XREADGROUP', ...args).then(
      (reply) => parseReadReply(reply),
      (err) => toRedisCommandError(err, `XREADGROUP ${key}`, this.port),
    );
    return { ackError: await ack, read: await read };
  }

  /**
   * Sends the ack of `ackIds` on `conn` at once, so it is ahead of whatever is sent on `conn`
   * next: `XACK key g ids…` here (the fenced subclass checks the ownership token first).
   * Resolves to its failure, or null. Never rejects.
   */
  protected sendAck(conn: ConsumerClient, key: string, ackIds: readonly string[]): Promise<Error | null> {
    return conn.xack(key, this.group, ...ackIds).then(
      () => null,
      (err) => toRedisCommandError(err, `XACK ${key}`, this.port),
    );
  }

  /** This consumer's own pending entries after `afterId` (`XREADGROUP … STREAMS key <id>`). */
  async readOwnPending(key: string, consumer: string, count: number, afterId: string) {
    const args = ['GROUP', this.group, consumer, 'COUNT', count, 'STREAMS', key, afterId];
    return parseReadReply(await this.run(`XREADGROUP ${key}`, () => this.client.call('XREADGROUP', ...args)));
  }

  /** `XAUTOCLAIM key g c minIdle cursor COUNT n`. */
  async autoClaim(
    key: string,
    consumer: string,
    minIdleMs: number,
    cursor: string,
    count: number,
  ): Promise<{ cursor: string; entries: StreamEntry[] }> {
    const reply = await this.run(`XAUTOCLAIM ${key}`, () =>
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
    const replies = await this.run(`XPENDING ${key}`, () => pipeline.exec());
    replies?.forEach(([err, reply]) => {
      if (err) return;
      for (const row of parsePending(reply)) counts.set(row.id, row.deliveries);
    });
    return counts;
  }

  /** `XPENDING key g IDLE minIdle start + count`: pending entries idle at least `minIdleMs`. */
  async scanPending(key: string, minIdleMs: number, start: string, count: number): Promise<PendingEntry[]> {
    const reply = await this.run(`XPENDING ${key}`, () =>
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
    const reply = await this.run(`XCLAIM ${key}`, () =>
      this.client.call('XCLAIM', key, this.group, consumer, minIdleMs, ...ids),
    );
    return parseEntries(reply);
  }

  /** Restarts the idle clock of `ids` without counting a delivery (`XCLAIM … 0 ids JUSTID`). */
  async touch(key: string, consumer: string, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.run(`XCLAIM ${key}`, () =>
      this.client.call('XCLAIM', key, this.group, consumer, 0, ...ids, 'JUSTID'),
    );
  }

  /** `XACK key g ids…`. */
  async ack(key: string, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.run(`XACK ${key}`, () => this.client.xack(key, this.group, ...ids));
  }

  /** Acks and deletes `ids`: `XACKDEL … KEEPREF` on Redis ≥ 8.2, else `XACK` + `XDEL` in one pipeline. */
  async ackDelete(key: string, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    if (await this.supportsAckDel()) {
      // KEEPREF deletes like XDEL does and leaves other groups' references alone: the fallback's behaviour.
      await this.run(`XACKDEL ${key}`, () =>
        this.client.call('XACKDEL', key, this.group, 'KEEPREF', 'IDS', ids.length, ...ids),
      );
      return;
    }
    const replies = await this.run(`XACK+XDEL ${key}`, () =>
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
    const reply = await this.run(`XADD ${key}`, () => this.client.call('XADD', key, '*', ...fields));
    return text(reply);
  }

  /** True when the server (every master of a Cluster) has `XACKDEL` (Redis ≥ 8.2, by `INFO server`); asked once. */
  supportsAckDel(): Promise<boolean> {
    const unknown = () => {
      this.ackDelSupport = undefined;
      return false;
    };
    this.ackDelSupport ??= (this.port.infoOfMasters?.('server') ?? Promise.resolve([])).then(
      (infos) => (infos.length === 0 ? unknown() : infos.every((info) => supportsAckDelete(String(info)))),
      unknown,
    );
    return this.ackDelSupport;
  }

  /** Plain mode: nothing to check (the fenced subclass checks the shard's ownership token). */
  async checkOwner(_key: string): Promise<void> {}

  protected async run<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw toRedisCommandError(err, what, this.port) as RedisCommandError;
    }
  }
}

/** True when an `INFO server` text reports Redis (or Valkey) ≥ 8.2. */
export function supportsAckDelete(info: string): boolean {
  const m = /^(?:redis_version|valkey_version):(\d+)\.(\d+)/m.exec(info);
  if (!m) return false;
  const major = Number(m[1]);
  const minor = Number(m[2]);
  // Valkey reports its own numbering; only Redis 8.2+ is known to have XACKDEL.
  if (info.includes('valkey_version:') && !info.includes('redis_version:')) return false;
  return major > 8 || (major === 8 && minor >= 2);
}

/** A reply value as text. */
export function text(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
  if (typeof v === 'number') return String(v);
  throw new TypeError('unexpected Redis reply');
}

/** Entries of an XREADGROUP reply for one key, in any reply shape. */
export function parseReadReply(reply: unknown): StreamEntry[] {
  if (reply === null || reply === undefined) return [];
  let perKey: unknown[];
  if (Array.isArray(reply)) {
    // RESP2: [[key, entries], …]; RESP3 legacy through `call`: [key, entries, …] (a flattened map).
    perKey =
      reply.length > 0 && !Array.isArray(reply[0])
        ? reply.filter((_, i) => i % 2 === 1)
        : reply.map((kv) => (kv as unknown[])[1]);
  } else if (reply instanceof Map) {
    perKey = [...reply.values()];
  } else if (typeof reply === 'object') {
    perKey = Object.values(reply as Record<string, unknown>);
  } else {
    throw new TypeError('unexpected XREADGROUP reply');
  }
  return perKey.flatMap(parseEntries);
}

/** `[[id, [f, v, …] | null], …]` → entries. */
export function parseEntries(reply: unknown): StreamEntry[] {
  if (!Array.isArray(reply)) return [];
  const out: StreamEntry[] = [];
  for (const item of reply) {
    if (!Array.isArray(item)) continue;
    const [id, flat] = item as [unknown, unknown];
    if (id === null || id === undefined) continue;
    out.push({ id: text(id), fields: parseFields(flat) });
  }
  return out;
}

function parseFields(flat: unknown): Record<string, string> | null {
  if (flat === null || flat === undefined) return null;
  const fields: Record<string, string> = {};
  if (Array.isArray(flat)) {
    for (let i = 0; i + 1 < flat.length; i += 2) fields[text(flat[i])] = text(flat[i + 1]);
  } else if (typeof flat === 'object') {
    for (const [k, v] of Object.entries(flat as Record<string, unknown>)) fields[k] = text(v);
  }
  return fields;
}

/** Rows of the extended XPENDING form. */
export function parsePending(reply: unknown): PendingEntry[] {
  if (!Array.isArray(reply)) return [];
  return reply.flatMap((row) => {
    if (!Array.isArray(row) || row.length < 4) return [];
    return [{ id: text(row[0]), consumer: text(row[1]), idleMs: Number(row[2]), deliveries: Number(row[3]) }];
  });
}

/** Orders stream ids (`ms-seq`, decimal parts without leading zeros) without allocating. */
export function compareIds(a: string, b: string): number {
  const ia = a.indexOf('-');
  const ib = b.indexOf('-');
  if (ia !== ib) return ia < ib ? -1 : 1;
  for (let i = 0; i < ia; i++) {
    const d = a.charCodeAt(i) - b.charCodeAt(i);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  const la = a.length - ia;
  const lb = b.length - ib;
  if (la !== lb) return la < lb ? -1 : 1;
  for (let i = 1; i < la; i++) {
    const d = a.charCodeAt(ia + i) - b.charCodeAt(ib + i);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return 0;
}
