/**
 * Fenced acks: the consumer's shard commands for one member's grant of one shard,
 * run through the fenced-command script so a member that lost the shard (revoked, lease run
 * out, process paused) can no longer ack, delete or claim its entries. Before its first read
 * the member claims the shard's token with the epoch of the heartbeat answer that granted it;
 * afterwards every XACK, ack-delete, XCLAIM and XAUTOCLAIM checks the token is still
 * `(epoch, memberId)` in the same script call. A refusal throws `OwnershipLostError` and
 * nothing is written. Scripts run through `runScript` (EVALSHA, EVAL on NOSCRIPT).
 */
import { ioredisScriptRunner } from '../redis/ioredis-port.js';
import { runScript, type ScriptRunner } from '../store/run-script.js';
import type { LuaScript } from '../store/scripts/lua-script.js';
import {
  FENCED_COMMAND,
  OWNER_CLAIM,
  OWNER_RELEASE,
  ownerKey,
  tokenHolder,
} from '../store/scripts/shard-owner.js';
import { unlessAbandoned } from './consumer-abandon.js';
import { OwnershipLostError } from './consumer-errors.js';
import type { ConsumerEvents } from './consumer-events.js';
import { type ConsumerClient, ConsumerRedis } from './consumer-redis.js';
import { withinRedisTimeout } from './consumer-redis-wait.js';
import { parseEntries, type StreamEntry, text } from './consumer-replies.js';
import { toRedisCommandError } from './redis-adapter.js';

/**
 * How long a claimed token refuses claims with a lower epoch, ms, counted on Redis' clock. Only an
 * escape hatch: a deleted and recreated group starts its epochs at 1 again and could not claim
 * before then (a deleted stream or retired shard takes its tokens with it).
 */
export const OWNER_CLAIM_PROTECT_MS = 10 * 60_000;

/** One member's grant of a shard: the assignment epoch that granted it. */
export interface Fence {
  epoch: number;
  memberId: string;
}

/** The consumer's commands on one granted shard, fenced by its ownership token. */
export class FencedRedis extends ConsumerRedis {
  private readonly fenceArgs: string[];
  private ride: { conn: ConsumerClient; runner: ScriptRunner } | undefined;

  constructor(
    private readonly base: ConsumerRedis,
    readonly fence: Fence,
  ) {
    super(base.client, base.group, base.port, base.settings);
    this.fenceArgs = [base.group, String(fence.epoch), fence.memberId];
  }

  /** Shares the base's answer (asked once per consumer, not per grant). */
  override supportsAckDel(): Promise<boolean> {
    return this.base.supportsAckDel();
  }

  /**
   * Claims the shard's token; throws `OwnershipLostError` when a higher epoch holds it. The script
   * compares and writes the protection on Redis' clock: this process's clock plays no part.
   */
  async claimOwnership(key: string): Promise<void> {
    const args = [...this.fenceArgs, String(OWNER_CLAIM_PROTECT_MS)];
    const reply = (await this.script(OWNER_CLAIM, `claim ${key}`, [ownerKey(key)], args)) as unknown[];
    if (Number(reply[0]) !== 1) throw new OwnershipLostError(key, 'claim', tokenHolder(reply[1]));
  }

  /** Deletes the shard's token if it is still this grant's; true when it was. */
  async releaseOwnership(key: string): Promise<boolean> {
    const reply = await this.script(OWNER_RELEASE, `release ${key}`, [ownerKey(key)], this.fenceArgs);
    return Number(reply) === 1;
  }

  override async checkOwner(key: string): Promise<void> {
    await this.fenced(key, 'CHECK', []);
  }

  override async ack(key: string, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.fenced(key, 'XACK', ids);
  }

  override async ackDelete(key: string, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    if (await this.supportsAckDel())
      await this.fenced(key, 'XACKDEL', ['KEEPREF', 'IDS', String(ids.length), ...ids]);
    else await this.fenced(key, 'XACK+XDEL', ids);
  }

  override async claim(
    key: string,
    consumer: string,
    minIdleMs: number,
    ids: readonly string[],
  ): Promise<StreamEntry[]> {
    if (ids.length === 0) return [];
    return parseEntries(await this.fenced(key, 'XCLAIM', [consumer, String(minIdleMs), ...ids]));
  }

  override async touch(key: string, consumer: string, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.fenced(key, 'XCLAIM', [consumer, '0', ...ids, 'JUSTID']);
  }

  override async autoClaim(
    key: string,
    consumer: string,
    minIdleMs: number,
    cursor: string,
    count: number,
  ): Promise<{ cursor: string; entries: StreamEntry[] }> {
    const args = [consumer, String(minIdleMs), cursor, 'COUNT', String(count)];
    const [next, entries] = (await this.fenced(key, 'XAUTOCLAIM', args)) as [unknown, unknown];
    return { cursor: text(next), entries: parseEntries(entries) };
  }

