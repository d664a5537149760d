/**
 * Bounded waits of the consumer's Redis commands
 * (docs/consuming.md#when-the-consumers-redis-is-unreachable). ioredis queues a command while it
 * reconnects — forever with `maxRetriesPerRequest: null` — and a blocking read queued then never
 * settles, so every command the consumer sends is raced against `redisTimeoutMs` (a blocking
 * read against its BLOCK time plus that) and then fails with a retriable, in-doubt
 * `RedisCommandError`: the command itself is not cancelled and may still run once Redis is back.
 */
import { RedisCommandError } from './errors.js';

/** Errors `withinRedisTimeout` rejected with (a read loop replaces its connection after one). */
const timeouts = new WeakSet<Error>();

/**
 * Settles like `sending`, or rejects after `ms` with a retriable, in-doubt `RedisCommandError`
 * naming `setting` (the option that bounds the wait).
 */
export function withinRedisTimeout<T>(
  sending: Promise<T>,
  ms: number,
  what: string,
  setting = 'redisTimeoutMs',
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new RedisCommandError(
        `${what}: Redis did not answer within ${ms} ms (${setting}); the command may still run once Redis is back`,
        { retriable: true, inDoubt: true },
      );
      timeouts.add(err);
      reject(err);
    }, ms);
  });
  return Promise.race([sending, late]).finally(() => clearTimeout(timer));
}

/** True when `err` is a wait `withinRedisTimeout` gave up. */
export function isRedisTimeout(err: unknown): boolean {
  return err instanceof Error && timeouts.has(err);
}
