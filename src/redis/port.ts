/**
 * The one Redis seam of the project: the commands the store, the inspector, the producer and the
 * consumer's scripts send, whatever the client. Implemented once for ioredis, standalone or
 * Cluster (ioredis-port.ts), and once for @upstash/redis (upstash-port.ts); what differs between
 * the clients (Cluster slots, error classes, Upstash's script flag and error texts, which
 * server-wide commands there are) is known there and nowhere else. Capabilities one client lacks
 * are optional members. No runtime imports: the Worker and the edge producer bundle it.
 */
import type { LuaScript } from '../store/scripts/lua-script.js';

/** One `XADD key NOMKSTREAM MAXLEN ~|= maxLen * field value …`. */
export interface XaddSpec {
  key: string;
  maxLen: number;
  approx: boolean;
  /** Written in `Object.entries` order. */
  fields: Readonly<Record<string, string>>;
}

/** One `[error, reply]` of a pipeline, in the order the commands were queued. */
export type PipelineReply = readonly [Error | null, unknown];

/** One pipeline (a round trip of several commands, not a transaction). */
export interface RedisPipeline {
  scriptLoad(lua: string): void;
  evalsha(sha1: string, keys: string[], args: string[]): void;
  eval(lua: string, keys: string[], args: string[]): void;
  xadd(w: XaddSpec): void;
  /** One reply per queued command; rejects when the whole pipeline failed (nothing is known). */
  exec(): Promise<readonly PipelineReply[]>;
}

/** A problem of the deployment (credentials, permissions, a refused script flag) read from an error reply. */
export interface Refusal {
  /** What to tell the operator (names what to fix, never a secret). */
  message: string;
  /** A fixed phrase for health details, e.g. `credentials refused`. */
  phrase: string;
}

/** The Redis commands the project sends, over one client. */
export interface RedisPort {
  /** How messages name the server: `Redis`, `Redis (Upstash REST)`. */
  readonly label: string;
  /**
   * True when one script or pipeline may name keys of any slot (standalone Redis, Upstash);
   * false on a Cluster, where each must stay within one slot.
   */
  readonly oneSlot: boolean;
  /**
   * Keys one read-only multi-key script (the monitoring reads) covers per call: many where each
   * round trip is dear, a few where a long script would hold up other clients, one on a Cluster.
   */
  readonly keysPerScript: number;

  /**
   * The Redis error text (first line, nothing the client appended) when Redis or the endpoint in
   * front of it refused the command, so it did not run; null when no reply came (connection lost,
   * timeout, network): the command may have run.
   */
  replyText(err: unknown): string | null;
  /** True when `err` is the client giving up waiting for a reply (the command may still run). */
  timedOut(err: unknown): boolean;
  /** The deployment problem an error reply names, if any. */
  refusal(text: string): Refusal | null;

  /**
   * `script` as this client sends it; `declaresKeys`: the script touches only the keys it is
   * passed (Upstash may then run it under per-key locks instead of its global one).
   */
  scriptAs(script: LuaScript, declaresKeys: boolean): LuaScript;
  /** EVALSHA, and on NOSCRIPT the same call with the text (`runScript`). The EVALSHA is sent before this returns. */
  runScript(script: LuaScript, keys: string[], args: string[]): Promise<unknown>;
  /** The script cache that serves `key` (one name for every key of a single server). */
  scriptCacheOf(key: string): string;
  /** A new pipeline. */
  pipeline(): RedisPipeline;

  /** `GET key` (null when missing). */
  get(key: string): Promise<string | null>;
  /** `SET key value NX`. */
  setNx(key: string, value: string): Promise<void>;
  /** `SMEMBERS key`. */
  smembers(key: string): Promise<string[]>;
  /** `SREM key member`. */
  srem(key: string, member: string): Promise<void>;
  /** How many of `keys` exist (split per slot where a command must stay within one). */
  exists(keys: readonly string[]): Promise<number>;
  /** `PING`: true when answered PONG (or when the client does not say what it was answered). */
  ping(): Promise<boolean>;
  /** `XADD … NOMKSTREAM …`: the new entry id, or null when the key does not exist. */
  xadd(w: XaddSpec): Promise<string | null>;
  /** `XRANGE key start end COUNT count`, the raw reply. */
  xrange(key: string, start: string, end: string, count: number): Promise<unknown>;
  /** `XREVRANGE key end start COUNT count`, the raw reply. */
  xrevrange(key: string, end: string, start: string, count: number): Promise<unknown>;
  /**
   * `XGROUP SETID key group id [ENTRIESREAD entriesRead]`: moves a consumer group's
   * last-delivered-id (an offsets reset); `entriesRead` null leaves Redis to estimate the group's lag.
   */
  xgroupSetId(key: string, group: string, id: string, entriesRead: number | null): Promise<void>;

  /** `CLUSTER SLOTS`, the raw reply (Cluster only). */
  clusterSlots?(): Promise<unknown>;
  /** `INFO section` of every master (one on a standalone server); where the client can send INFO. */
  infoOfMasters?(section: string): Promise<string[]>;
  /** True while the client is between reconnect attempts (a command would only wait in its queue). */
  offline?(): boolean;
  /** Closes the connections of the client (where it holds any). */
  close?(): Promise<void>;
}