  /**
   * The fenced ack, sent on `conn` at once (the read that follows it there does not wait for
   * its reply). A NOSCRIPT ack is sent again in full on the shared client: `conn` is blocked by
   * then. Never rejects.
   */
  protected override sendAck(
    conn: ConsumerClient,
    key: string,
    ackIds: readonly string[],
  ): Promise<Error | null> {
    const [keys, argv] = this.fencedCall(key, 'XACK', ackIds);
    // runScript sends the EVALSHA before it first waits, so the ack is on `conn` before the read.
    const sending = runScript(this.rideRunner(conn), FENCED_COMMAND, keys, argv);
    return withinRedisTimeout(sending, this.timeoutMs, `fenced XACK ${key}`)
      .then(
        (reply) => {
          this.fencedReply(reply, key, 'XACK');
          return null;
        },
        (err) => toRedisCommandError(err, `fenced XACK ${key}`, this.port),
      )
      .catch((err: Error) => err);
  }

  /**
   * The runner of acks that ride on `conn`, a dedicated ioredis connection: EVALSHA there, EVAL
   * on the shared client. Kept for the last `conn` (a reader sends on one connection): building it
   * per ack cost ~1.5 µs of CPU each.
   */
  private rideRunner(conn: ConsumerClient): ScriptRunner {
    if (this.ride?.conn !== conn) {
      const shared = ioredisScriptRunner(this.client);
      this.ride = { conn, runner: { ...shared, evalsha: ioredisScriptRunner(conn).evalsha } };
    }
    return this.ride.runner;
  }

  private fencedCall(key: string, command: string, args: readonly string[]): [string[], string[]] {
    return [
      [key, ownerKey(key)],
      [...this.fenceArgs, command, ...args],
    ];
  }

  private async fenced(key: string, command: string, args: readonly string[]): Promise<unknown> {
    const [keys, argv] = this.fencedCall(key, command, args);
    return this.fencedReply(
      await this.script(FENCED_COMMAND, `fenced ${command} ${key}`, keys, argv),
      key,
      command,
    );
  }

  /** The command's reply, or `OwnershipLostError` when the token is not this grant's. */
  private fencedReply(reply: unknown, key: string, command: string): unknown {
    const [ok, value] = reply as [unknown, unknown];
    if (Number(ok) !== 1)
      throw new OwnershipLostError(key, command === 'CHECK' ? 'dead-letter' : command, tokenHolder(value));
    return value;
  }

  private script(s: LuaScript, what: string, keys: string[], args: string[]): Promise<unknown> {
    return this.run(what, keys[0]!, () => this.port.runScript(s, keys, args));
  }
}

/** Pause after a failed claim before trying again, ms. */
const CLAIM_RETRY_MS = 500;

/** The commands a reader of a granted shard uses: fenced by the grant (`fencedAcks`), or plain. */
export function shardRedis(c: {
  options: { fencedAcks: boolean };
  redis: ConsumerRedis;
  memberId: string;
  grantEpoch: number;
}): ConsumerRedis {
  if (!c.options.fencedAcks) return c.redis;
  return new FencedRedis(c.redis, { epoch: c.grantEpoch, memberId: c.memberId });
}

/** What claiming a shard before its first read needs from the read loop. */
export interface ClaimLoop {
  /** False once the loop is stopping. */
  reading(): boolean;
  /** The member may read the shard (assigned, local lease valid). */
  mayRead(): boolean;
  sleep(ms: number): Promise<void>;
  /** Aborted when the loop must stop waiting for Redis. */
  giveUp: AbortSignal;
}

/**
 * Claims the shard's token before the first read (plain mode: nothing to do). A Redis failure is
 * reported and retried; a refusal throws `OwnershipLostError`. False when the loop stopped first.
 */
export async function claimBeforeReading(
  redis: ConsumerRedis,
  key: string,
  loop: ClaimLoop,
  events: ConsumerEvents,
): Promise<boolean> {
  if (!(redis instanceof FencedRedis)) return true;
  while (loop.reading()) {
    // Never claim on a lapsed lease: a member paused past it would claim with an old epoch.
    if (!loop.mayRead()) {
      await loop.sleep(100);
      continue;
    }
    try {
      await unlessAbandoned(redis.claimOwnership(key), loop.giveUp, `claim ${key}`);
      return true;
    } catch (err) {
      if (err instanceof OwnershipLostError) throw err;
      if (loop.giveUp.aborted) return false;
      events.error(redis.fence.memberId, `claim ${key}`, err);
      await loop.sleep(CLAIM_RETRY_MS);
    }
  }
  return false;
}

/** Deletes the shard's token if it is still this grant's (plain mode: nothing to do). */
export async function releaseOwnership(redis: ConsumerRedis, key: string): Promise<void> {
  if (redis instanceof FencedRedis) await redis.releaseOwnership(key);
}
